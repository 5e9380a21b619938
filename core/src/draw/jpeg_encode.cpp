// JPEG encoding with libjpeg(-turbo). As in the decoder (data/image/jpeg_decode.cpp), libjpeg's
// fatal errors longjmp back into compress_raw(), the only function with a setjmp, and no C++
// object with a destructor lives in that frame.
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <cstdlib>

#include <jpeglib.h>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::draw {
namespace {

struct ErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg hands us a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_fatal_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void on_message(j_common_ptr, int) {}  // encoder warnings carry nothing a user could act on

// Compresses into a buffer libjpeg allocates (*out, freed by the caller with free()).
bool compress_raw(const data::Image& image, int quality, unsigned char** out, unsigned long* out_size,
                  ErrorManager& err) {
  jpeg_compress_struct cinfo;
  cinfo.err = jpeg_std_error(&err.base);
  err.base.error_exit = on_fatal_error;
  err.base.emit_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, out, out_size);
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = data::Image::kChannels;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  if (quality >= 90) {  // full-resolution chroma: 1-2 px coloured lines would otherwise bleed
    cinfo.comp_info[0].h_samp_factor = 1;
    cinfo.comp_info[0].v_samp_factor = 1;
  }
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.pixel(0, static_cast<int>(cinfo.next_scanline)));
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

std::vector<std::uint8_t> encode_jpeg(const data::Image& image, int quality) {
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() < image.row_bytes() * image.height) {
    throw Error("cannot encode a JPEG of " + std::to_string(image.width) + "x" + std::to_string(image.height),
                "the image is empty or its pixel buffer is too small", "pass a decoded image");
  }
  ErrorManager err{};
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const bool ok = compress_raw(image, quality < 1 ? 1 : (quality > 100 ? 100 : quality), &buffer, &size, err);
  std::vector<std::uint8_t> bytes;
  if (ok) bytes.assign(buffer, buffer + size);
  std::free(buffer);
  if (!ok) throw Error("cannot encode a JPEG", err.message, "this is a bug in libreyolo-host; please report it");
  return bytes;
}

}  // namespace libreyolo::core::draw
