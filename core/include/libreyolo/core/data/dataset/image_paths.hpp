#pragma once
// Where images are and where their labels live, by the YOLO convention:
//   <root>/images/<split>/a.jpg  ->  <root>/labels/<split>/a.txt
// (the last path component named "images" becomes "labels"; without one, the label sits next
// to the image).

#include <filesystem>
#include <vector>

namespace libreyolo::core::data {

// jpg, jpeg, png in any letter case: the formats decode_image supports.
bool has_image_extension(const std::filesystem::path& path);

// Every image under `folder` (recursively, symlinked files included, symlinked folders not
// followed so a link loop cannot hang a scan), sorted by path so runs are reproducible.
// Throws libreyolo::core::Error if the folder cannot be listed.
std::vector<std::filesystem::path> list_images(const std::filesystem::path& folder);

// The label file of an image (see the convention above).
std::filesystem::path label_path_for_image(const std::filesystem::path& image);

// The labels folder mirroring an images folder (images/train2017 -> labels/train2017).
std::filesystem::path label_folder_for_image_folder(const std::filesystem::path& folder);

}  // namespace libreyolo::core::data
