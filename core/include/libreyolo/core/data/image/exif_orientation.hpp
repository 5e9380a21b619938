#pragma once
// EXIF orientation (TIFF tag 0x0112) for JPEGs: cameras store pixels as the sensor saw them
// and record how to turn them upright. Training on un-rotated pixels with labels drawn on the
// upright image would teach the model wrong boxes, so both the size read by the scan and the
// decoded pixels follow the tag.

#include <cstddef>
#include <cstdint>

#include "libreyolo/core/data/image/image.hpp"

namespace libreyolo::core::data {

// Orientation from an APP1 segment payload (the bytes after the segment length, starting with
// "Exif\0\0"). Returns 1 (upright) for anything that is not a well-formed Exif block with a
// valid tag; a broken Exif block is common and never a reason to reject an image.
int parse_exif_orientation(const std::uint8_t* app1_payload, std::size_t size);

// True for orientations 5-8, which swap width and height.
inline bool orientation_swaps_axes(int orientation) { return orientation >= 5 && orientation <= 8; }

// Size of the image once turned upright.
ImageSize oriented_size(ImageSize stored, int orientation);

// Rotates/flips decoded pixels so they appear upright. Orientation 1 or unknown values return
// the image unchanged.
Image apply_exif_orientation(Image image, int orientation);

}  // namespace libreyolo::core::data
