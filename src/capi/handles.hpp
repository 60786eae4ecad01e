#pragma once
// What the C API's opaque handles hold.
#include <memory>
#include <string>

#include "radiant/c/radiant.h"
#include "radiant/core/scene.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/config.hpp"

struct rd_scene {
    radiant::Scene scene;
};

struct rd_renderer {
    std::unique_ptr<radiant::Backend> backend;
    std::string device;
    bool has_scene = false;
    int sh_degree = 0;
};

struct rd_dataset {
    radiant::Dataset dataset;
};

struct rd_trainer {
    radiant::TrainConfig config;
    std::string metrics_json;
    bool finished = false;
};
