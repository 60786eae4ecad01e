import numpy as np
import pytest

import radiant


def random_scene(n=200, degree=2, seed=0):
    rng = np.random.default_rng(seed)
    k = (degree + 1) ** 2
    return radiant.Scene.from_arrays(
        means=rng.normal(size=(n, 3)), log_scales=rng.uniform(-4, -1, size=(n, 3)),
        quats=rng.normal(size=(n, 4)), opacity_logits=rng.normal(size=n), sh=rng.normal(size=(n, k, 3)) * 0.3)


def test_arrays_are_views_of_radiants_memory():
    s = radiant.Scene.create(10, 1)
    assert s.sh.shape == (10, 4, 3) and s.quats[:, 0].tolist() == [1.0] * 10
    s.means[3] = (1, 2, 3)
    again = radiant.Scene.__new__(radiant.Scene)
    radiant.Scene.__init__(again, s._ptr)  # a second view of the same handle sees the write
    assert again.means[3].tolist() == [1, 2, 3]
    again._ptr = None  # not its to free


@pytest.mark.parametrize("ext", [".ply", ".spz", ".splat", ".compressed.ply"])
def test_round_trip_every_format(tmp_path, ext):
    s = random_scene(degree=3 if ext != ".splat" else 0)
    path = tmp_path / ("scene" + ext)
    s.save(path)
    r = radiant.Scene.load(path)
    assert len(r) == len(s)
    if ext == ".ply":  # lossless
        for name in ("means", "log_scales", "quats", "opacity_logits", "sh"):
            np.testing.assert_array_equal(getattr(r, name), getattr(s, name), err_msg=name)
    else:  # quantised formats: positions to well under a hundredth of the scene's spread
        assert np.abs(r.means - s.means).max() < 0.02


def test_load_errors_name_the_file(tmp_path):
    bad = tmp_path / "broken.ply"
    bad.write_bytes(b"ply\nformat ascii 1.0\nelement vertex 3\nend_header\n")
    with pytest.raises(radiant.IoError, match="broken.ply"):
        radiant.Scene.load(bad)
    with pytest.raises(radiant.IoError, match="missing.spz"):
        radiant.Scene.load(tmp_path / "missing.spz")
    with pytest.raises(radiant.IoError, match="scene.xyz"):
        random_scene().save(tmp_path / "scene.xyz")
    assert not (tmp_path / "scene.xyz").exists()


def test_bad_arrays_raise_with_radiants_message():
    with pytest.raises(radiant.InvalidArgument, match="means must be"):
        radiant.Scene.from_arrays(np.zeros((3, 2)), np.zeros((3, 3)), np.ones((3, 4)), np.zeros(3),
                                  np.zeros((3, 1, 3)))
    means = np.zeros((3, 3))
    means[1, 2] = np.nan
    with pytest.raises(radiant.InvalidArgument, match="Gaussian 1"):
        radiant.Scene.from_arrays(means, np.zeros((3, 3)), np.ones((3, 4)), np.zeros(3), np.zeros((3, 1, 3)))
    with pytest.raises(radiant.InvalidArgument, match="SH degree 4"):
        radiant.Scene.create(5, 4)
