#include "libreyolo/core/data/dataset/image_paths.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <system_error>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace fs = std::filesystem;
namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Replaces the last component equal to "images" by "labels"; false if there is none.
bool swap_images_component(const fs::path& path, fs::path* out) {
  std::vector<fs::path> parts(path.begin(), path.end());
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (*it != "images") continue;
    *it = "labels";
    fs::path result;
    for (const fs::path& part : parts) result /= part;
    *out = result;
    return true;
  }
  return false;
}

}  // namespace

bool has_image_extension(const fs::path& path) {
  const std::string ext = lowercase(path.extension().string());
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

std::vector<fs::path> list_images(const fs::path& folder) {
  std::vector<fs::path> images;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // Anything but a folder is listed, so that a FIFO, a device or a broken link named like an
    // image is reported by the scan instead of silently left out.
    std::error_code type_ec;
    if (!it->is_directory(type_ec) && has_image_extension(it->path())) {
      images.push_back(it->path());
    }
  }
  if (ec) {
    throw Error("Cannot list images in " + folder.string(), ec.message(),
                "Check that the folder exists and is readable");
  }
  std::sort(images.begin(), images.end());
  return images;
}

fs::path label_path_for_image(const fs::path& image) {
  fs::path folder = label_folder_for_image_folder(image.parent_path());
  return (folder / image.filename()).replace_extension(".txt");
}

fs::path label_folder_for_image_folder(const fs::path& folder) {
  fs::path label_folder = folder;
  swap_images_component(folder, &label_folder);
  return label_folder;
}

}  // namespace libreyolo::core::data
