/* radiant's C API (issue 23): scenes, datasets, rendering, the rasterizer's forward and backward for autograd
 * frameworks, and training — from any language that can call C (the Python package in python/ loads it with
 * ctypes). Shared library: libradiant.so.
 *
 * Conventions
 * - Every function that can fail returns rd_status; RD_OK is 0. The message of the last failure on the
 * calling thread is rd_last_error() (valid until that thread's next call into radiant). No C++ exception ever
 *   crosses this boundary.
 * - Handles (rd_scene, rd_dataset, rd_renderer, rd_rasterizer, rd_trainer) are opaque; each has a _free
 *   function that accepts NULL. A handle may be used by one thread at a time.
 * - Arrays are row-major, C-contiguous, float32 unless said otherwise, in radiant's scene layout
 *   (docs: DESIGN.md §3): means [N,3], log_scales [N,3], quats [N,4] (w,x,y,z; need not be unit),
 *   opacity_logits [N], sh [N,K,3] with K = (sh_degree+1)^2 and sh[:,0] the DC term.
 * - Cameras: world→camera R (row-major 3×3) and t, x_cam = R·x_world + t; OpenCV axes (x right, y down,
 *   z forward); intrinsics in pixels, pixel centres at (x + 0.5, y + 0.5).
 * - Versioning: RD_API_VERSION grows when functions are added; a change that breaks a caller changes the
 *   major number (RD_API_VERSION / 1000). rd_api_version() is the library's, to compare with the header's.
 */
#ifndef RADIANT_C_RADIANT_H
#define RADIANT_C_RADIANT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RD_API_VERSION 1000 /* 1.0 */

#if defined(__GNUC__)
#define RD_EXPORT __attribute__((visibility("default")))
#else
#define RD_EXPORT
#endif

typedef enum rd_status {
    RD_OK = 0,
    RD_ERROR_INVALID_ARGUMENT = 1, /* a NULL handle, a bad size, a value out of range */
    RD_ERROR_IO = 2,               /* a file that cannot be read or written, or is malformed */
    RD_ERROR_OUT_OF_MEMORY = 3,    /* host or device memory, or the run's memory budget */
    RD_ERROR_NO_CUDA = 4,          /* CUDA asked for, but not built in or no GPU present */
    RD_ERROR_STOPPED = 5,          /* a run stopped by its callback or by Ctrl-C */
    RD_ERROR_INTERNAL = 6          /* anything else: the message says what */
} rd_status;

typedef enum rd_device { RD_DEVICE_AUTO = 0, RD_DEVICE_CPU = 1, RD_DEVICE_CUDA = 2 } rd_device;
typedef enum rd_dtype { RD_FLOAT32 = 0, RD_FLOAT64 = 1 } rd_dtype;
typedef enum rd_camera_model { RD_PINHOLE = 0, RD_OPENCV = 1, RD_FISHEYE = 2 } rd_camera_model;
typedef enum rd_shading { RD_SHADING_EWA = 0, RD_SHADING_RAY = 1 } rd_shading;

RD_EXPORT int rd_api_version(void);
RD_EXPORT const char* rd_version_string(void); /* "radiant 0.1.0 (C API 1000, CUDA: yes)" */
RD_EXPORT const char* rd_last_error(void);     /* "" when the last call succeeded */
RD_EXPORT int rd_cuda_available(void);         /* 1 when built with CUDA and a GPU is present */
/* What radiant logs to stderr: "error", "warn", "info" (the default) or "debug". Process-wide. */
RD_EXPORT rd_status rd_set_log_level(const char* level);

/* ---- cameras and render options (plain structs, filled by the caller) ---- */

typedef struct rd_camera {
    int32_t width, height;
    double fx, fy, cx, cy;
    double R[9]; /* world→camera rotation, row-major */
    double t[3];
    int32_t model;        /* rd_camera_model */
    int32_t n_distortion; /* opencv: 4, 5 or 8 (k1 k2 p1 p2 [k3 [k4 k5 k6]]); fisheye: 4; pinhole: 0 */
    double distortion[8];
} rd_camera;

typedef struct rd_render_options {
    int32_t sh_degree;   /* active SH degree, at most the scene's; -1: the scene's */
    int32_t shading;     /* rd_shading */
    int32_t antialiased; /* Mip-Splatting's 2D filter with opacity compensation (ewa) */
    int32_t tile_size;
    double background[3];
    double eps2d; /* low-pass added to the 2D covariance, px² */
    double near_plane, far_plane;
} rd_render_options;

/* radiant's defaults: the scene's SH degree, black, ewa, classic, eps2d 0.3, near 0.01, far 1e10, tile 16. */
RD_EXPORT void rd_render_options_default(rd_render_options* options);

/* ---- scenes ---- */

typedef struct rd_scene rd_scene;

/* Pointers to a scene's arrays (host memory), valid until the scene is freed. Writes through them change the
 * scene. */
typedef struct rd_scene_arrays {
    int64_t n;
    int32_t sh_degree;
    float *means, *log_scales, *quats, *opacity_logits, *sh;
} rd_scene_arrays;

/* n Gaussians at degree 0..3, every value zero (quats (1,0,0,0)). */
RD_EXPORT rd_status rd_scene_create(int64_t n, int32_t sh_degree, rd_scene** out);
/* Any format radiant reads: .ply (3DGS), .compressed.ply, .splat, .spz — by extension and content. */
RD_EXPORT rd_status rd_scene_load(const char* path, rd_scene** out);
/* Atomic; the format from the extension. A value the format cannot hold is an error and writes nothing. */
RD_EXPORT rd_status rd_scene_save(const rd_scene* scene, const char* path);
RD_EXPORT void rd_scene_free(rd_scene* scene);
RD_EXPORT rd_status rd_scene_arrays_of(rd_scene* scene, rd_scene_arrays* out);
/* Every value finite, quaternions non-zero, degree 0..3; the message names the first bad Gaussian. */
RD_EXPORT rd_status rd_scene_validate(const rd_scene* scene);
/* The synthetic scene `radiant bench` times (DESIGN.md §7: n Gaussians at degree 3, `heavier`: larger ones)
 * and its camera at width × height: the same arrays bit for bit, so a step timed elsewhere compares with it.
 */
RD_EXPORT rd_status rd_bench_scene(int64_t n, int32_t heavier, int32_t width, int32_t height, rd_scene** out,
                                   rd_camera* camera);

/* ---- rendering a scene ---- */

typedef struct rd_renderer rd_renderer;

/* A renderer on a device; it holds a copy of the scene given to rd_renderer_set_scene. */
RD_EXPORT rd_status rd_renderer_create(rd_device device, rd_renderer** out);
RD_EXPORT void rd_renderer_free(rd_renderer* renderer);
/* "cpu" or "cuda". */
RD_EXPORT const char* rd_renderer_device(const rd_renderer* renderer);
RD_EXPORT rd_status rd_renderer_set_scene(rd_renderer* renderer, const rd_scene* scene);
/* Renders into host memory: rgb [H,W,3] (required), alpha [H,W], depth [H,W] (expected camera z, 0 where
 * nothing was hit) — the last two may be NULL. What `radiant render` writes, before 8-bit rounding. */
RD_EXPORT rd_status rd_render(rd_renderer* renderer, const rd_camera* camera,
                              const rd_render_options* options, float* rgb, float* alpha, float* depth);

/* ---- the rasterizer: forward and backward on caller memory (for autograd frameworks) ---- */

typedef struct rd_rasterizer rd_rasterizer;

/* Gaussians as caller-owned arrays (layout as rd_scene_arrays). On a CUDA rasterizer every pointer is device
 * memory and dtype is RD_FLOAT32; on a CPU rasterizer host memory, float32 or float64 (the double path is for
 * finite-difference checks). For gradients the same struct names the outputs. */
typedef struct rd_gaussians {
    int64_t n;
    int32_t sh_degree;
    int32_t dtype; /* rd_dtype */
    void *means, *log_scales, *quats, *opacity_logits, *sh;
} rd_gaussians;

RD_EXPORT rd_status rd_rasterizer_create(rd_device device, rd_rasterizer** out);
RD_EXPORT void rd_rasterizer_free(rd_rasterizer* rasterizer);
RD_EXPORT const char* rd_rasterizer_device(const rd_rasterizer* rasterizer);
/* Forward of one camera. rgb [H,W,3] and alpha [H,W] (NULL: not wanted) are written in the rasterizer's
 * memory space and dtype. `stream` is a cudaStream_t (NULL: the default stream) — CUDA only; the call returns
 * once the outputs are enqueued on it. radii [N] int32 (NULL: not wanted): each Gaussian's footprint radius
 * in pixels, 0 when culled. Returns the tile-pair count in *pairs when not NULL. The rasterizer keeps what
 * the backward needs until its next forward. */
RD_EXPORT rd_status rd_rasterizer_forward(rd_rasterizer* rasterizer, const rd_gaussians* gaussians,
                                          const rd_camera* camera, const rd_render_options* options,
                                          void* rgb, void* alpha, int32_t* radii, int64_t* pairs,
                                          void* stream);
/* Backward of the last forward (same Gaussians, unchanged) from ∂L/∂rgb [H,W,3]; writes ∂L/∂ of every array
 * into `grads` (same shapes; overwritten, not accumulated). mean2d_grad_norms [N] (NULL: not wanted): the
 * norm of ∂L/∂(projected mean) in normalised device units, the statistic 3DGS densifies on. */
RD_EXPORT rd_status rd_rasterizer_backward(rd_rasterizer* rasterizer, const rd_gaussians* gaussians,
                                           const void* v_rgb, const rd_gaussians* grads,
                                           void* mean2d_grad_norms, void* stream);

/* ---- datasets ---- */

typedef struct rd_dataset rd_dataset;

/* A posed-image dataset (COLMAP, transforms.json, NeRF-synthetic). options_json: NULL or a JSON object with
 * any of "downscale", "eval", "test_every", "undistort" ("crop", "mask", "none"), "images", "masks". */
RD_EXPORT rd_status rd_dataset_open(const char* path, const char* options_json, rd_dataset** out);
RD_EXPORT void rd_dataset_free(rd_dataset* dataset);
RD_EXPORT int64_t rd_dataset_count(const rd_dataset* dataset);
/* View i: its image name (valid while the dataset lives), the camera training renders (loaded size, pinhole
 * when undistorted) and whether it is in the test split. */
RD_EXPORT rd_status rd_dataset_view(const rd_dataset* dataset, int64_t i, const char** name,
                                    rd_camera* camera, int32_t* is_test);
/* The image of view i as training sees it (decoded, downscaled, undistorted): rgb [H,W,3] uint8 with the
 * camera's size; mask [H,W] uint8 (255: counts) when not NULL — all 255 when the view has none. */
RD_EXPORT rd_status rd_dataset_image(const rd_dataset* dataset, int64_t i, uint8_t* rgb, uint8_t* mask);
/* Writes radiant's built-in demo scene as a dataset (transforms_train/test.json, images, points3D.ply) into
 * `dir`: train_views and test_views photos of width × height, as `radiant demo` trains on. */
RD_EXPORT rd_status rd_write_demo_dataset(const char* dir, int32_t width, int32_t height, int32_t train_views,
                                          int32_t test_views);
/* The dataset's initialisation points [P,3] (may be 0). *points is valid while the dataset lives. */
RD_EXPORT rd_status rd_dataset_points(const rd_dataset* dataset, const float** points, int64_t* count);

/* ---- training ---- */

typedef struct rd_trainer rd_trainer;

typedef struct rd_progress {
    int64_t step, steps;
    double loss, psnr; /* this step's */
    int64_t gaussians;
    double seconds; /* training time so far */
} rd_progress;

/* Called after every step; return non-zero to stop the run (a checkpoint is written, as on Ctrl-C). */
typedef int (*rd_progress_fn)(const rd_progress* progress, void* user_data);

/* A run from a JSON config with the keys of `radiant train --config` (data and output required; every other
 * key optional, radiant's defaults otherwise; "overwrite": true replaces a run already in output). Checked
 * here: an unknown key or a bad value is an error before anything runs. */
RD_EXPORT rd_status rd_trainer_create(const char* config_json, rd_trainer** out);
RD_EXPORT void rd_trainer_free(rd_trainer* trainer);
/* Trains (blocking), writing the run's folder as `radiant train` does. RD_ERROR_STOPPED when the callback
 * stopped it (the run's checkpoint can be resumed with `radiant train --resume`). */
RD_EXPORT rd_status rd_trainer_run(rd_trainer* trainer, rd_progress_fn callback, void* user_data);
/* After a run: the trained scene (a new handle), and metrics.json's text (valid while the trainer lives). */
RD_EXPORT rd_status rd_trainer_scene(const rd_trainer* trainer, rd_scene** out);
RD_EXPORT const char* rd_trainer_metrics_json(const rd_trainer* trainer);

#ifdef __cplusplus
}
#endif

#endif /* RADIANT_C_RADIANT_H */
