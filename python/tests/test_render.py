import json
import subprocess

import numpy as np
import pytest

import radiant
from conftest import devices, read_png, to_u8


@pytest.mark.parametrize("device", devices())
def test_render_equals_the_cli_bit_for_bit(trained, demo_data, radiant_bin, tmp_path, device):
    cams = [v.camera for v in radiant.open_dataset(demo_data, eval=True).views[:3]]
    cams.append(radiant.Camera.look_at((0.3, -1.0, -2.5), (0, 0, 0), fov_y_deg=45, width=80, height=56))
    scene_path = tmp_path / "scene.ply"
    trained.scene.save(scene_path)
    for i, cam in enumerate(cams):
        cam_path = tmp_path / f"cam{i}.json"
        cam_path.write_text(json.dumps(cam.to_json()))
        out = tmp_path / f"cli{i}.png"
        subprocess.run([radiant_bin, "render", "-m", str(scene_path), "--camera", str(cam_path), "-o", str(out),
                        "--backend", device, "--background", "0.2,0.3,0.4"], check=True, capture_output=True)
        ours = radiant.Scene.load(scene_path).render(cam, device, background=(0.2, 0.3, 0.4))
        assert ours.shape == (cam.height, cam.width, 3)
        np.testing.assert_array_equal(to_u8(ours), read_png(out), err_msg=f"camera {i} on {device}")
        assert ours.std() > 0.01  # the view shows something


def test_layers_and_options(trained, demo_data):
    cam = radiant.open_dataset(demo_data).views[0].camera
    rgb, alpha, depth = trained.scene.render(cam, "cpu", alpha=True, depth=True)
    assert alpha.shape == depth.shape == (cam.height, cam.width)
    assert 0 <= alpha.min() and alpha.max() <= 1 and alpha.max() > 0.5
    assert (depth[alpha > 0.5] > 0).all()
    white = trained.scene.render(cam, "cpu", background=(1, 1, 1))
    # background shows through where the splats leave transmittance: colour = splats + (1 − α)·background
    np.testing.assert_allclose(white - rgb, np.repeat((1 - alpha)[..., None], 3, -1), atol=2e-5)
    dc_only = trained.scene.render(cam, "cpu", sh_degree=0)
    assert np.abs(dc_only - rgb).max() > 0


def test_bad_cameras_and_options_raise(trained):
    scene = trained.scene
    cam = radiant.Camera(64, 48, 50, 50, 32, 24, R=np.diag([1.0, 1.0, -1.0]), t=(0, 0, 3))
    with pytest.raises(radiant.InvalidArgument, match="rotation"):
        scene.render(cam, "cpu")
    with pytest.raises(radiant.InvalidArgument, match="sh_degree 3 is above the scene's degree"):
        radiant.Scene.create(4, 1).render(radiant.Camera(8, 8, 8, 8, 4, 4, t=(0, 0, 2)), "cpu", sh_degree=3)
    with pytest.raises(radiant.InvalidArgument, match="focal|fx"):
        scene.render(radiant.Camera(64, 48, -5, 50, 32, 24, t=(0, 0, 3)), "cpu")
    with pytest.raises(radiant.InvalidArgument, match="lens distortion"):
        scene.render(radiant.Camera(64, 48, 50, 50, 32, 24, t=(0, 0, 3), model="opencv",
                                    distortion=(0.1, 0, 0, 0)), "cpu")
    with pytest.raises(radiant.InvalidArgument, match="device"):
        scene.render(radiant.Camera(64, 48, 50, 50, 32, 24, t=(0, 0, 3)), "tpu")
    if not radiant.cuda_available():
        with pytest.raises(radiant.NoCuda, match="CUDA"):
            scene.render(radiant.Camera(64, 48, 50, 50, 32, 24, t=(0, 0, 3)), "cuda")
