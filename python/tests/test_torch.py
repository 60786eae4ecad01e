"""radiant.torch.rasterization: gradients by central differences in double on the CPU path (gradcheck), the
forward against radiant's own renderer, and on a GPU the CUDA path against the CPU reference."""
import os

import numpy as np
import pytest

import radiant

if os.environ.get("CI") == "true":
    import torch  # CI installs python3-torch: these tests must run there
else:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (Debian: python3-torch)")
import radiant.torch as rt  # noqa: E402


def scene_tensors(n=48, dtype=torch.float64, seed=0, k=1):
    g = torch.Generator().manual_seed(seed)
    means = (torch.rand(n, 3, generator=g, dtype=dtype) - 0.5) * torch.tensor([1.6, 1.2, 0.6], dtype=dtype)
    means[:, 2] += 3.0
    quats = torch.randn(n, 4, generator=g, dtype=dtype)
    scales = torch.rand(n, 3, generator=g, dtype=dtype) * 0.08 + 0.03
    opacities = torch.rand(n, generator=g, dtype=dtype) * 0.6 + 0.2
    colors = torch.rand(n, 3, generator=g, dtype=dtype) if k == 0 else torch.randn(n, k, 3, generator=g,
                                                                                    dtype=dtype) * 0.4
    return means, quats, scales, opacities, colors


def cameras(c=1, dtype=torch.float64):
    vm = torch.eye(4, dtype=dtype).repeat(c, 1, 1)
    if c > 1:  # a second view from the side: rotated 15° about y, same target
        a = np.radians(15)
        R = torch.tensor([[np.cos(a), 0, -np.sin(a)], [0, 1, 0], [np.sin(a), 0, np.cos(a)]], dtype=dtype)
        vm[1, :3, :3] = R
        vm[1, :3, 3] = torch.tensor([0, 0, 3.0], dtype=dtype) - R @ torch.tensor([0, 0, 3.0], dtype=dtype)
    K = torch.tensor([[40.0, 0, 16], [0, 40, 12], [0, 0, 1]], dtype=dtype).repeat(c, 1, 1)
    return vm, K


@pytest.mark.parametrize("case", ["rgb", "sh1", "antialiased", "two_cameras_background"])
def test_gradcheck_in_double_on_the_cpu(case):
    k = 0 if case in ("rgb", "antialiased", "two_cameras_background") else 4
    means, quats, scales, opacities, colors = scene_tensors(k=k)
    c = 2 if case == "two_cameras_background" else 1
    vm, K = cameras(c)
    bg = torch.tensor([[0.2, 0.5, 0.9]] * c, dtype=torch.float64, requires_grad=True) if c == 2 else None
    kw = dict(sh_degree=1 if k == 4 else None, rasterize_mode="antialiased" if case == "antialiased" else "classic")
    inputs = [t.requires_grad_(True) for t in (means, quats, scales, opacities, colors)]

    def f(m, q, s, o, col, *b):
        return rt.rasterization(m, q, s, o, col, vm, K, 32, 24, backgrounds=b[0] if b else None, **kw)[0]

    if bg is not None:
        inputs.append(bg)
    assert torch.autograd.gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_the_forward_is_radiants_render(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    scene = radiant.Scene.from_arrays(
        means=rng.normal(size=(n, 3)) * [0.8, 0.6, 0.3] + [0, 0, 3], log_scales=rng.uniform(-3.5, -2, (n, 3)),
        quats=rng.normal(size=(n, 4)), opacity_logits=rng.normal(size=n), sh=rng.normal(size=(n, 9, 3)) * 0.3)
    cam = radiant.Camera(64, 48, 60, 60, 32, 24, t=(0.05, -0.02, 0.1))
    want = scene.render(cam, "cpu", background=(0.1, 0.2, 0.3))
    t = lambda a: torch.from_numpy(np.array(a))
    vm = torch.eye(4)[None]
    vm[0, :3, 3] = t(cam.t)
    K = torch.tensor([[[60.0, 0, 32], [0, 60, 24], [0, 0, 1]]])
    colors, alphas, meta = rt.rasterization(t(scene.means), t(scene.quats), t(scene.log_scales).exp(),
                                            torch.sigmoid(t(scene.opacity_logits)), t(scene.sh), vm, K, 64, 48,
                                            sh_degree=2, backgrounds=torch.tensor([[0.1, 0.2, 0.3]]))
    assert colors.shape == (1, 48, 64, 3) and alphas.shape == (1, 48, 64, 1) and meta["radii"].shape == (1, n)
    # the same image up to the float32 round trip of log/exp and logit/sigmoid
    assert np.abs(colors[0].numpy() - want).max() < 1e-5
    assert (meta["radii"] > 0).sum() > n // 2


def test_a_backward_after_another_forward_renders_its_camera_again():
    means, quats, scales, opacities, colors = (x.requires_grad_(True) for x in scene_tensors(k=0))
    vm, K = cameras(2)

    def grads(first_only):
        for x in (means, quats, scales, opacities, colors):
            x.grad = None
        a = rt.rasterization(means, quats, scales, opacities, colors, vm[:1], K[:1], 32, 24)[0]
        if not first_only:  # takes the same rasterizer slot with another camera
            rt.rasterization(means, quats, scales, opacities, colors, vm[1:], K[1:], 32, 24)
        a.square().sum().backward()
        return [x.grad.clone() for x in (means, quats, scales, opacities, colors)]

    for g1, g2 in zip(grads(True), grads(False)):
        torch.testing.assert_close(g1, g2, rtol=0, atol=0)


def test_bad_arguments_raise_with_radiants_message():
    means, quats, scales, opacities, colors = scene_tensors(k=0)
    vm, K = cameras()
    with pytest.raises(radiant.InvalidArgument, match="quats must be"):
        rt.rasterization(means, quats[:, :3], scales, opacities, colors, vm, K, 32, 24)
    with pytest.raises(radiant.InvalidArgument, match="render_mode"):
        rt.rasterization(means, quats, scales, opacities, colors, vm, K, 32, 24, render_mode="RGB+D")
    with pytest.raises(radiant.InvalidArgument, match="not supported"):
        rt.rasterization(means, quats, scales, opacities, colors, vm, K, 32, 24, with_ut=True)
    bad = vm.clone()
    bad[0, 0, 0] = 2.0  # not a rotation
    with pytest.raises(radiant.InvalidArgument, match="orthonormal"):
        rt.rasterization(means, quats, scales, opacities, colors, bad, K, 32, 24)
    with pytest.raises(radiant.InvalidArgument, match="float32|dtype"):
        rt.rasterization(means.half(), quats, scales, opacities, colors, vm, K, 32, 24)


cuda = pytest.mark.skipif(not (torch.cuda.is_available() and radiant.cuda_available()),
                          reason="no CUDA device (runs on the GPU machine)")


def cuda_case():
    cpu = [t.float() for t in scene_tensors(n=4000, k=16, seed=3)]
    cpu[0] = cpu[0] * torch.tensor([2.0, 2.0, 1.0])
    vm, K = cameras(2, torch.float32)
    K = K * torch.tensor([[4.0], [4.0], [1.0]])  # 128 × 96 px
    return cpu, vm, K, torch.rand(2, 96, 128, 3, generator=torch.Generator().manual_seed(1))


def l1_grads(dev, cpu, vm, K, target):
    ts = [t.to(dev).clone().requires_grad_(True) for t in cpu]
    img = rt.rasterization(*ts, vm.to(dev), K.to(dev), 128, 96, sh_degree=3,
                           backgrounds=torch.tensor([[0.3, 0.3, 0.3]] * 2, device=dev))[0]
    (img - target.to(dev)).abs().mean().backward()
    return img.detach().cpu(), [t.grad.cpu() for t in ts]


def cosine(a, b):
    return torch.nn.functional.cosine_similarity(a.flatten().double(), b.flatten().double(), dim=0).item()


@cuda
def test_cuda_path_equals_radiants_cuda_step_called_directly():
    """Through torch (gsplat's arguments, log/logit, torch's stream, autograd) against radiant's CUDA rasterizer
    called on radiant's own parameters with ∂L/∂C of the same L1 loss: the same kernels, so equal up to the
    order of float atomics."""
    import ctypes
    from radiant import _lib
    from radiant._core import render_options
    cpu, vm, K, target = cuda_case()
    img, grads = l1_grads("cuda", cpu, vm, K, target)
    means, quats, scales, opac, sh = (t.cuda().contiguous() for t in cpu)
    raw = [means, scales.log().contiguous(), quats, torch.logit(opac).contiguous(), sh]
    g = rt._gaussians(*raw, 3)
    outs = [torch.empty_like(t) for t in raw]
    acc = [torch.zeros_like(t) for t in raw]
    ptr = ctypes.c_void_p()
    rt.check(rt.lib.rd_rasterizer_create(_lib.DEVICE["cuda"], ctypes.byref(ptr)))
    handle = rt._RasterizerHandle(ptr)
    for c in range(2):
        cam = radiant.Camera(128, 96, K[c, 0, 0].item(), K[c, 1, 1].item(), K[c, 0, 2].item(), K[c, 1, 2].item(),
                             vm[c, :3, :3].double().numpy(), vm[c, :3, 3].double().numpy())._c()
        opts = render_options(sh_degree=3, background=(0.3, 0.3, 0.3))
        rgb = torch.empty(96, 128, 3, device="cuda")
        rt.check(rt.lib.rd_rasterizer_forward(handle._ptr, ctypes.byref(g), ctypes.byref(cam), ctypes.byref(opts),
                                              rt._ptr(rgb), None, None, None, None))
        assert (rgb.cpu() - img[c]).abs().mean() < 1e-6
        v = (torch.sign(rgb - target[c].cuda()) / target.numel()).contiguous()
        out = rt._gaussians(*outs, 3)
        rt.check(rt.lib.rd_rasterizer_backward(handle._ptr, ctypes.byref(g), rt._ptr(v), ctypes.byref(out), None,
                                               None))
        for a, o in zip(acc, outs):
            a += o
    torch.cuda.synchronize()
    want = [acc[0], acc[2], acc[1] / scales, acc[3] / (opac * (1 - opac)), acc[4]]  # chain rule of log, logit
    for name, a, b in zip(("means", "quats", "scales", "opacities", "colors"), grads, want):
        assert cosine(a, b.cpu()) > 0.99999, name


@cuda
def test_cuda_path_matches_the_cpu_reference():
    """CUDA float against the CPU reference: the bounds of the C++ parity tests (tests/gpu)."""
    cpu, vm, K, target = cuda_case()
    img_c, grads_c = l1_grads("cpu", cpu, vm, K, target)
    img_g, grads_g = l1_grads("cuda", cpu, vm, K, target)
    assert (img_c - img_g).abs().mean() < 1e-6
    for name, a, b in zip(("means", "quats", "scales", "opacities", "colors"), grads_c, grads_g):
        assert cosine(a, b) > 0.9999, name


@cuda
def test_cuda_render_is_radiants_cuda_render():
    scene, cam = radiant.Scene.bench(200_000, width=320, height=180)
    want = scene.render(cam, "cuda")
    d = "cuda"
    t = lambda a: torch.from_numpy(np.array(a)).to(d)
    K = torch.tensor([[[cam.fx, 0, cam.cx], [0, cam.fy, cam.cy], [0, 0, 1]]], device=d)
    colors = rt.rasterization(t(scene.means), t(scene.quats), t(scene.log_scales).exp(),
                              torch.sigmoid(t(scene.opacity_logits)), t(scene.sh), torch.eye(4, device=d)[None], K,
                              cam.width, cam.height, sh_degree=3)[0]
    assert (colors[0].cpu() - torch.from_numpy(want)).abs().mean() < 1e-6
