#include "libreyolo/core/trainer/validation_plots.hpp"

#include <exception>
#include <functional>

#include "libreyolo/core/draw/annotate.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer {
namespace {

// Any failure (a full disk, a picture that cannot be laid out) is the picture's alone.
void draw_or_warn(const std::string& picture, const std::function<void()>& draw) {
  try {
    draw();
  } catch (const std::exception& e) {
    log::warn("no ", picture, ": ", e.what(), " (plots=false turns plots off)");
  }
}

}  // namespace

const std::vector<std::string>& validation_picture_names() {
  static const std::vector<std::string> names = {"PR_curve.png", "F1_curve.png", "confusion_matrix_normalized.png",
                                                 "val_batch0_pred.jpg"};
  return names;
}

void write_validation_plots(const ValidationPictures& pictures, const std::vector<std::string>& names,
                            const std::filesystem::path& folder) {
  const auto& files = validation_picture_names();
  if (!draw::drawing_available()) {
    log::info("plots: this build has no OpenCV (core + imgproc), so no ", files[0], ", ", files[1], ", ", files[2],
              " or ", files[3], "; plots=false says you do not want them");
    return;
  }
  draw_or_warn(files[0], [&] { plot_pr_curve(pictures.evaluation, folder / files[0]); });
  draw_or_warn(files[1], [&] { plot_f1_curve(pictures.evaluation, folder / files[1]); });
  draw_or_warn(files[2], [&] { plot_confusion_matrix(pictures.confusion, names, folder / files[2]); });
  draw_or_warn(files[3], [&] { plot_batch(prediction_tiles(pictures.first_batch, names), folder / files[3]); });
}

}  // namespace libreyolo::core::trainer
