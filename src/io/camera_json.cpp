#include "radiant/io/camera_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"

namespace radiant {
namespace {

using nlohmann::json;

Camera camera_from_json(const json& j, const std::string& where) {
    auto fail = [&](const std::string& why) -> IoError { return IoError(where, why); };
    if (!j.is_object()) throw fail("expected a camera object");
    auto number = [&](const char* key) {
        if (!j.contains(key)) throw fail(fmt::format("missing '{}'", key));
        if (!j[key].is_number()) throw fail(fmt::format("'{}' must be a number", key));
        return j[key].get<double>();
    };
    auto integer = [&](const char* key) {
        double v = number(key);
        if (v != double(int(v))) throw fail(fmt::format("'{}' must be an integer, got {}", key, v));
        return int(v);
    };
    Camera c;
    c.width = integer("width");
    c.height = integer("height");
    c.fx = number("fx");
    c.fy = number("fy");
    c.cx = number("cx");
    c.cy = number("cy");
    if (!j.contains("R") || !j["R"].is_array() || j["R"].size() != 3)
        throw fail("'R' must be 3 rows of 3 numbers");
    for (int r = 0; r < 3; ++r) {
        const json& row = j["R"][std::size_t(r)];
        if (!row.is_array() || row.size() != 3) throw fail("'R' must be 3 rows of 3 numbers");
        for (int k = 0; k < 3; ++k) {
            if (!row[std::size_t(k)].is_number()) throw fail("'R' must be 3 rows of 3 numbers");
            c.R.m[r][k] = row[std::size_t(k)].get<double>();
        }
    }
    if (!j.contains("t") || !j["t"].is_array() || j["t"].size() != 3) throw fail("'t' must be 3 numbers");
    for (int k = 0; k < 3; ++k) {
        if (!j["t"][std::size_t(k)].is_number()) throw fail("'t' must be 3 numbers");
        c.t[k] = j["t"][std::size_t(k)].get<double>();
    }
    if (j.contains("name")) {
        if (!j["name"].is_string()) throw fail("'name' must be a string");
        c.name = j["name"].get<std::string>();
    }
    if (j.contains("model")) {
        if (!j["model"].is_string()) throw fail("'model' must be a string");
        std::string m = j["model"].get<std::string>();
        if (m == "pinhole")
            c.model = CameraModel::pinhole;
        else if (m == "opencv")
            c.model = CameraModel::opencv;
        else if (m == "fisheye")
            c.model = CameraModel::fisheye;
        else
            throw fail(fmt::format("unknown model '{}' (expected pinhole, opencv or fisheye)", m));
    }
    if (j.contains("distortion")) {
        if (!j["distortion"].is_array()) throw fail("'distortion' must be a list of numbers");
        for (const json& d : j["distortion"]) {
            if (!d.is_number()) throw fail("'distortion' must be a list of numbers");
            c.distortion.push_back(d.get<double>());
        }
    }
    try {
        validate(c, "camera");
    } catch (const Error& e) {
        throw fail(e.what());
    }
    return c;
}

std::string split_of(const json& j, const std::string& where) {
    if (!j.contains("split")) return {};
    if (!j["split"].is_string()) throw IoError(where, "'split' must be a string");
    return j["split"].get<std::string>();
}

}  // namespace

std::vector<Camera> parse_cameras_json(std::string_view text, const std::string& name,
                                       std::vector<std::string>* splits) {
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw IoError(name, fmt::format("invalid JSON: {}", e.what()));
    }
    std::vector<Camera> cams;
    if (doc.is_object() && doc.contains("cameras")) {
        if (!doc["cameras"].is_array()) throw IoError(name, "'cameras' must be a list");
        for (std::size_t i = 0; i < doc["cameras"].size(); ++i) {
            const json& j = doc["cameras"][i];
            const std::string where = fmt::format("{}: camera {}", name, i);
            cams.push_back(camera_from_json(j, where));
            if (splits) splits->push_back(split_of(j, where));
        }
    } else {
        cams.push_back(camera_from_json(doc, name));
        if (splits) splits->push_back(split_of(doc, name));
    }
    if (cams.empty()) throw IoError(name, "no cameras");
    return cams;
}

std::vector<Camera> read_cameras_json(const std::string& path, std::vector<std::string>* splits) {
    return parse_cameras_json(read_file(path), path, splits);
}

std::string format_cameras_json(const std::vector<Camera>& cameras, const std::vector<std::string>& splits) {
    json list = json::array();
    for (std::size_t i = 0; i < cameras.size(); ++i) {
        const Camera& c = cameras[i];
        json j;
        if (!c.name.empty()) j["name"] = c.name;
        if (i < splits.size() && !splits[i].empty()) j["split"] = splits[i];
        j["width"] = c.width;
        j["height"] = c.height;
        j["fx"] = c.fx;
        j["fy"] = c.fy;
        j["cx"] = c.cx;
        j["cy"] = c.cy;
        j["R"] = {{c.R.m[0][0], c.R.m[0][1], c.R.m[0][2]},
                  {c.R.m[1][0], c.R.m[1][1], c.R.m[1][2]},
                  {c.R.m[2][0], c.R.m[2][1], c.R.m[2][2]}};
        j["t"] = {c.t.x, c.t.y, c.t.z};
        j["model"] = to_string(c.model);
        if (!c.distortion.empty()) j["distortion"] = c.distortion;
        list.push_back(j);
    }
    return json{{"cameras", list}}.dump(2) + "\n";
}

void write_cameras_json(const std::string& path, const std::vector<Camera>& cameras,
                        const std::vector<std::string>& splits) {
    write_file_atomic(path, format_cameras_json(cameras, splits));
}

}  // namespace radiant
