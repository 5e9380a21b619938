#include <algorithm>
#include <cctype>
#include <fstream>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::draw {

EncodedFormat format_for_path(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".png" ? EncodedFormat::png : EncodedFormat::jpeg;
}

void write_image(const std::filesystem::path& path, const data::Image& image) {
  const auto bytes = format_for_path(path) == EncodedFormat::png ? encode_png(image) : encode_jpeg(image);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (out) out.close();
  if (!out) {
    throw Error("cannot write " + path.string(), "the file could not be created or fully written (disk full?)",
                "free some space or choose another project= folder");
  }
}

}  // namespace libreyolo::core::draw
