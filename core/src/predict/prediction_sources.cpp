#include "libreyolo/core/predict/prediction_sources.hpp"

#include <glob.h>

#include <algorithm>

#include "libreyolo/core/data/dataset/image_paths.hpp"
#include "libreyolo/core/error.hpp"

namespace fs = std::filesystem;

namespace libreyolo::core::predict {
namespace {

const char* const kSourceHelp =
    "pass source=image.jpg, source=folder/ or a quoted glob such as source='images/*.jpg'";

// POSIX glob(3): the shell's own matching, so a pattern behaves as it would unquoted.
std::vector<fs::path> glob_paths(const std::string& pattern) {
  glob_t found{};
  const int status = ::glob(pattern.c_str(), 0, nullptr, &found);
  std::vector<fs::path> paths;
  if (status == 0) {
    for (std::size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
  }
  ::globfree(&found);
  return paths;
}

std::vector<fs::path> images_matching(const std::string& pattern) {
  const auto matches = glob_paths(pattern);
  std::vector<fs::path> images;
  std::error_code ec;
  for (const auto& path : matches) {
    if (fs::is_regular_file(path, ec) && data::has_image_extension(path)) images.push_back(path);
  }
  if (images.empty()) {
    throw Error("source='" + pattern + "' matches no image",
                matches.empty() ? "no file matches the pattern"
                                : std::to_string(matches.size()) + " paths match, none a .jpg, .jpeg or .png file",
                std::string("check the pattern (quote it so that the shell does not expand it); ") + kSourceHelp);
  }
  std::sort(images.begin(), images.end());
  return images;
}

std::vector<fs::path> images_in_folder(const fs::path& folder) {
  auto images = data::list_images(folder);
  if (images.empty()) {
    throw Error("source=" + folder.string() + " holds no image",
                "the folder (subfolders included) has no .jpg, .jpeg or .png file",
                "put the images there, or pass another folder, a file or a glob");
  }
  return images;
}

}  // namespace

bool looks_like_glob(const std::string& source) { return source.find_first_of("*?[") != std::string::npos; }

std::vector<fs::path> list_prediction_sources(const std::string& source) {
  if (source.empty()) throw Error("predict needs a source", "source= is not set", kSourceHelp);
  std::error_code ec;
  const fs::path path(source);
  if (fs::is_directory(path, ec)) return images_in_folder(path);
  if (fs::exists(path, ec)) return {path};
  if (looks_like_glob(source)) return images_matching(source);
  throw Error("source " + source + " does not exist", "no file or folder has that path",
              std::string("check the path; ") + kSourceHelp);
}

}  // namespace libreyolo::core::predict
