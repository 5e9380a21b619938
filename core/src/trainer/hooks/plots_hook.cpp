#include <torch/torch.h>

#include <set>

#include "hooks.hpp"
#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/draw/box_style.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/run_plots.hpp"
#include "libreyolo/core/trainer/validation_plots.hpp"

namespace libreyolo::core::trainer::hooks {
namespace {

// The batch as pictures: uint8 NHWC RGB images and pixel cx, cy, w, h targets, as the loader
// made them (before any multi-scale resize of the network input). One device read, once a run.
std::vector<BatchTile> batch_tiles(const data::Batch& batch, const std::vector<std::string>& names) {
  const auto images = batch.images.to(torch::kCPU).contiguous();
  const auto targets = batch.targets.to(torch::kCPU, torch::kFloat32).contiguous();
  std::vector<BatchTile> tiles;
  const auto count = std::min<std::int64_t>(images.size(0), 16);
  for (std::int64_t i = 0; i < count; ++i) {
    BatchTile tile;
    tile.image.height = static_cast<int>(images.size(1));
    tile.image.width = static_cast<int>(images.size(2));
    const auto* pixels = images[i].data_ptr<std::uint8_t>();
    tile.image.pixels.assign(pixels, pixels + images[i].numel());
    const auto target = targets[i];
    const auto rows = target.accessor<float, 2>();
    const auto boxes = i < static_cast<std::int64_t>(batch.host_counts.size()) ? batch.host_counts[i] : 0;
    for (std::int64_t r = 0; r < boxes && r < rows.size(0); ++r) {
      const int id = static_cast<int>(rows[r][0]);
      const std::string name = id >= 0 && id < static_cast<int>(names.size()) ? names[id] : std::to_string(id);
      draw::LabelledBox box;
      box.x1 = rows[r][1] - rows[r][3] / 2, box.y1 = rows[r][2] - rows[r][4] / 2;
      box.x2 = rows[r][1] + rows[r][3] / 2, box.y2 = rows[r][2] + rows[r][4] / 2;
      box.class_id = id;
      box.label = name;
      tile.boxes.push_back(std::move(box));
    }
    tiles.push_back(std::move(tile));
  }
  return tiles;
}

class PlotsHook : public TrainHook {
 public:
  void before_train(TrainLoop& loop) override {
    if (!draw::drawing_available()) {  // one line for the run, not one warning per picture
      const auto& validation = validation_picture_names();
      log::info("plots: this build has no OpenCV (core + imgproc), so no results.png, labels.jpg, train_batch0.jpg, ",
                validation[0], ", ", validation[1], ", ", validation[2], " or ", validation[3],
                "; plots=false says you do not want them");
      off_ = true;
      return;
    }
    const Session& s = loop.session;
    attempt("labels.jpg", [&] { plot_labels(s.train_split->labels, s.dataset.names, s.run.root / "labels.jpg"); });
  }
  void after_step(TrainLoop& loop) override {
    if (off_ || batch_drawn_ || !loop.batch) return;
    batch_drawn_ = true;
    const Session& s = loop.session;
    attempt("train_batch0.jpg",
            [&] { plot_batch(batch_tiles(*loop.batch, s.dataset.names), s.run.root / "train_batch0.jpg"); });
  }
  void after_epoch(TrainLoop& loop) override {
    if (off_) return;
    const Session& s = loop.session;
    attempt("results.png", [&] { plot_results(s.run.root / "results.csv", s.run.root / "results.png"); });
  }
  // The validation pictures once, from the run's last validation (the final epoch's unless
  // early stop or Ctrl-C ended the run sooner): drawn every validation they would only be
  // overwritten.
  void after_train(TrainLoop& loop) override {
    if (off_ || !loop.last_validation) return;
    write_validation_plots(*loop.last_validation, loop.session.dataset.names, loop.session.run.root);
  }

 private:
  // A picture is not worth a run: a failure is one warning per picture, and training goes on.
  template <typename Draw>
  void attempt(const std::string& picture, Draw draw) {
    try {
      draw();
    } catch (const Error& e) {
      if (warned_.insert(picture).second) log::warn("no ", picture, ": ", e.what(), " (plots=false turns plots off)");
    }
  }
  bool off_ = false;
  bool batch_drawn_ = false;
  std::set<std::string> warned_;
};

}  // namespace

std::unique_ptr<TrainHook> plots() { return std::make_unique<PlotsHook>(); }

}  // namespace libreyolo::core::trainer::hooks
