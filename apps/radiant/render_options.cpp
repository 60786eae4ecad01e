#include "render_options.hpp"

#include "radiant/core/error.hpp"

namespace radiant::app {

void add_render_options(CLI::App& cmd, RenderOptions& o) {
    RenderSettings& s = o.settings;
    cmd.add_option("--sh-degree", s.sh_degree, "active SH degree (at most the scene's)")
        ->check(CLI::Range(0, 3))
        ->capture_default_str();
    cmd.add_option("--background", o.background, "background colour r,g,b in [0, 1]")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str();
    cmd.add_option("--tile-size", s.tile_size, "tile edge in pixels")->capture_default_str();
    cmd.add_option("--radius-scale", s.radius_scale, "footprint support in σ")->capture_default_str();
    cmd.add_option("--alpha-cutoff", s.alpha_cutoff, "skip hits with α below this")->capture_default_str();
    cmd.add_option("--max-splat-steps", s.max_splat_steps, "hit cap per pixel (0 = unlimited)")
        ->capture_default_str();
    cmd.add_option("--transmittance-threshold", s.transmittance_threshold, "stop a pixel when T falls below")
        ->capture_default_str();
    cmd.add_option("--eps2d", s.eps2d,
                   "low-pass in px² (ewa: added to the 2D covariance; ray: the same as a 3D filter)")
        ->capture_default_str();
    cmd.add_flag("--antialiased", s.antialiased,
                 "ewa: Mip-Splatting's 2D filter, opacity scaled to keep each splat's energy (gsplat's "
                 "antialiased mode); renders below the training resolution stay faithful");
    cmd.add_option("--shading", s.shading,
                   "ewa (what 3DGS viewers show) or ray (peak response along each pixel's ray, through the "
                   "camera's lens distortion)")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, Shading>{{"ewa", Shading::ewa}, {"ray", Shading::ray}}))
        ->capture_default_str();
    cmd.add_option("--near", s.near_plane, "near plane (camera z)")->capture_default_str();
    cmd.add_option("--far", s.far_plane, "far plane (camera z)")->capture_default_str();
}

void finish_render_options(RenderOptions& o) {
    if (o.background.size() != 3) throw Error("--background takes three values r,g,b");
    for (int i = 0; i < 3; ++i) o.settings.background[std::size_t(i)] = o.background[std::size_t(i)];
    validate(o.settings);
}

}  // namespace radiant::app
