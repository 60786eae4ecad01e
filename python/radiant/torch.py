"""radiant's rasterizer as a PyTorch autograd function, with gsplat's `rasterization` arguments and returns
for the subset radiant supports (pinhole Ks, viewmats, SH or RGB colours, backgrounds, eps2d, near/far,
classic and antialiased modes).

Tensors go to radiant without copies: on CUDA its kernels read and write the tensors' memory on torch's
current stream; on the CPU the reference renderer runs in float32 or float64 (float64 for gradcheck).
"""
import ctypes
import itertools

import torch

from . import _lib
from ._core import InvalidArgument, _Handle, check, render_options
from ._lib import lib

C0 = 0.28209479177387814  # the degree-0 SH basis constant: colour = 0.5 + C0 · DC


class Rasterizer:
    """radiant rasterizers for one device, one per camera of a batch. Each keeps its last forward for the
    backward; a backward whose forward was overwritten by a later call renders that camera again first."""

    def __init__(self, device: torch.device):
        self.device = torch.device(device)
        self._slots = []  # [handle, token of the forward it holds]
        self._tokens = itertools.count(1)

    def slot(self, i):
        while len(self._slots) <= i:
            ptr = ctypes.c_void_p()
            kind = _lib.DEVICE["cuda" if self.device.type == "cuda" else "cpu"]
            with _on(self.device):
                check(lib.rd_rasterizer_create(kind, ctypes.byref(ptr)))
            self._slots.append([_RasterizerHandle(ptr), 0])
        return self._slots[i]

    def next_token(self):
        return next(self._tokens)


class _RasterizerHandle(_Handle):
    _free = staticmethod(lib.rd_rasterizer_free)


_default = {}


def _rasterizer_for(device: torch.device) -> Rasterizer:
    key = str(device)
    if key not in _default:
        _default[key] = Rasterizer(device)
    return _default[key]


class _on:
    """torch.cuda.device(d) for CUDA tensors, nothing for CPU ones."""

    def __init__(self, device):
        self.ctx = torch.cuda.device(device) if device.type == "cuda" else None

    def __enter__(self):
        if self.ctx:
            self.ctx.__enter__()

    def __exit__(self, *a):
        if self.ctx:
            self.ctx.__exit__(*a)


def _ptr(t):
    return ctypes.c_void_p(t.data_ptr()) if t is not None else None


def _gaussians(means, log_scales, quats, opacity_logits, sh, degree):
    g = _lib.Gaussians_t()
    g.n = means.shape[0]
    g.sh_degree = degree
    g.dtype = _lib.FLOAT64 if means.dtype == torch.float64 else _lib.FLOAT32
    g.means, g.log_scales, g.quats = means.data_ptr(), log_scales.data_ptr(), quats.data_ptr()
    g.opacity_logits, g.sh = opacity_logits.data_ptr(), sh.data_ptr()
    return g


def _stream(device):
    return ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream) if device.type == "cuda" else None


def _forward_one(slot, g, cam, opts, rgb, alpha, radii, device):
    pairs = ctypes.c_int64()
    radii_ptr = ctypes.cast(_ptr(radii), ctypes.c_void_p) if radii is not None else None
    check(lib.rd_rasterizer_forward(slot[0]._ptr, ctypes.byref(g), ctypes.byref(cam), ctypes.byref(opts),
                                    _ptr(rgb), _ptr(alpha), radii_ptr, ctypes.byref(pairs), _stream(device)))
    return pairs.value


class _Views:
    """The cameras of one rasterization call, turned into radiant's structs when the forward needs them.

    radiant takes cameras on the host: CUDA viewmats, Ks and backgrounds are copied to it in one transfer, which
    waits for the work queued on the stream before it (CPU tensors cost no wait)."""

    def __init__(self, viewmats, Ks, width, height, options):
        self.viewmats, self.Ks, self.width, self.height, self.options = viewmats, Ks, width, height, options
        self.count = viewmats.shape[0]

    def structs(self, backgrounds):
        C = self.count
        parts = [self.viewmats.detach().reshape(C, 16), self.Ks.detach().reshape(C, 9)]
        if backgrounds is not None:
            parts.append(backgrounds.detach().reshape(C, 3))
        gpu = next((p.device for p in parts if p.device.type != "cpu"), None)
        rows = torch.cat([p.to(gpu or "cpu", torch.float64) for p in parts], dim=1).cpu().tolist()
        cameras, options = [], []
        for r in rows:
            cam = _lib.Camera_t()
            cam.width, cam.height = self.width, self.height
            cam.fx, cam.fy, cam.cx, cam.cy = r[16], r[20], r[18], r[21]  # K row-major after the 16 of viewmat
            cam.R[:] = r[0:3] + r[4:7] + r[8:11]
            cam.t[:] = (r[3], r[7], r[11])
            cam.model = _lib.MODELS["pinhole"]
            cameras.append(cam)
            o = _lib.RenderOptions_t.from_buffer_copy(self.options)
            if backgrounds is not None:
                o.background[:] = r[25:28]
            options.append(o)
        return cameras, options


class _Rasterize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, means, log_scales, quats, opacity_logits, sh, backgrounds, views, degree, rasterizer):
        device = means.device
        C, H, W = views.count, views.height, views.width
        rgb = torch.empty((C, H, W, 3), dtype=means.dtype, device=device)
        alpha = torch.empty((C, H, W), dtype=means.dtype, device=device)
        radii = torch.empty((C, means.shape[0]), dtype=torch.int32, device=device)
        g = _gaussians(means, log_scales, quats, opacity_logits, sh, degree)
        # Last, so that as little as possible follows the wait for the GPU that CUDA camera tensors cost.
        cameras, options = views.structs(backgrounds)
        tokens, pairs = [], []
        with _on(device):
            for c in range(C):
                slot = rasterizer.slot(c)
                slot[1] = rasterizer.next_token()
                tokens.append(slot[1])
                pairs.append(_forward_one(slot, g, cameras[c], options[c], rgb[c], alpha[c], radii[c], device))
        ctx.save_for_backward(means, log_scales, quats, opacity_logits, sh, alpha)
        ctx.cameras, ctx.options, ctx.degree, ctx.rasterizer, ctx.tokens = cameras, options, degree, rasterizer, tokens
        ctx.has_background = backgrounds is not None
        ctx.mark_non_differentiable(alpha, radii)
        ctx.pairs = pairs
        return rgb, alpha, radii

    @staticmethod
    def backward(ctx, v_rgb, _v_alpha, _v_radii):
        means, log_scales, quats, opacity_logits, sh, alpha = ctx.saved_tensors
        device = means.device
        v_rgb = v_rgb.contiguous()
        g = _gaussians(means, log_scales, quats, opacity_logits, sh, ctx.degree)
        # The first camera writes the gradients in place; further cameras go through a scratch set and add.
        grads = [torch.empty_like(t) for t in (means, log_scales, quats, opacity_logits, sh)]
        step = grads if len(ctx.cameras) == 1 else [torch.empty_like(t) for t in grads]
        first, rest = _gaussians(*grads, ctx.degree), _gaussians(*step, ctx.degree)
        with _on(device):
            for c, cam in enumerate(ctx.cameras):
                slot = ctx.rasterizer.slot(c)
                if slot[1] != ctx.tokens[c]:  # a later forward took this rasterizer: render the camera again
                    H, W = cam.height, cam.width
                    scratch = torch.empty((H, W, 3), dtype=means.dtype, device=device)
                    _forward_one(slot, g, cam, ctx.options[c], scratch, None, None, device)
                    slot[1] = ctx.tokens[c]
                out = first if c == 0 else rest
                check(lib.rd_rasterizer_backward(slot[0]._ptr, ctypes.byref(g), _ptr(v_rgb[c]), ctypes.byref(out),
                                                 None, _stream(device)))
                if c > 0:
                    for acc, s in zip(grads, step):
                        acc += s
        v_bg = None
        if ctx.has_background and ctx.needs_input_grad[5]:
            # colour = splats + T·background, so ∂L/∂background = Σ_pixels ∂L/∂colour · (1 − α).
            v_bg = (v_rgb * (1 - alpha).unsqueeze(-1)).sum(dim=(1, 2))
        return (*grads, v_bg, None, None, None)


def rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width, height, near_plane=0.01,
                  far_plane=1e10, radius_clip=0.0, eps2d=0.3, sh_degree=None, packed=True, tile_size=16,
                  backgrounds=None, render_mode="RGB", sparse_grad=False, absgrad=False,
                  rasterize_mode="classic", channel_chunk=32, distributed=False, camera_model="pinhole",
                  covars=None, rasterizer=None, **unsupported):
    """gsplat.rasterization's arguments and returns for what radiant supports.

    means [N,3], quats [N,4] (w,x,y,z), scales [N,3], opacities [N], colors [N,3] (RGB, sh_degree=None) or
    [N,K,3] (SH coefficients, sh_degree given), viewmats [C,4,4] world→camera, Ks [C,3,3] pinhole,
    backgrounds [C,3]. Returns (colors [C,H,W,3], alphas [C,H,W,1], meta). Gradients flow to means, quats,
    scales, opacities, colors and backgrounds; alphas carry none (radiant's backward takes ∂L/∂colour), nor do
    viewmats and Ks. RGB colours are drawn as radiant's degree-0 SH, clamped at 0 like SH colours."""
    if unsupported:
        raise InvalidArgument(f"radiant.torch.rasterization: {sorted(unsupported)} not supported")
    if render_mode != "RGB":
        raise InvalidArgument(f"render_mode {render_mode!r}: radiant's rasterization returns RGB only")
    if covars is not None or camera_model != "pinhole" or distributed or absgrad or sparse_grad:
        raise InvalidArgument("radiant.torch.rasterization: covars, non-pinhole camera_model, distributed, "
                              "absgrad and sparse_grad are not supported")
    if radius_clip != 0.0:
        raise InvalidArgument("radiant.torch.rasterization: radius_clip is not supported")
    if rasterize_mode not in ("classic", "antialiased"):
        raise InvalidArgument(f"rasterize_mode {rasterize_mode!r} is not 'classic' or 'antialiased'")
    device, dtype = means.device, means.dtype
    if device.type == "cuda" and dtype != torch.float32:
        raise InvalidArgument("radiant.torch.rasterization: CUDA tensors must be float32")
    if dtype not in (torch.float32, torch.float64):
        raise InvalidArgument(f"radiant.torch.rasterization: dtype {dtype} (float32, or float64 on the CPU)")
    N = means.shape[0]
    for name, t, shape in (("means", means, (N, 3)), ("quats", quats, (N, 4)), ("scales", scales, (N, 3)),
                           ("opacities", opacities, (N,))):
        if tuple(t.shape) != shape:
            raise InvalidArgument(f"{name} must be {list(shape)} (got {list(t.shape)})")
        if t.device != device or t.dtype != dtype:
            raise InvalidArgument(f"{name} is {t.dtype} on {t.device}; means are {dtype} on {device}")
    if sh_degree is None:
        if tuple(colors.shape) != (N, 3):
            raise InvalidArgument(f"colors must be [N, 3] RGB without sh_degree (got {list(colors.shape)}); "
                                  "per-camera colours are not supported")
        sh = ((colors - 0.5) / C0).unsqueeze(1)
        degree = 0
    else:
        if not 0 <= sh_degree <= 3:
            raise InvalidArgument(f"sh_degree {sh_degree} is outside 0–3")
        k = (sh_degree + 1) ** 2
        if colors.dim() != 3 or colors.shape[0] != N or colors.shape[2] != 3 or colors.shape[1] < k:
            raise InvalidArgument(f"colors must be [N, K ≥ {k}, 3] for sh_degree {sh_degree} "
                                  f"(got {list(colors.shape)})")
        sh = colors[:, :k]
        degree = sh_degree
    C = viewmats.shape[0]
    if tuple(viewmats.shape) != (C, 4, 4) or tuple(Ks.shape) != (C, 3, 3):
        raise InvalidArgument(f"viewmats must be [C,4,4] and Ks [C,3,3] (got {list(viewmats.shape)}, "
                              f"{list(Ks.shape)})")
    if backgrounds is not None and tuple(backgrounds.shape) != (C, 3):
        raise InvalidArgument(f"backgrounds must be [C, 3] (got {list(backgrounds.shape)})")
    views = _Views(viewmats, Ks, int(width), int(height),
                   render_options(sh_degree=degree, antialiased=rasterize_mode == "antialiased", eps2d=eps2d,
                                  near_plane=near_plane, far_plane=far_plane, tile_size=tile_size))
    # radiant's parameters: log-scales and opacity logits (clamped off 0 and 1, whose logits are infinite).
    eps = 1e-7 if dtype == torch.float32 else 1e-12
    log_scales = torch.log(scales)
    opacity_logits = torch.logit(opacities.clamp(eps, 1 - eps))
    tensors = [t.contiguous() for t in (means, log_scales, quats, opacity_logits, sh)]
    rast = rasterizer or _rasterizer_for(device)
    rgb, alpha, radii = _Rasterize.apply(*tensors, backgrounds, views, degree, rast)
    meta = {"radii": radii, "width": int(width), "height": int(height), "n_cameras": C,
            "tile_size": tile_size}
    return rgb, alpha.unsqueeze(-1), meta
