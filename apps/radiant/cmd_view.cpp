// `radiant view SCENE -o DIR`: a viewer page for a scene — index.html, the scene, and the Spark and three.js
// modules next to it (built into radiant: viewer_assets.hpp) — served from 127.0.0.1.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/live/live_session.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/trainer.hpp"
#include "render_views.hpp"
#include "viewer_assets.hpp"

namespace radiant::app {
namespace {

namespace fs = std::filesystem;

// The page: Spark renders the scene with three.js; the camera is the one given (OpenCV: R world→camera, y
// down, z forward; three.js looks down −z with y up, hence the flipped axes) or one framing the scene. With
// ?fixed the canvas is the camera's size and the controls stay off, so a screenshot is that camera's image;
// window.radiantFrame holds the PNG once the splats are sorted and drawn.
constexpr const char* kPage = R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>radiant — @TITLE@</title>
<style>html,body{margin:0;height:100%;background:#000;overflow:hidden}canvas{display:block}
#info{position:fixed;left:8px;bottom:8px;color:#bbb;font:12px sans-serif;pointer-events:none}</style>
<script type="importmap">{"imports":{"three":"./lib/three.module.js","three/addons/":"./lib/addons/",
"@sparkjsdev/spark":"./lib/spark.module.js"}}</script></head>
<body><div id="info">@TITLE@ · @COUNT@ Gaussians · drag to orbit, right-drag to pan, wheel to zoom</div>
<script type="module">
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { SparkRenderer, SplatMesh } from "@sparkjsdev/spark";
const view = @VIEW@;
const fixed = new URLSearchParams(location.search).has("fixed") && view.camera !== null;
const cam = view.camera;
const width = fixed ? cam.width : innerWidth, height = fixed ? cam.height : innerHeight;
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(width, height);
renderer.setClearColor(new THREE.Color(...view.background), 1);
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.add(new SparkRenderer({ renderer }));
const fy = cam ? cam.fy * height / cam.height : height / (2 * Math.tan(25 * Math.PI / 180));
const camera = new THREE.PerspectiveCamera(2 * Math.atan(height / (2 * fy)) * 180 / Math.PI, width / height, 0.01, 1e5);
const R = cam ? cam.R : [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const right = new THREE.Vector3(...R[0]), down = new THREE.Vector3(...R[1]), forward = new THREE.Vector3(...R[2]);
const centre = cam ? new THREE.Vector3(...cam.t).applyMatrix3(new THREE.Matrix3().set(...R.flat()).transpose()).negate()
                   : new THREE.Vector3(...view.centre).addScaledVector(forward, -2.5 * view.radius);
camera.position.copy(centre);
camera.quaternion.setFromRotationMatrix(new THREE.Matrix4().makeBasis(right, down.clone().negate(), forward.clone().negate()));
camera.up.copy(down).negate();
const mesh = new SplatMesh({ url: view.scene });
scene.add(mesh);
await mesh.initialized;
let controls = null, frames = 0;
if (!fixed) {
  controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(centre).addScaledVector(forward, cam ? view.radius : 2.5 * view.radius);
  controls.update();
  addEventListener("resize", () => {
    camera.aspect = innerWidth / innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(innerWidth, innerHeight);
  });
}
renderer.setAnimationLoop(() => {
  controls?.update();
  renderer.render(scene, camera);
  if (++frames === 40) {
    window.radiantFrame = renderer.domElement.toDataURL("image/png");
    window.radiantReady = true;
  }
});
</script></body></html>
)html";

std::string replace_all(std::string s, const std::string& key, const std::string& value) {
    for (std::size_t p; (p = s.find(key)) != std::string::npos;) s.replace(p, key.size(), value);
    return s;
}

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
}

// The page's modules into DIR/lib: the ones built into radiant, or, in a build without them, from
// RADIANT_VIEWER_MODULES or this source tree's viewer/node_modules.
void write_viewer_modules(const fs::path& lib) {
    if (viewer_assets_embedded()) {
        for (const ViewerAsset& a : viewer_assets()) {
            fs::create_directories((lib / a.page).parent_path());
            write_file_atomic((lib / a.page).string(), a.bytes);
        }
        return;
    }
    const char* env = std::getenv("RADIANT_VIEWER_MODULES");
    const fs::path modules = env ? fs::path(env) : fs::path(RADIANT_SOURCE_DIR) / "viewer" / "node_modules";
    for (const ViewerAsset& a : viewer_assets())
        if (!fs::exists(modules / a.module))
            throw Error(fmt::format(
                "this radiant was built without the viewer's modules and {} is missing: install them with "
                "scripts/install-deps.sh --viewer and build again (make build), which builds them into "
                "radiant, or point RADIANT_VIEWER_MODULES at a node_modules folder that has them",
                (modules / a.module).string()));
    for (const ViewerAsset& a : viewer_assets()) {
        fs::create_directories((lib / a.page).parent_path());
        fs::copy_file(modules / a.module, lib / a.page, fs::copy_options::overwrite_existing);
    }
}

// `view --serve`: the live viewer's page for a saved scene (a run folder: its scene.ply and cameras).
void serve(const std::string& scene_arg, const std::string& camera_json, const std::string& backend_name,
           const std::vector<double>& background, const live::LiveOptions& options) {
    fs::path scene_path = scene_arg;
    std::error_code ec;
    RenderSettings settings;
    if (fs::is_directory(scene_path, ec)) {
        scene_path /= "scene.ply";
        // A run is drawn as it trained: its shading model, anti-aliasing and background.
        if (const std::optional<RenderSettings> trained = run_render_settings(scene_arg)) settings = *trained;
    }
    std::unique_ptr<Backend> backend = make_backend(backend_name);
    TrainState state;
    state.params = read_scene(scene_path.string());
    std::vector<Camera> cameras;
    const fs::path beside = scene_path.parent_path() / "cameras.json";
    if (!camera_json.empty())
        cameras = read_cameras_json(camera_json);
    else if (fs::exists(beside, ec))
        cameras = read_cameras_json(beside.string());
    else
        cameras = framing_orbit(state.params, 1, 20.0, {0, -1, 0}, 50.0, 1280, 720);
    state.adam.reset_like(state.params);
    state.stats.reset(state.params.size());
    backend->load(state);
    if (background.size() == 3) settings.background = {background[0], background[1], background[2]};
    install_interrupt_handler();
    live::serve_scene(*backend, cameras, settings,
                      scene_path.filename().string() == "scene.ply"
                          ? scene_path.parent_path().filename().string()
                          : scene_path.filename().string(),
                      options, [] { return !interrupt_requested(); });
}

}  // namespace

void add_view_command(CLI::App& app) {
    struct Args {
        std::string scene, output = "view", camera, host = "127.0.0.1", backend = "auto";
        std::vector<double> background{0, 0, 0};
        int serve = 0;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "view", "Write a web viewer page (Spark, three.js) for a scene and say how to open it");
    cmd->add_option("scene", a->scene, "scene: .ply, .compressed.ply, .splat or .spz")->required();
    cmd->add_option("-o,--output", a->output, "folder for index.html, the scene and the viewer modules")
        ->capture_default_str();
    cmd->add_option("--camera", a->camera, "camera JSON (its first camera): the initial view");
    cmd->add_option("--background", a->background, "background colour r,g,b in [0, 1]")->expected(3);
    cmd->add_flag("--serve{8080}", a->serve,
                  "instead of writing a page, serve the live viewer's page for the scene on "
                  "http://127.0.0.1:8080/ (--serve=PORT), rendered by radiant on the GPU (CPU without one)")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--viewer-host", a->host, "address --serve listens on")->capture_default_str();
    cmd->add_option("--backend", a->backend, "auto, cpu or cuda (--serve)")->capture_default_str();
    cmd->callback([a, cmd] {
        if (a->serve > 0) {
            if (cmd->count("--output")) throw Error("--serve writes no page: drop -o");
            // A run's own background unless one is given.
            serve(a->scene, a->camera, a->backend,
                  cmd->count("--background") ? a->background : std::vector<double>{},
                  live::LiveOptions{a->host, a->serve, 1.0});
            return;
        }
        if (cmd->count("--viewer-host") || cmd->count("--backend"))
            throw Error("--viewer-host and --backend go with --serve");
        const Scene scene = read_scene(a->scene);
        const fs::path out(a->output);
        write_viewer_modules(out / "lib");
        // The scene as Spark reads it: PLY, compressed PLY and .splat as they are; SPZ as v3 (gzip), the
        // version Spark detects by content.
        const SceneFormat format = scene_format_from_path(a->scene);
        std::string scene_name = format == SceneFormat::compressed_ply ? "scene.compressed.ply"
                                 : format == SceneFormat::splat        ? "scene.splat"
                                 : format == SceneFormat::spz          ? "scene.spz"
                                                                       : "scene.ply";
        if (format == SceneFormat::spz)
            write_file_atomic((out / scene_name).string(), encode_spz(scene, 3));
        else
            fs::copy_file(a->scene, out / scene_name, fs::copy_options::overwrite_existing);
        // Framing: the middle 90 % of the means on each axis, so far-off floaters do not shrink the scene.
        nlohmann::json view;
        view["scene"] = "./" + scene_name;
        view["background"] = a->background;
        std::vector<double> centre(3), extent(3);
        for (int d = 0; d < 3; ++d) {
            std::vector<float> v;
            for (std::size_t i = 0; i < scene.size(); ++i) v.push_back(scene.means[3 * i + std::size_t(d)]);
            std::sort(v.begin(), v.end());
            const double lo = v.empty() ? 0 : v[v.size() / 20],
                         hi = v.empty() ? 0 : v[v.size() - 1 - v.size() / 20];
            centre[std::size_t(d)] = (lo + hi) / 2;
            extent[std::size_t(d)] = hi - lo;
        }
        view["centre"] = centre;
        view["radius"] = std::max({0.5 * std::hypot(extent[0], extent[1], extent[2]), 1e-3});
        view["camera"] = nullptr;
        if (!a->camera.empty()) {
            const Camera c = read_cameras_json(a->camera).at(0);
            nlohmann::json cj;
            cj["width"] = c.width;
            cj["height"] = c.height;
            cj["fx"] = c.fx;
            cj["fy"] = c.fy;
            cj["R"] = {{c.R[0][0], c.R[0][1], c.R[0][2]},
                       {c.R[1][0], c.R[1][1], c.R[1][2]},
                       {c.R[2][0], c.R[2][1], c.R[2][2]}};
            cj["t"] = {c.t.x, c.t.y, c.t.z};
            view["camera"] = cj;
        }
        const std::string title = html_escape(fs::path(a->scene).filename().string());
        std::string page = replace_all(kPage, "@TITLE@", title);
        page = replace_all(page, "@COUNT@", std::to_string(scene.size()));
        page = replace_all(page, "@VIEW@", view.dump());
        write_file_atomic((out / "index.html").string(), page);
        std::printf(
            "wrote %s (%zu Gaussians). Browsers load its modules over HTTP only; serve the folder and open "
            "it:\n"
            "  python3 -m http.server 8000 --bind 127.0.0.1 --directory %s\n"
            "  then http://127.0.0.1:8000/ (add ?fixed for exactly the --camera view)\n",
            (out / "index.html").string().c_str(), scene.size(), out.string().c_str());
    });
}

}  // namespace radiant::app
