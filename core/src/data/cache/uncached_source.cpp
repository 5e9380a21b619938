#include "libreyolo/core/data/cache/uncached_source.hpp"

#include <utility>

#include "libreyolo/core/data/cache/decode_failures.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"

namespace libreyolo::core::data {
namespace {

// Keeps only the plan (immutable after construction), so concurrent get() calls share nothing
// but read-only data; each caller decodes into its own scratch image.
class UncachedSource final : public ImageSource {
 public:
  explicit UncachedSource(ImagePlan plan) : plan_(std::move(plan)) {}

  std::size_t size() const override { return plan_.images.size(); }

  ImageView get(std::size_t index, Image& scratch) const override {
    const PlannedImage& image = plan_.images.at(index);
    if (!image.usable()) throw_unloadable_image(image);
    scratch = load_resized_image(image.path, image.original, plan_.imgsz);
    return ImageView::of(scratch);
  }

  ImageSize original_size(std::size_t index) const override {
    return plan_.images.at(index).original;
  }

  CacheMode mode() const override { return CacheMode::none; }

 private:
  ImagePlan plan_;
};

}  // namespace

std::unique_ptr<ImageSource> make_uncached_source(ImagePlan plan) {
  return std::make_unique<UncachedSource>(std::move(plan));
}

}  // namespace libreyolo::core::data
