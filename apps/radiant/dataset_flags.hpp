#pragma once
// The flags that say how a dataset is read, shared by `radiant train` and `radiant info`.
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "radiant/io/dataset.hpp"

namespace radiant::app {

struct DatasetFlags {
    int* downscale;
    Undistort* undistort;
    Resample* resample;
    std::string* images;
    std::string* masks;
    AlphaUse* alpha;
};

// The names --undistort takes.
const std::map<std::string, Undistort>& undistort_names();

// Adds --downscale, --undistort, --resample, --images, --masks and --alpha, writing into `f`'s targets.
void add_dataset_flags(CLI::App* cmd, const DatasetFlags& f);

}  // namespace radiant::app
