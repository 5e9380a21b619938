#include "libreyolo/core/draw/box_style.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"

namespace libreyolo::core::trainer {

std::vector<BatchTile> prediction_tiles(const std::vector<PredictedImage>& images, const std::vector<std::string>& names,
                                        double min_score) {
  std::vector<BatchTile> tiles;
  for (const auto& predicted : images) {
    BatchTile tile;
    tile.image = predicted.image;
    // Detections come highest first: drawn in reverse, the most confident box lies on top.
    for (auto d = predicted.detections.rbegin(); d != predicted.detections.rend(); ++d) {
      if (!(d->score > min_score)) continue;  // strictly above, as Ultralytics' plot_images
      const std::string name =
          d->class_id >= 0 && static_cast<std::size_t>(d->class_id) < names.size() ? names[d->class_id] : std::to_string(d->class_id);
      tile.boxes.push_back({d->box.x1, d->box.y1, d->box.x2, d->box.y2, d->class_id, draw::label_text(name, d->score)});
    }
    tiles.push_back(std::move(tile));
  }
  return tiles;
}

}  // namespace libreyolo::core::trainer
