#pragma once
// What `predict source=` names, as a list of image files: one file, a folder (its images,
// subfolders included, sorted: data/dataset/image_paths.hpp's rule) or a glob pattern
// ('images/*.jpg', quoted so the shell leaves it alone).

#include <filesystem>
#include <string>
#include <vector>

namespace libreyolo::core::predict {

// True when `source` has glob characters (*, ?, [).
bool looks_like_glob(const std::string& source);

// The files to predict on, in a reproducible order. An existing path wins over a glob reading of
// the same text (a file may have '[' in its name). A single file is returned whatever its
// extension (the decoder names what it is); folders and globs keep only .jpg, .jpeg and .png.
// Throws core::Error with what to do when source= is empty, names nothing that exists, is an
// empty folder, or is a glob that matches no image.
std::vector<std::filesystem::path> list_prediction_sources(const std::string& source);

}  // namespace libreyolo::core::predict
