"""ctypes declarations of radiant's C API (include/radiant/c/radiant.h) and the library's loading.

ctypes rather than a compiled extension: one libradiant.so serves every Python version (Debian's 3.11 here,
the GPU machine's 3.12) with nothing to compile per interpreter.
"""
import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_float, c_int, c_int32, c_int64,
                    c_uint8, c_void_p)

API_VERSION = 1000

RD_OK, RD_INVALID_ARGUMENT, RD_IO, RD_OUT_OF_MEMORY, RD_NO_CUDA, RD_STOPPED, RD_INTERNAL = range(7)
DEVICE = {"auto": 0, "cpu": 1, "cuda": 2}
FLOAT32, FLOAT64 = 0, 1
MODELS = {"pinhole": 0, "opencv": 1, "fisheye": 2}
SHADING = {"ewa": 0, "ray": 1}


class Camera_t(Structure):
    _fields_ = [("width", c_int32), ("height", c_int32), ("fx", c_double), ("fy", c_double), ("cx", c_double),
                ("cy", c_double), ("R", c_double * 9), ("t", c_double * 3), ("model", c_int32),
                ("n_distortion", c_int32), ("distortion", c_double * 8)]


class RenderOptions_t(Structure):
    _fields_ = [("sh_degree", c_int32), ("shading", c_int32), ("antialiased", c_int32), ("tile_size", c_int32),
                ("background", c_double * 3), ("eps2d", c_double), ("near_plane", c_double),
                ("far_plane", c_double)]


class SceneArrays_t(Structure):
    _fields_ = [("n", c_int64), ("sh_degree", c_int32), ("means", POINTER(c_float)),
                ("log_scales", POINTER(c_float)), ("quats", POINTER(c_float)),
                ("opacity_logits", POINTER(c_float)), ("sh", POINTER(c_float))]


class Gaussians_t(Structure):
    _fields_ = [("n", c_int64), ("sh_degree", c_int32), ("dtype", c_int32), ("means", c_void_p),
                ("log_scales", c_void_p), ("quats", c_void_p), ("opacity_logits", c_void_p), ("sh", c_void_p)]


class Progress_t(Structure):
    _fields_ = [("step", c_int64), ("steps", c_int64), ("loss", c_double), ("psnr", c_double),
                ("gaussians", c_int64), ("seconds", c_double)]


PROGRESS_FN = CFUNCTYPE(c_int, POINTER(Progress_t), c_void_p)


def _candidates():
    env = os.environ.get("RADIANT_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libradiant.so")
    # A checkout's build, for running from python/ without installing.
    yield os.path.join(here, "..", "..", "build", "src", "capi", "libradiant.so")


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            lib = ctypes.CDLL(os.path.abspath(path))
            break
        tried.append(path)
    else:
        raise ImportError("radiant: libradiant.so not found (looked at " + ", ".join(tried) +
                          "); build it with `make python` or point RADIANT_LIBRARY at it")
    _declare(lib)
    if lib.rd_api_version() // 1000 != API_VERSION // 1000:
        raise ImportError(f"radiant: libradiant.so has C API {lib.rd_api_version()}, this package wants "
                          f"{API_VERSION}; rebuild with `make python`")
    return lib


def _declare(lib):
    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    P = POINTER
    fn("rd_api_version", c_int)
    fn("rd_version_string", c_char_p)
    fn("rd_last_error", c_char_p)
    fn("rd_cuda_available", c_int)
    fn("rd_set_log_level", c_int, c_char_p)
    fn("rd_render_options_default", None, P(RenderOptions_t))
    fn("rd_scene_create", c_int, c_int64, c_int32, P(c_void_p))
    fn("rd_scene_load", c_int, c_char_p, P(c_void_p))
    fn("rd_scene_save", c_int, c_void_p, c_char_p)
    fn("rd_scene_free", None, c_void_p)
    fn("rd_scene_arrays_of", c_int, c_void_p, P(SceneArrays_t))
    fn("rd_scene_validate", c_int, c_void_p)
    fn("rd_bench_scene", c_int, c_int64, c_int32, c_int32, c_int32, P(c_void_p), P(Camera_t))
    fn("rd_renderer_create", c_int, c_int, P(c_void_p))
    fn("rd_renderer_free", None, c_void_p)
    fn("rd_renderer_device", c_char_p, c_void_p)
    fn("rd_renderer_set_scene", c_int, c_void_p, c_void_p)
    fn("rd_render", c_int, c_void_p, P(Camera_t), P(RenderOptions_t), c_void_p, c_void_p, c_void_p)
    fn("rd_rasterizer_create", c_int, c_int, P(c_void_p))
    fn("rd_rasterizer_free", None, c_void_p)
    fn("rd_rasterizer_device", c_char_p, c_void_p)
    fn("rd_rasterizer_forward", c_int, c_void_p, P(Gaussians_t), P(Camera_t), P(RenderOptions_t), c_void_p,
       c_void_p, c_void_p, P(c_int64), c_void_p)
    fn("rd_rasterizer_backward", c_int, c_void_p, P(Gaussians_t), c_void_p, P(Gaussians_t), c_void_p, c_void_p)
    fn("rd_dataset_open", c_int, c_char_p, c_char_p, P(c_void_p))
    fn("rd_dataset_free", None, c_void_p)
    fn("rd_dataset_count", c_int64, c_void_p)
    fn("rd_dataset_view", c_int, c_void_p, c_int64, P(c_char_p), P(Camera_t), P(c_int32))
    fn("rd_dataset_image", c_int, c_void_p, c_int64, P(c_uint8), P(c_uint8))
    fn("rd_write_demo_dataset", c_int, c_char_p, c_int32, c_int32, c_int32, c_int32)
    fn("rd_dataset_points", c_int, c_void_p, P(P(c_float)), P(c_int64))
    fn("rd_trainer_create", c_int, c_char_p, P(c_void_p))
    fn("rd_trainer_free", None, c_void_p)
    fn("rd_trainer_run", c_int, c_void_p, PROGRESS_FN, c_void_p)
    fn("rd_trainer_scene", c_int, c_void_p, P(c_void_p))
    fn("rd_trainer_metrics_json", c_char_p, c_void_p)


lib = _load()
