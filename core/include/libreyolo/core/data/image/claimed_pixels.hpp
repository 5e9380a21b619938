#pragma once
// Whether an image header's width x height can be believed for the file it sits in. A damaged
// or forged header (16000x16000 in a 2 KB file) would make the decoder allocate hundreds of
// megabytes for pixels the file cannot hold; the scan and both decoders ask this first.

#include <cstddef>
#include <cstdint>
#include <string>

namespace libreyolo::core::data {

enum class PixelCoding {
  jpeg_huffman,     // baseline, extended and progressive JPEG
  jpeg_arithmetic,  // SOF9-SOF15: no compression bound worth checking
  png,
};

// Empty when the size is plausible; otherwise why not (for an Error's "why"). Refuses more
// than kMaxImagePixels always, and a claim of more than 4 megapixels that needs more pixels per
// file byte than the format can compress to, with a wide margin: Huffman-coded JPEG spends at
// least one bit per 8x8 block (<= 512 pixels per byte; limit 4096), deflate at most ~1032:1 over
// at least one bit per pixel (<= 8256 pixels per byte; limit 16384).
std::string implausible_pixels(std::uint64_t width, std::uint64_t height, std::uint64_t file_bytes, PixelCoding coding);

// The same for the decoders' setjmp frames, where no std::string may live across a libjpeg or
// libpng call (a longjmp would skip its destructor): writes the reason into `message` and
// returns true when the size is refused.
bool refuse_implausible_pixels(std::uint64_t width, std::uint64_t height, std::uint64_t file_bytes, PixelCoding coding,
                               char* message, std::size_t message_size);

}  // namespace libreyolo::core::data
