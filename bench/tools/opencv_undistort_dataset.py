#!/usr/bin/env python3
"""Undistorts an instant-ngp transforms.json dataset with OpenCV as gsplat's COLMAP parser does:
getOptimalNewCameraMatrix(K, D, size, alpha=0), initUndistortRectifyMap, remap (bilinear), crop to the
returned valid rectangle with the principal point moved. Writes a PINHOLE transforms.json and JPEGs.

A measurement tool (the "OpenCV-cropped PINHOLE" reference runs in bench/RESULTS.md), not part of radiant.
Needs Debian's python3-opencv: /usr/bin/python3 bench/tools/opencv_undistort_dataset.py IN OUT
"""
import json
import os
import sys

import cv2
import numpy as np


def main(src, dst):
    meta = json.load(open(os.path.join(src, "transforms.json")))
    K = np.array([[meta["fl_x"], 0, meta["cx"]], [0, meta["fl_y"], meta["cy"]], [0, 0, 1]], np.float64)
    D = np.array([meta.get(k, 0.0) for k in ("k1", "k2", "p1", "p2")], np.float64)
    w, h = int(meta["w"]), int(meta["h"])
    K_new, roi = cv2.getOptimalNewCameraMatrix(K, D, (w, h), 0)
    mapx, mapy = cv2.initUndistortRectifyMap(K, D, None, K_new, (w, h), cv2.CV_32FC1)
    x, y, rw, rh = roi
    print("K_new", K_new.tolist(), "roi", roi)
    os.makedirs(os.path.join(dst, "images"), exist_ok=True)
    out = {k: v for k, v in meta.items() if k not in ("frames", "k1", "k2", "p1", "p2", "camera_angle_x",
                                                      "camera_angle_y")}
    out.update(fl_x=K_new[0, 0], fl_y=K_new[1, 1], cx=K_new[0, 2] - x, cy=K_new[1, 2] - y, w=rw, h=rh)
    out["frames"] = []
    for f in meta["frames"]:
        p = os.path.join(src, f["file_path"])
        if not os.path.exists(p):
            continue
        im = cv2.imread(p, cv2.IMREAD_COLOR)
        im = cv2.remap(im, mapx, mapy, cv2.INTER_LINEAR)[y:y + rh, x:x + rw]
        cv2.imwrite(os.path.join(dst, f["file_path"]), im, [cv2.IMWRITE_JPEG_QUALITY, 95])
        out["frames"].append(f)
    json.dump(out, open(os.path.join(dst, "transforms.json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
