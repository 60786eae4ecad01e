/* The C API from C (not C++): the header compiles as C11, and a caller gets codes and messages, never a
 * crash, for the mistakes a C caller makes. */
#include <stdio.h>
#include <string.h>

#include "radiant/c/radiant.h"

static int failures = 0;
#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                        \
        }                                                                      \
    } while (0)

int main(void) {
    EXPECT(rd_api_version() / 1000 == RD_API_VERSION / 1000);
    EXPECT(strstr(rd_version_string(), "radiant") != NULL);

    rd_scene* scene = NULL;
    EXPECT(rd_scene_create(3, 5, &scene) == RD_ERROR_INVALID_ARGUMENT && scene == NULL);
    EXPECT(strstr(rd_last_error(), "SH degree 5") != NULL);
    EXPECT(rd_scene_load("/nonexistent/scene.ply", &scene) == RD_ERROR_IO);
    EXPECT(strstr(rd_last_error(), "/nonexistent/scene.ply") != NULL);
    EXPECT(rd_scene_save(NULL, "x.ply") == RD_ERROR_INVALID_ARGUMENT);

    rd_camera camera;
    EXPECT(rd_bench_scene(20000, 0, 64, 48, &scene, &camera) == RD_OK && strcmp(rd_last_error(), "") == 0);
    rd_scene_arrays arrays;
    EXPECT(rd_scene_arrays_of(scene, &arrays) == RD_OK && arrays.n == 20000 && arrays.sh_degree == 3);

    rd_renderer* renderer = NULL;
    EXPECT(rd_renderer_create(RD_DEVICE_CPU, &renderer) == RD_OK);
    static float rgb[48 * 64 * 3], alpha[48 * 64];
    EXPECT(rd_render(renderer, &camera, NULL, rgb, alpha, NULL) ==
           RD_ERROR_INVALID_ARGUMENT); /* no scene yet */
    EXPECT(rd_renderer_set_scene(renderer, scene) == RD_OK);
    rd_render_options options;
    rd_render_options_default(&options);
    options.background[2] = 1.0;
    EXPECT(rd_render(renderer, &camera, &options, rgb, alpha, NULL) == RD_OK);
    double covered = 0;
    for (int i = 0; i < 48 * 64; ++i) covered += alpha[i];
    EXPECT(covered > 0.5 * 48 * 64);
    options.tile_size = 0;
    EXPECT(rd_render(renderer, &camera, &options, rgb, alpha, NULL) == RD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(rd_last_error(), "tile") != NULL);
    camera.fx = -1;
    EXPECT(rd_render(renderer, &camera, NULL, rgb, NULL, NULL) == RD_ERROR_INVALID_ARGUMENT);

    rd_trainer* trainer = NULL;
    EXPECT(rd_trainer_create("{\"data\": \"d\", \"output\": \"o\", \"stepz\": 3}", &trainer) ==
           RD_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(rd_last_error(), "stepz") != NULL);
    EXPECT(rd_trainer_create("not json", &trainer) == RD_ERROR_INVALID_ARGUMENT);

    rd_renderer_free(renderer);
    rd_scene_free(scene);
    rd_scene_free(NULL);
    if (failures) fprintf(stderr, "%d failed\n", failures);
    return failures ? 1 : 0;
}
