#include <algorithm>
#include <cmath>

#include "libreyolo/core/draw/canvas.hpp"
#include "libreyolo/core/draw/image_encode.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {
namespace {

constexpr int kMostTiles = 16;
constexpr int kLargestSide = 1920;  // the grid is shrunk to fit this: a picture, not the data

// Nearest-neighbour shrink by an integer-free factor: enough for a preview.
data::Image shrunk(const data::Image& image, double factor) {
  if (factor >= 1.0) return image;
  data::Image out;
  out.width = std::max(1, static_cast<int>(image.width * factor));
  out.height = std::max(1, static_cast<int>(image.height * factor));
  out.pixels.resize(static_cast<std::size_t>(out.width) * out.height * data::Image::kChannels);
  for (int y = 0; y < out.height; ++y) {
    const int sy = std::min(image.height - 1, static_cast<int>(y / factor));
    for (int x = 0; x < out.width; ++x) {
      const int sx = std::min(image.width - 1, static_cast<int>(x / factor));
      std::copy_n(image.pixel(sx, sy), data::Image::kChannels, out.pixel(x, y));
    }
  }
  return out;
}

}  // namespace

void plot_batch(const std::vector<BatchTile>& tiles, const std::filesystem::path& jpg) {
  if (tiles.empty()) throw Error("cannot plot an empty batch", "no images were given", "pass the batch's images");
  const int count = std::min<int>(kMostTiles, static_cast<int>(tiles.size()));
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  int tile_width = 0, tile_height = 0;
  for (int i = 0; i < count; ++i) {
    tile_width = std::max(tile_width, tiles[i].image.width);
    tile_height = std::max(tile_height, tiles[i].image.height);
  }
  const double factor = std::min(1.0, kLargestSide / static_cast<double>(side * std::max(tile_width, tile_height)));
  const int cell_width = static_cast<int>(tile_width * factor), cell_height = static_cast<int>(tile_height * factor);
  const int rows = (count + side - 1) / side;
  draw::Canvas grid(side * cell_width, rows * cell_height, {114, 114, 114});
  for (int i = 0; i < count; ++i) {
    auto image = shrunk(tiles[i].image, factor);
    auto boxes = tiles[i].boxes;
    for (auto& b : boxes) b.x1 *= factor, b.y1 *= factor, b.x2 *= factor, b.y2 *= factor;
    draw::draw_labelled_boxes(image, boxes);
    grid.paste(image, i % side * cell_width, i / side * cell_height);
  }
  draw::write_image(jpg, grid.image());
}

}  // namespace libreyolo::core::trainer
