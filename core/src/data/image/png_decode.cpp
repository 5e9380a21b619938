#include "libreyolo/core/data/image/png_decode.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "libreyolo/core/data/image/claimed_pixels.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

// libpng reports fatal errors through a callback that must not return. Ours records the
// message and longjmps back into decode_raw(), the only function with a setjmp; C++
// exceptions never travel through libpng's C frames.
struct ReadState {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t position;
  std::jmp_buf jump;
  char message[512];
};

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<ReadState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message);
  std::longjmp(state->jump, 1);
}

// Warnings (bad iCCP profiles, unknown chunks) are everyday noise in real datasets and never
// change the pixels; stay quiet instead of printing to stderr.
void on_warning(png_structp, png_const_charp) {}

void read_from_memory(png_structp png, png_bytep out, png_size_t count) {
  auto* state = static_cast<ReadState*>(png_get_io_ptr(png));
  if (count > state->size - state->position) png_error(png, "the file is truncated");
  std::memcpy(out, state->data + state->position, count);
  state->position += count;
}

// Filled by decode_raw(); owned by the caller so a longjmp never skips its destructor.
struct RawPng {
  std::vector<std::uint8_t> samples;
  std::vector<png_bytep> rows;
  int width = 0;
  int height = 0;
  int channels = 0;
};

bool decode_raw(ReadState* state, RawPng* out) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
  if (png == nullptr) {
    std::snprintf(state->message, sizeof state->message, "libpng could not start");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(state->message, sizeof state->message, "libpng could not start");
    return false;
  }
  if (setjmp(state->jump)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, state, read_from_memory);
  png_read_info(png, info);

  const png_uint_32 width = png_get_image_width(png, info);
  const png_uint_32 height = png_get_image_height(png, info);
  // Before any allocation for the claimed size (claimed_pixels.hpp).
  if (refuse_implausible_pixels(width, height, state->size, PixelCoding::png, state->message, sizeof state->message)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  // Normalise every PNG flavour to 8-bit gray, gray+alpha, RGB or RGBA; the last step to RGB
  // is ours (see to_rgb) so it does not depend on libpng's transform ordering.
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16) png_set_scale_16(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  out->width = static_cast<int>(width);
  out->height = static_cast<int>(height);
  out->channels = png_get_channels(png, info);
  const std::size_t stride = png_get_rowbytes(png, info);
  if (png_get_bit_depth(png, info) != 8 || stride != std::size_t{width} * out->channels) {
    png_error(png, "unsupported PNG sample layout");
  }
  bool allocated = true;
  try {
    out->samples.resize(stride * height);
    out->rows.resize(height);
  } catch (const std::bad_alloc&) {
    allocated = false;  // png_error (a longjmp) must not leave from inside a catch handler
  }
  if (!allocated) png_error(png, "out of memory for the decoded pixels");
  for (png_uint_32 y = 0; y < height; ++y) out->rows[y] = out->samples.data() + stride * y;
  png_read_image(png, out->rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

std::vector<std::uint8_t> to_rgb(const RawPng& raw) {
  const std::size_t pixels = std::size_t(raw.width) * raw.height;
  if (raw.channels == 3) return raw.samples;
  std::vector<std::uint8_t> rgb(pixels * 3);
  const std::uint8_t* in = raw.samples.data();
  for (std::size_t i = 0; i < pixels; ++i, in += raw.channels) {
    std::uint8_t* out = rgb.data() + i * 3;
    if (raw.channels <= 2) {  // gray, gray + alpha
      out[0] = out[1] = out[2] = in[0];
    } else {  // RGBA
      out[0] = in[0];
      out[1] = in[1];
      out[2] = in[2];
    }
  }
  return rgb;
}

}  // namespace

Image decode_png(const std::uint8_t* data, std::size_t size, const std::string& name) {
  ReadState state{data, size, 0, {}, {}};
  RawPng raw;
  if (!decode_raw(&state, &raw)) {
    throw Error("Cannot decode PNG image " + name, state.message,
                "Re-download or re-export the image, or remove it from the dataset");
  }
  if (raw.channels < 1 || raw.channels > 4) {
    throw Error("Cannot decode PNG image " + name,
                "libpng produced " + std::to_string(raw.channels) + " channels",
                "Re-export the image as 8-bit RGB");
  }
  Image image;
  image.width = raw.width;
  image.height = raw.height;
  image.pixels = to_rgb(raw);
  return image;
}

}  // namespace libreyolo::core::data
