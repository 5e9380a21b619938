#include "libreyolo/core/data/image/jpeg_decode.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <cstring>
#include <new>
#include <vector>

#include <jerror.h>
#include <jpeglib.h>

#include "libreyolo/core/data/image/claimed_pixels.hpp"
#include "libreyolo/core/data/image/exif_orientation.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// libjpeg's default error_exit calls exit(). Ours records the message and longjmps back into
// decode_raw(), the only function with a setjmp; no C++ frame with a destructor lies between
// them, and C++ exceptions never cross libjpeg's C frames.
struct ErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg hands us a pointer to it
  std::jmp_buf jump;
  char message[512];  // >= JMSG_LENGTH_MAX; room for our own longer reasons
  bool truncated;
};

void on_fatal_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings are silent by default in our host (libjpeg prints them to stderr). "Extraneous bytes
// before marker" and friends are tolerated like every mainstream decoder does; running out of
// data is not, because libjpeg then invents grey pixels.
void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace output
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  if (cinfo->err->msg_code == JWRN_JPEG_EOF && !err->truncated) {
    err->truncated = true;
    (*cinfo->err->format_message)(cinfo, err->message);
  }
}

// Filled by decode_raw(); owned by the caller so a longjmp never skips its destructor.
struct RawJpeg {
  std::vector<std::uint8_t> samples;
  int width = 0;
  int height = 0;
  int components = 0;
  bool cmyk = false;
  bool adobe_inverted = false;
  int orientation = 1;
};

// Largest power-of-two reduction (libjpeg's fast DCT scaling) keeping the long side >= target.
unsigned scale_denominator(unsigned width, unsigned height, int min_long_side) {
  if (min_long_side <= 0) return 1;
  const unsigned long_side = std::max(width, height);
  unsigned denominator = 1;
  while (denominator < 8 && (long_side + 2 * denominator - 1) / (2 * denominator) >=
                                static_cast<unsigned>(min_long_side)) {
    denominator *= 2;
  }
  return denominator;
}

bool decode_raw(const std::uint8_t* data, std::size_t size, int min_long_side, RawJpeg* out,
                ErrorManager* err) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->base);
  err->base.error_exit = on_fatal_error;
  err->base.emit_message = on_message;
  err->message[0] = '\0';
  err->truncated = false;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&cinfo, TRUE);

  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
      out->orientation = parse_exif_orientation(m->data, m->data_length);
      break;
    }
  }
  // Before jpeg_start_decompress, which allocates for the claimed size (claimed_pixels.hpp).
  if (refuse_implausible_pixels(cinfo.image_width, cinfo.image_height, size,
                                cinfo.arith_code ? PixelCoding::jpeg_arithmetic : PixelCoding::jpeg_huffman,
                                err->message, sizeof err->message)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  // libjpeg converts gray and YCbCr to RGB itself but has no CMYK -> RGB path.
  out->cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  out->adobe_inverted = cinfo.saw_Adobe_marker != 0;
  cinfo.out_color_space = out->cmyk ? JCS_CMYK : JCS_RGB;
  cinfo.scale_num = 1;
  cinfo.scale_denom = scale_denominator(cinfo.image_width, cinfo.image_height, min_long_side);
  jpeg_start_decompress(&cinfo);

  out->width = static_cast<int>(cinfo.output_width);
  out->height = static_cast<int>(cinfo.output_height);
  out->components = cinfo.output_components;
  const std::size_t stride = std::size_t{cinfo.output_width} * cinfo.output_components;
  try {
    out->samples.resize(stride * cinfo.output_height);
  } catch (const std::bad_alloc&) {
    std::snprintf(err->message, sizeof err->message, "out of memory for the decoded pixels");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->samples.data() + stride * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// Photoshop (and everything imitating it, i.e. almost every CMYK JPEG) writes an Adobe marker
// and stores CMYK inverted; plain CMYK is rare but handled for completeness.
std::vector<std::uint8_t> cmyk_to_rgb(const std::vector<std::uint8_t>& cmyk, bool inverted) {
  std::vector<std::uint8_t> rgb(cmyk.size() / 4 * 3);
  for (std::size_t i = 0, o = 0; i + 3 < cmyk.size(); i += 4, o += 3) {
    unsigned c = cmyk[i], m = cmyk[i + 1], y = cmyk[i + 2], k = cmyk[i + 3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    rgb[o] = static_cast<std::uint8_t>((c * k + 127) / 255);
    rgb[o + 1] = static_cast<std::uint8_t>((m * k + 127) / 255);
    rgb[o + 2] = static_cast<std::uint8_t>((y * k + 127) / 255);
  }
  return rgb;
}

// The JPEG end-of-image marker (FF D9) near the end of the data, as the scan requires too
// (image_header.cpp). Checked here explicitly because libjpeg builds differ on whether a
// missing EOI raises the premature-end warning: Debian's does, Ubuntu 24.04's did not.
bool has_end_of_image_marker(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kTailWindow = 4096;
  const std::size_t start = size > kTailWindow ? size - kTailWindow : 0;
  for (std::size_t i = size; i-- > start + 1;) {
    if (data[i - 1] == 0xFF && data[i] == 0xD9) return true;
  }
  return false;
}

}  // namespace

Image decode_jpeg(const std::uint8_t* data, std::size_t size, const std::string& name,
                  int min_long_side) {
  const char* todo = "Re-download or re-export the image, or remove it from the dataset";
  RawJpeg raw;
  ErrorManager err;
  if (!decode_raw(data, size, min_long_side, &raw, &err)) {
    throw Error("Cannot decode JPEG image " + name, err.message, todo);
  }
  if (!err.truncated && !has_end_of_image_marker(data, size)) {
    err.truncated = true;
    std::snprintf(err.message, sizeof err.message, "no JPEG end-of-image marker");
  }
  if (err.truncated) {
    throw Error("Cannot decode JPEG image " + name,
                std::string("the file is truncated (") + err.message + ")", todo);
  }
  Image image;
  image.width = raw.width;
  image.height = raw.height;
  if (raw.cmyk) {
    image.pixels = cmyk_to_rgb(raw.samples, raw.adobe_inverted);
  } else if (raw.components == 3) {
    image.pixels = std::move(raw.samples);
  } else {
    throw Error("Cannot decode JPEG image " + name,
                "libjpeg produced " + std::to_string(raw.components) + " channels instead of 3",
                todo);
  }
  return apply_exif_orientation(std::move(image), raw.orientation);
}

}  // namespace libreyolo::core::data
