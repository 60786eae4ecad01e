#!/usr/bin/env python3
"""Issue 23 item 4: a PyTorch training step through radiant.torch.rasterization on `radiant bench`'s scene.

The parameters are leaf tensors in radiant's form (log-scales, opacity logits, SH), turned into gsplat's
arguments (exp, sigmoid) inside the step as a gsplat user's loop does; loss L1 against a fixed target; Adam
(fused). Prints medians of --iters steps after --warmup (CUDA events, a sync after each), split into rasterization forward +
backward and the whole step, and the time a step of 20 steps run back to back as a training loop runs them, to
compare with `radiant bench -n N --width W --height H` in the same call. --kernels lists the GPU time by kernel.

  PYTHONPATH=python RADIANT_LIBRARY=build/src/capi/libradiant.so python3 bench/tools/python_step.py -n 1000000
"""
import argparse
import statistics

import torch

import radiant
import radiant.torch as rt

p = argparse.ArgumentParser()
p.add_argument("-n", type=int, default=1_000_000)
p.add_argument("--width", type=int, default=1920)
p.add_argument("--height", type=int, default=1080)
p.add_argument("--heavier", action="store_true")
p.add_argument("--warmup", type=int, default=5)
p.add_argument("--iters", type=int, default=20)
p.add_argument("--keep-grads", action="store_true",
               help="zero_grad(set_to_none=False): zero the .grad tensors and accumulate into them")
p.add_argument("--host-cameras", action="store_true", help="viewmats and Ks as CPU tensors")
p.add_argument("--kernels", action="store_true", help="print the GPU time of 5 steps by kernel (torch.profiler)")
a = p.parse_args()

radiant.set_log_level("warn")
scene, cam = radiant.Scene.bench(a.n, a.width, a.height, a.heavier)
dev = "cuda"
t = lambda x: torch.from_numpy(x.copy()).to(dev).requires_grad_(True)
means, log_scales, quats, logits, sh = (t(scene.means), t(scene.log_scales), t(scene.quats),
                                         t(scene.opacity_logits), t(scene.sh))
params = [means, log_scales, quats, logits, sh]
cam_dev = "cpu" if a.host_cameras else dev
viewmat = torch.eye(4, device=cam_dev)[None]
K = torch.tensor([[[cam.fx, 0, cam.cx], [0, cam.fy, cam.cy], [0, 0, 1]]], device=cam_dev, dtype=torch.float32)
target = torch.rand(1, a.height, a.width, 3, device=dev)
opt = torch.optim.Adam(params, lr=1e-3, fused=True)


def raster():
    return rt.rasterization(means, quats, log_scales.exp(), torch.sigmoid(logits), sh, viewmat, K, a.width,
                            a.height, sh_degree=3)[0]


def timed(fn):
    times = []
    for i in range(a.warmup + a.iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        if i >= a.warmup:
            times.append(s.elapsed_time(e))
    return statistics.median(times)


def fwd_bwd():
    opt.zero_grad(set_to_none=not a.keep_grads)
    (raster() - target).abs().mean().backward()


def step():
    fwd_bwd()
    opt.step()


def loop(fn, steps=20):
    """ms a step of `steps` steps run back to back, as a training loop runs them (one sync at the end)."""
    for _ in range(a.warmup):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(steps):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / steps


if a.kernels:
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            step()
        torch.cuda.synchronize()
    rows = [e for e in prof.key_averages() if e.self_device_time_total > 0]
    rows.sort(key=lambda e: -e.self_device_time_total)
    total = sum(e.self_device_time_total for e in rows) / 5 / 1000
    print(f"GPU time a step (5 steps profiled): {total:.3f} ms")
    for e in rows[:16]:
        print(f"  {e.self_device_time_total / 5 / 1000:7.3f} ms  x{e.count // 5:<3d} {e.key[:90]}")

variant = ("keep_grads " if a.keep_grads else "") + ("host cameras " if a.host_cameras else "")
name = f"{variant}{a.n} Gaussians{' (heavier)' if a.heavier else ''} @ {a.width}x{a.height}"
print(f"python {name}: forward+L1+backward {timed(fwd_bwd):.3f} ms, step (with torch Adam fused) "
      f"{timed(step):.3f} ms, loop of 20 steps {loop(step):.3f} ms a step, "
      f"peak {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB (torch allocations)")
