"""Shared fixtures: the radiant CLI (to compare with), a small demo dataset and a short run on it."""
import os
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

import radiant

radiant.set_log_level("warn")
HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def radiant_bin():
    path = os.environ.get("RADIANT_BIN") or os.path.join(HERE, "..", "..", "build", "radiant")
    if not os.path.exists(path):
        pytest.fail(f"the radiant executable is not at {path} (build it, or set RADIANT_BIN)")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def demo_data(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "data"
    radiant.write_demo_dataset(path, 64, 48, 12, 3)
    return path


@pytest.fixture(scope="session")
def trained(demo_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "run"
    return radiant.train(demo_data, out, steps=300, backend="cpu", eval=True, sh_interval=100)


def devices():
    return ["cpu", "cuda"] if radiant.cuda_available() else ["cpu"]


def read_png(path):
    """An 8-bit RGB or grey PNG as written by libpng (non-interlaced), without a PNG library."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0 and colour in (0, 2), header
    ch = 3 if colour == 2 else 1
    raw = zlib.decompress(idat)
    stride = w * ch
    out = np.zeros((h, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            a = cur[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[x] = (line[x] + p) & 255
        out[y] = cur
        prev = cur
    return out.reshape(h, w, ch).astype(np.uint8)


def to_u8(img):
    """radiant's rounding to 8 bits (io/png_io.cpp to_u8): clamp to [0, 1], float32 × 255, round half up."""
    v = np.nan_to_num(np.clip(img.astype(np.float32), 0, 1), nan=0.0)
    return np.floor((v * np.float32(255)).astype(np.float64) + 0.5).astype(np.uint8)
