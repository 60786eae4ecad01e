import json
import os

import pytest

import radiant


def test_a_short_run_writes_what_the_cli_writes(trained):
    assert not trained.stopped
    for f in ("scene.ply", "metrics.json", "config.json", "cameras.json", "report.html", "checkpoint.bin"):
        assert os.path.exists(os.path.join(trained.output, f)), f
    assert trained.metrics["steps"] == 300 and trained.metrics["psnr"] > 10  # 6.7 dB at step 60, 12.6 at 300
    assert len(trained.scene) == trained.metrics["gaussians"]
    config = json.load(open(os.path.join(trained.output, "config.json")))
    assert config["steps"] == 300 and config["sh_interval"] == 100


def test_the_callback_sees_every_step_and_can_stop_the_run(demo_data, tmp_path):
    seen = []

    def on_step(p):
        seen.append((p.step, p.steps, p.gaussians))
        assert p.loss > 0 and p.psnr > 0
        return p.step == 7

    r = radiant.train(demo_data, tmp_path / "run", callback=on_step, steps=50, backend="cpu")
    assert r.stopped and r.scene is None
    assert [s[0] for s in seen] == list(range(1, 8)) and seen[0][1] == 50
    assert (tmp_path / "run" / "checkpoint.bin").exists() and not (tmp_path / "run" / "scene.ply").exists()


def test_an_exception_in_the_callback_stops_the_run_and_is_raised(demo_data, tmp_path):
    def boom(p):
        if p.step == 3:
            raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        radiant.train(demo_data, tmp_path / "run", callback=boom, steps=50, backend="cpu")


def test_bad_configs_raise_before_anything_is_written(demo_data, tmp_path):
    with pytest.raises(radiant.InvalidArgument, match="stepz"):
        radiant.train(demo_data, tmp_path / "a", stepz=10)
    with pytest.raises(radiant.Error, match="strategy|nope"):
        radiant.train(demo_data, tmp_path / "b", strategy="nope", steps=5, backend="cpu")
    with pytest.raises(radiant.IoError, match="no_such_dataset"):
        radiant.train(tmp_path / "no_such_dataset", tmp_path / "c", steps=5, backend="cpu")
    assert not (tmp_path / "a").exists() and not (tmp_path / "c" / "scene.ply").exists()


def test_an_earlier_run_is_not_replaced_without_overwrite(trained, demo_data):
    with pytest.raises(radiant.Error, match="holds a run|overwrite"):
        radiant.train(demo_data, trained.output, steps=5, backend="cpu")


def test_datasets_open_as_training_sees_them(demo_data):
    d = radiant.open_dataset(demo_data, eval=True)
    assert len(d) == 15 and sum(v.test for v in d.views) == 3
    rgb, mask = d.image(0, mask=True)
    assert rgb.shape == (48, 64, 3) and rgb.dtype.name == "uint8" and (mask == 255).all()
    assert d.points().shape[1] == 3
    half = radiant.open_dataset(demo_data, downscale=2)
    assert half.views[0].camera.width == 32
    with pytest.raises(radiant.InvalidArgument, match="unknown key|undistort"):
        radiant.open_dataset(demo_data, undistort="sideways")
    with pytest.raises(IndexError):
        d.image(99)
