#pragma once
// Helpers shared by the data-module tests: tiny JPEG/PNG
// writers, so every fixture is generated at run time instead of living in the repository.

#include <cstddef>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers

#include <jpeglib.h>
#include <png.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../temp_dir.hpp"

namespace libreyolo::test {

inline void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  write_bytes(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
}

// Interleaved samples with `components` channels (1 gray, 3 RGB, 4 CMYK stored Adobe-inverted).
// `app1` (the payload after the length, e.g. from exif_app1()) is written when not empty.
inline std::vector<std::uint8_t> encode_jpeg(int width, int height, int components,
                                             const std::vector<std::uint8_t>& samples,
                                             const std::vector<std::uint8_t>& app1 = {},
                                             bool ycck = false) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  if (components == 4)
    jpeg_set_colorspace(&cinfo, ycck ? JCS_YCCK : JCS_CMYK);  // writes Adobe marker
  jpeg_set_quality(&cinfo, 100, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  if (!app1.empty())
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1.data(), static_cast<unsigned>(app1.size()));
  const std::size_t stride = static_cast<std::size_t>(width) * components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPLE*>(samples.data() + stride * cinfo.next_scanline);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::vector<std::uint8_t> bytes(buffer, buffer + size);
  std::free(buffer);
  return bytes;
}

// An Exif APP1 payload with only the orientation tag, in either TIFF byte order.
inline std::vector<std::uint8_t> exif_app1(int orientation, bool little_endian = true) {
  auto u16 = [&](std::vector<std::uint8_t>& v, unsigned x) {
    if (little_endian) {
      v.push_back(x & 0xFF);
      v.push_back((x >> 8) & 0xFF);
    } else {
      v.push_back((x >> 8) & 0xFF);
      v.push_back(x & 0xFF);
    }
  };
  auto u32 = [&](std::vector<std::uint8_t>& v, unsigned x) {
    if (little_endian) {
      u16(v, x & 0xFFFF);
      u16(v, x >> 16);
    } else {
      u16(v, x >> 16);
      u16(v, x & 0xFFFF);
    }
  };
  std::vector<std::uint8_t> v = {'E', 'x', 'i', 'f', 0, 0};
  v.push_back(little_endian ? 'I' : 'M');
  v.push_back(little_endian ? 'I' : 'M');
  u16(v, 42);
  u32(v, 8);       // IFD0 right after the header
  u16(v, 2);       // two entries: an unrelated tag first, then orientation
  u16(v, 0x010F);  // Make, ASCII, 4 bytes inline
  u16(v, 2);
  u32(v, 4);
  v.insert(v.end(), {'C', 'a', 'm', 0});
  u16(v, 0x0112);
  u16(v, 3);
  u32(v, 1);
  u16(v, static_cast<unsigned>(orientation));
  u16(v, 0);
  u32(v, 0);  // no next IFD
  return v;
}

struct PngSpec {
  PngSpec(int w, int h, int type, int depth)
      : width(w), height(h), color_type(type), bit_depth(depth) {}
  int width = 0;
  int height = 0;
  int color_type = PNG_COLOR_TYPE_RGB;
  int bit_depth = 8;
  bool interlaced = false;
  std::vector<png_color> palette;
  std::vector<png_byte> palette_alpha;  // tRNS for palette images
};

// `rows` holds packed rows exactly as PNG stores them (16-bit samples big-endian).
inline std::vector<std::uint8_t> encode_png(const PngSpec& spec,
                                            const std::vector<std::uint8_t>& rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<std::uint8_t> bytes;
  png_set_write_fn(
      png, &bytes,
      [](png_structp p, png_bytep data, png_size_t n) {
        auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(p));
        out->insert(out->end(), data, data + n);
      },
      nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(spec.width),
               static_cast<png_uint_32>(spec.height), spec.bit_depth, spec.color_type,
               spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!spec.palette.empty())
    png_set_PLTE(png, info, spec.palette.data(), static_cast<int>(spec.palette.size()));
  if (!spec.palette_alpha.empty())
    png_set_tRNS(png, info, spec.palette_alpha.data(), static_cast<int>(spec.palette_alpha.size()),
                 nullptr);
  png_write_info(png, info);
  const std::size_t stride = rows.size() / static_cast<std::size_t>(spec.height);
  std::vector<png_bytep> pointers;
  for (int y = 0; y < spec.height; ++y)
    pointers.push_back(const_cast<png_bytep>(rows.data() + stride * static_cast<std::size_t>(y)));
  png_write_image(png, pointers.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return bytes;
}

// A width x height RGB image filled with `background` and a `block` x `block` square of
// `corner_colour` at the top-left.
inline std::vector<std::uint8_t> rgb_with_corner_block(int width, int height, int block,
                                                       std::uint8_t background[3],
                                                       std::uint8_t corner_colour[3]) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::uint8_t* c = (x < block && y < block) ? corner_colour : background;
      std::uint8_t* p = pixels.data() + (static_cast<std::size_t>(y) * width + x) * 3;
      p[0] = c[0];
      p[1] = c[1];
      p[2] = c[2];
    }
  }
  return pixels;
}

inline std::vector<std::uint8_t> solid(int width, int height, int components, std::uint8_t value) {
  return std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * components, value);
}

}  // namespace libreyolo::test
