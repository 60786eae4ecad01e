#pragma once
// The viewer page's JavaScript modules (three.js, its OrbitControls, Spark), built into radiant when the
// build found them (viewer/node_modules, from scripts/install-deps.sh --viewer), so that `radiant view`
// works from any copy of the binary, wherever it runs.
#include <span>
#include <string_view>

namespace radiant::app {

struct ViewerAsset {
    std::string_view module;  // path inside node_modules, e.g. "three/build/three.module.js"
    std::string_view page;    // path under the page's lib/ folder, e.g. "three.module.js"
    std::string_view bytes;   // empty when the build did not embed it
};

// Every module the page imports, in one fixed list; `bytes` filled when they were built in.
std::span<const ViewerAsset> viewer_assets();
bool viewer_assets_embedded();

}  // namespace radiant::app
