#include "dataset_flags.hpp"

#include <map>

namespace radiant::app {

const std::map<std::string, Undistort>& undistort_names() {
    static const std::map<std::string, Undistort> names{{"mask", Undistort::mask}, {"crop", Undistort::crop}};
    return names;
}

void add_dataset_flags(CLI::App* cmd, const DatasetFlags& f) {
    cmd->add_option(
           "--downscale", *f.downscale,
           "train on 1/N-size images (COLMAP: images_N when present); 0: full size unless the longer "
           "side exceeds 1600 px, which is then scaled to 1600 as Inria 3DGS does")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->add_option(
           "--undistort", *f.undistort,
           "ewa on distorted photos: mask (same intrinsics; pixels the lens did not see neither train "
           "nor score) or crop (OpenCV's alpha = 0 camera: the valid rectangle fills the image, as "
           "gsplat)")
        ->transform(CLI::CheckedTransformer(undistort_names()))
        ->capture_default_str();
    cmd->add_option(
           "--resample", *f.resample,
           "how undistortion samples the photos: bilinear (as OpenCV, COLMAP and gsplat: PSNR compares "
           "with theirs) or bicubic (sharper targets: models closer to the truth, lower PSNR against "
           "those sharper targets)")
        ->transform(CLI::CheckedTransformer(std::map<std::string, Resample>{{"bilinear", Resample::bilinear},
                                                                            {"bicubic", Resample::bicubic}}))
        ->capture_default_str();
    cmd->add_option("--images", *f.images,
                    "image folder, relative to the dataset or absolute (default: images/, or input/ beside "
                    "Inria's distorted/sparse/0)");
    cmd->add_option("--masks", *f.masks,
                    "mask folder (default: masks/ when the dataset has one): a mask per image, same name (or "
                    "name + .png, or another image extension); black pixels neither train nor score");
    cmd->add_option("--alpha", *f.alpha,
                    "the alpha channel of RGBA images: mask (transparent pixels neither train nor score) or "
                    "composite over the background; auto: composite for NeRF-synthetic, else mask")
        ->transform(CLI::CheckedTransformer(std::map<std::string, AlphaUse>{
            {"auto", AlphaUse::automatic}, {"composite", AlphaUse::composite}, {"mask", AlphaUse::mask}}))
        ->capture_default_str();
}

}  // namespace radiant::app
