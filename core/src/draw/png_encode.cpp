// PNG encoding with libpng, into memory. libpng's errors longjmp back into compress_raw(), the
// only function with a setjmp; the output vector lives in the caller's frame.
#include <csetjmp>
#include <cstring>
#include <new>

#include <png.h>

#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::draw {
namespace {

struct WriteState {
  std::vector<std::uint8_t>* out;
  char message[256];
};

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<WriteState*>(png_get_error_ptr(png));
  std::strncpy(state->message, message, sizeof state->message - 1);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void on_write(png_structp png, png_bytep data, png_size_t length) {
  auto* state = static_cast<WriteState*>(png_get_io_ptr(png));
  bool failed = false;
  try {
    state->out->insert(state->out->end(), data, data + length);
  } catch (const std::bad_alloc&) {
    failed = true;  // png_error longjmps: not from inside the handler
  }
  if (failed) png_error(png, "out of memory while encoding");
}

void on_flush(png_structp) {}

bool compress_raw(const data::Image& image, WriteState& state) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  if (png == nullptr) {
    std::strncpy(state.message, "libpng could not start", sizeof state.message - 1);
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::strncpy(state.message, "libpng could not start", sizeof state.message - 1);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &state, on_write, on_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 6);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) png_write_row(png, image.pixel(0, y));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const data::Image& image) {
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() < image.row_bytes() * image.height) {
    throw Error("cannot encode a PNG of " + std::to_string(image.width) + "x" + std::to_string(image.height),
                "the image is empty or its pixel buffer is too small", "pass a decoded image");
  }
  std::vector<std::uint8_t> bytes;
  WriteState state{&bytes, {}};
  if (!compress_raw(image, state)) {
    throw Error("cannot encode a PNG", state.message, "this is a bug in libreyolo-host; please report it");
  }
  return bytes;
}

}  // namespace libreyolo::core::draw
