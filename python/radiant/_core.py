"""Scenes, cameras, datasets and training over the C API, with NumPy arrays that share radiant's memory."""
import ctypes
import json
import os
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from . import _lib
from ._lib import lib


class Error(Exception):
    """Anything radiant refused or failed at; the message is radiant's own."""


class InvalidArgument(Error, ValueError):
    pass


class IoError(Error, OSError):
    pass


class OutOfMemory(Error, MemoryError):
    pass


class NoCuda(Error, RuntimeError):
    pass


_ERRORS = {_lib.RD_INVALID_ARGUMENT: InvalidArgument, _lib.RD_IO: IoError, _lib.RD_OUT_OF_MEMORY: OutOfMemory,
           _lib.RD_NO_CUDA: NoCuda}


def check(status):
    if status != _lib.RD_OK:
        message = lib.rd_last_error().decode("utf-8", "replace")
        raise _ERRORS.get(status, Error)(message)


def _bytes(path) -> bytes:
    return os.fsencode(os.fspath(path))


def version() -> str:
    return lib.rd_version_string().decode()


def cuda_available() -> bool:
    return bool(lib.rd_cuda_available())


def set_log_level(level: str) -> None:
    """What radiant prints to stderr: "error", "warn", "info" (default) or "debug"."""
    check(lib.rd_set_log_level(level.encode()))


@dataclass
class Camera:
    """A pinhole (or distorted) camera: world→camera R, t (x_cam = R·x + t), OpenCV axes (x right, y down,
    z forward), intrinsics in pixels with pixel centres at (x + 0.5, y + 0.5)."""
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    t: np.ndarray = field(default_factory=lambda: np.zeros(3))
    model: str = "pinhole"
    distortion: Sequence[float] = ()
    name: str = ""

    @staticmethod
    def look_at(eye, target, up=(0, -1, 0), fov_y_deg=50.0, width=640, height=480) -> "Camera":
        """A camera at `eye` looking at `target`; `up` is the world direction shown up in the image."""
        eye, target, up = (np.asarray(v, dtype=np.float64) for v in (eye, target, up))
        z = target - eye
        z /= np.linalg.norm(z)
        x = np.cross(-up, z)  # image y is down (−up), x = y × z
        if np.linalg.norm(x) < 1e-12:
            raise InvalidArgument("Camera.look_at: up is parallel to the viewing direction")
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        R = np.stack([x, y, z])
        f = 0.5 * height / np.tan(np.radians(fov_y_deg) / 2)
        return Camera(width, height, f, f, width / 2, height / 2, R, -R @ eye)

    @staticmethod
    def from_json(obj: dict) -> "Camera":
        """One camera of radiant's cameras.json (or `radiant render --camera`'s file)."""
        return Camera(int(obj["width"]), int(obj["height"]), obj["fx"], obj["fy"], obj["cx"], obj["cy"],
                      np.asarray(obj["R"], dtype=np.float64), np.asarray(obj["t"], dtype=np.float64),
                      obj.get("model", "pinhole"), tuple(obj.get("distortion", ())), obj.get("name", ""))

    def to_json(self) -> dict:
        d = {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy, "cx": self.cx,
             "cy": self.cy, "R": np.asarray(self.R, dtype=np.float64).tolist(),
             "t": np.asarray(self.t, dtype=np.float64).tolist(), "model": self.model}
        if self.distortion:
            d["distortion"] = list(self.distortion)
        if self.name:
            d["name"] = self.name
        return d

    def _c(self) -> _lib.Camera_t:
        c = _lib.Camera_t()
        c.width, c.height = int(self.width), int(self.height)
        c.fx, c.fy, c.cx, c.cy = float(self.fx), float(self.fy), float(self.cx), float(self.cy)
        R = np.asarray(self.R, dtype=np.float64)
        t = np.asarray(self.t, dtype=np.float64)
        if R.shape != (3, 3) or t.shape != (3,):
            raise InvalidArgument(f"camera: R must be 3×3 and t 3 values (got {R.shape} and {t.shape})")
        c.R[:] = R.reshape(-1).tolist()
        c.t[:] = t.tolist()
        if self.model not in _lib.MODELS:
            raise InvalidArgument(f"camera: model {self.model!r} is not pinhole, opencv or fisheye")
        c.model = _lib.MODELS[self.model]
        if len(self.distortion) > 8:
            raise InvalidArgument("camera: at most 8 distortion coefficients")
        c.n_distortion = len(self.distortion)
        for i, k in enumerate(self.distortion):
            c.distortion[i] = float(k)
        return c

    @staticmethod
    def _from_c(c: _lib.Camera_t, name: str = "") -> "Camera":
        model = {v: k for k, v in _lib.MODELS.items()}[c.model]
        return Camera(c.width, c.height, c.fx, c.fy, c.cx, c.cy, np.array(c.R[:]).reshape(3, 3),
                      np.array(c.t[:]), model, tuple(c.distortion[:c.n_distortion]), name)


def render_options(sh_degree=None, background=(0.0, 0.0, 0.0), shading="ewa", antialiased=False, eps2d=None,
                   near_plane=None, far_plane=None, tile_size=None) -> _lib.RenderOptions_t:
    o = _lib.RenderOptions_t()
    lib.rd_render_options_default(ctypes.byref(o))
    o.sh_degree = -1 if sh_degree is None else int(sh_degree)
    bg = [float(v) for v in background]
    if len(bg) != 3:
        raise InvalidArgument(f"background takes three values r, g, b (got {len(bg)})")
    o.background[:] = bg
    if shading not in _lib.SHADING:
        raise InvalidArgument(f"shading {shading!r} is not 'ewa' or 'ray'")
    o.shading = _lib.SHADING[shading]
    o.antialiased = int(bool(antialiased))
    if eps2d is not None:
        o.eps2d = float(eps2d)
    if near_plane is not None:
        o.near_plane = float(near_plane)
    if far_plane is not None:
        o.far_plane = float(far_plane)
    if tile_size is not None:
        o.tile_size = int(tile_size)
    return o


class _Handle:
    _free = None

    def __init__(self, ptr):
        self._ptr = ptr

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr and self._free is not None:
            self._free(ptr)


class Scene(_Handle):
    """A Gaussian scene in radiant's layout. Its arrays are NumPy views of radiant's memory (no copies):
    means [N,3], log_scales [N,3], quats [N,4] (w,x,y,z), opacity_logits [N], sh [N,K,3]."""
    _free = staticmethod(lib.rd_scene_free)

    def __init__(self, ptr):
        super().__init__(ptr)
        a = _lib.SceneArrays_t()
        check(lib.rd_scene_arrays_of(ptr, ctypes.byref(a)))
        n, k = int(a.n), (int(a.sh_degree) + 1) ** 2
        self.sh_degree = int(a.sh_degree)

        def view(p, shape):
            if n == 0:
                return np.zeros(shape, dtype=np.float32)
            arr = np.ctypeslib.as_array(p, shape=shape)
            arr.flags.writeable = True
            return arr

        self.means = view(a.means, (n, 3))
        self.log_scales = view(a.log_scales, (n, 3))
        self.quats = view(a.quats, (n, 4))
        self.opacity_logits = view(a.opacity_logits, (n,))
        self.sh = view(a.sh, (n, k, 3))
        self._renderers = {}

    @staticmethod
    def load(path) -> "Scene":
        """.ply (3DGS), .compressed.ply, .splat or .spz."""
        ptr = ctypes.c_void_p()
        check(lib.rd_scene_load(_bytes(path), ctypes.byref(ptr)))
        return Scene(ptr)

    @staticmethod
    def create(n: int, sh_degree: int = 3) -> "Scene":
        """n Gaussians, every value zero (quaternions identity): fill the arrays."""
        ptr = ctypes.c_void_p()
        check(lib.rd_scene_create(int(n), int(sh_degree), ctypes.byref(ptr)))
        return Scene(ptr)

    @staticmethod
    def from_arrays(means, log_scales, quats, opacity_logits, sh) -> "Scene":
        sh = np.asarray(sh, dtype=np.float32)
        k = sh.shape[1] if sh.ndim == 3 else 0
        degrees = {1: 0, 4: 1, 9: 2, 16: 3}
        if sh.ndim != 3 or sh.shape[2] != 3 or k not in degrees:
            raise InvalidArgument(f"sh must be [N, K, 3] with K = 1, 4, 9 or 16 (got {list(sh.shape)})")
        s = Scene.create(sh.shape[0], degrees[k])
        for name, value in (("means", means), ("log_scales", log_scales), ("quats", quats),
                            ("opacity_logits", opacity_logits), ("sh", sh)):
            dst = getattr(s, name)
            value = np.asarray(value, dtype=np.float32)
            if value.shape != dst.shape:
                raise InvalidArgument(f"{name} must be {list(dst.shape)} (got {list(value.shape)})")
            dst[...] = value
        check(lib.rd_scene_validate(s._ptr))
        return s

    @staticmethod
    def bench(n: int = 1_000_000, width: int = 1920, height: int = 1080, heavier: bool = False):
        """The synthetic scene `radiant bench` times, and its camera."""
        ptr, cam = ctypes.c_void_p(), _lib.Camera_t()
        check(lib.rd_bench_scene(int(n), int(heavier), int(width), int(height), ctypes.byref(ptr),
                                 ctypes.byref(cam)))
        return Scene(ptr), Camera._from_c(cam)

    def save(self, path) -> None:
        """Atomic; the format from the extension (.ply, .compressed.ply, .splat, .spz)."""
        check(lib.rd_scene_save(self._ptr, _bytes(path)))

    def __len__(self) -> int:
        return self.means.shape[0]

    def __repr__(self) -> str:
        return f"radiant.Scene({len(self)} Gaussians, SH degree {self.sh_degree})"

    def render(self, camera: Camera, device: str = "auto", *, alpha: bool = False, depth: bool = False,
               **options):
        """The camera's view as float32 [H, W, 3] in [0, 1] (what `radiant render` writes before rounding to
        8 bits). With alpha/depth: a tuple (rgb, alpha [H, W], depth [H, W]) of what was asked for. Options:
        sh_degree, background, shading ("ewa" | "ray"), antialiased, eps2d, near_plane, far_plane."""
        if device not in _lib.DEVICE:
            raise InvalidArgument(f"device {device!r} is not 'auto', 'cpu' or 'cuda'")
        r = self._renderers.get(device)
        if r is None:
            ptr = ctypes.c_void_p()
            check(lib.rd_renderer_create(_lib.DEVICE[device], ctypes.byref(ptr)))
            r = self._renderers[device] = _Renderer(ptr)
        check(lib.rd_renderer_set_scene(r._ptr, self._ptr))  # the arrays may have changed since
        cam = camera._c()
        h, w = cam.height, cam.width
        if h <= 0 or w <= 0:
            raise InvalidArgument(f"camera: size {w}x{h} is not positive")
        rgb = np.empty((h, w, 3), dtype=np.float32)
        a = np.empty((h, w), dtype=np.float32) if alpha else None
        d = np.empty((h, w), dtype=np.float32) if depth else None
        ptr = lambda x: None if x is None else x.ctypes.data_as(ctypes.c_void_p)
        check(lib.rd_render(r._ptr, ctypes.byref(cam), ctypes.byref(render_options(**options)), ptr(rgb), ptr(a),
                            ptr(d)))
        if not alpha and not depth:
            return rgb
        return tuple(x for x in (rgb, a, d) if x is not None)


class _Renderer(_Handle):
    _free = staticmethod(lib.rd_renderer_free)


@dataclass
class View:
    name: str
    camera: Camera
    test: bool


class Dataset(_Handle):
    """A posed-image dataset (COLMAP, transforms.json, NeRF-synthetic) as training sees it."""
    _free = staticmethod(lib.rd_dataset_free)

    def __init__(self, ptr):
        super().__init__(ptr)
        self.views = []
        for i in range(int(lib.rd_dataset_count(ptr))):
            name, cam, test = ctypes.c_char_p(), _lib.Camera_t(), ctypes.c_int32()
            check(lib.rd_dataset_view(ptr, i, ctypes.byref(name), ctypes.byref(cam), ctypes.byref(test)))
            n = name.value.decode("utf-8", "replace")
            self.views.append(View(n, Camera._from_c(cam, n), bool(test.value)))

    def __len__(self) -> int:
        return len(self.views)

    def image(self, i: int, mask: bool = False):
        """View i's photo as uint8 [H, W, 3] (decoded, downscaled, undistorted as training sees it); with
        mask=True also its mask [H, W] (255 where pixels count)."""
        if not 0 <= i < len(self.views):
            raise IndexError(f"view {i} is outside 0–{len(self.views) - 1}")
        c = self.views[i].camera
        rgb = np.empty((c.height, c.width, 3), dtype=np.uint8)
        m = np.empty((c.height, c.width), dtype=np.uint8) if mask else None
        p = ctypes.POINTER(ctypes.c_uint8)
        check(lib.rd_dataset_image(self._ptr, i, rgb.ctypes.data_as(p), None if m is None else m.ctypes.data_as(p)))
        return (rgb, m) if mask else rgb

    def points(self) -> np.ndarray:
        """The initialisation points [P, 3] (a copy; may be empty)."""
        p, n = ctypes.POINTER(ctypes.c_float)(), ctypes.c_int64()
        check(lib.rd_dataset_points(self._ptr, ctypes.byref(p), ctypes.byref(n)))
        return np.ctypeslib.as_array(p, shape=(n.value, 3)).copy() if n.value else np.zeros((0, 3), np.float32)


def open_dataset(path, *, downscale: int = 0, eval: bool = False, test_every: int = 8, undistort: str = "crop",
                 images: str = "", masks: str = "") -> Dataset:
    opts = {"downscale": downscale, "eval": eval, "test_every": test_every, "undistort": undistort}
    if images:
        opts["images"] = images
    if masks:
        opts["masks"] = masks
    ptr = ctypes.c_void_p()
    check(lib.rd_dataset_open(_bytes(path), json.dumps(opts).encode(), ctypes.byref(ptr)))
    return Dataset(ptr)


def write_demo_dataset(path, width: int = 128, height: int = 128, train_views: int = 48,
                       test_views: int = 8) -> None:
    """radiant's built-in demo scene as a dataset in `path` (what `radiant demo` trains on)."""
    check(lib.rd_write_demo_dataset(_bytes(path), int(width), int(height), int(train_views), int(test_views)))


@dataclass
class Progress:
    step: int
    steps: int
    loss: float
    psnr: float
    gaussians: int
    seconds: float


@dataclass
class TrainResult:
    output: str
    stopped: bool
    metrics: dict
    scene: Optional[Scene]


class _Trainer(_Handle):
    _free = staticmethod(lib.rd_trainer_free)


def train(data, out, callback: Optional[Callable[[Progress], Optional[bool]]] = None, **config) -> TrainResult:
    """Trains on the dataset in `data`, writing the run to `out` as `radiant train -d data -o out` does.
    config: the keys of `radiant train --config` (steps=7000, eval=True, backend="cuda", preset="fast",
    overwrite=True, …). callback(progress) runs after every step; returning True stops the run (its checkpoint
    is kept for `radiant train --resume`) and the result says stopped=True."""
    cfg = dict(config)
    cfg["data"] = os.fspath(data)
    cfg["output"] = os.fspath(out)
    ptr = ctypes.c_void_p()
    check(lib.rd_trainer_create(json.dumps(cfg).encode(), ctypes.byref(ptr)))
    trainer = _Trainer(ptr)
    raised = []

    def on_step(p, _user):
        try:
            q = p.contents
            stop = callback(Progress(q.step, q.steps, q.loss, q.psnr, q.gaussians, q.seconds))
            return 1 if stop else 0
        except BaseException as e:  # an exception cannot cross C: stop the run, raise it afterwards
            raised.append(e)
            return 1

    fn = _lib.PROGRESS_FN(on_step) if callback else _lib.PROGRESS_FN()
    status = lib.rd_trainer_run(trainer._ptr, fn, None)
    if raised:
        raise raised[0]
    if status == _lib.RD_STOPPED:
        return TrainResult(cfg["output"], True, {}, None)
    check(status)
    scene = ctypes.c_void_p()
    check(lib.rd_trainer_scene(trainer._ptr, ctypes.byref(scene)))
    metrics = json.loads(lib.rd_trainer_metrics_json(trainer._ptr).decode() or "{}")
    return TrainResult(cfg["output"], False, metrics, Scene(scene))
