// prepare_pipeline(): the user's overrides applied to a declared pipeline, every parameter
// checked once (not per sample), and the promise that the sample ends at imgsz x imgsz.

#include <string>
#include <type_traits>

#include "libreyolo/core/data/augment/pipeline.hpp"
#include "libreyolo/core/data/augment/pipeline_text.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::data {
namespace {

namespace A = sdk::augment;

template <class T>
void set_if(const std::optional<T>& value, T& field) {
  if (value) field = *value;
}

void apply_overrides(A::Transform& transform, const AugmentOverrides& o) {
  if (auto* m = std::get_if<A::Mosaic>(&transform)) {
    set_if(o.mosaic_prob, m->prob);
    set_if(o.degrees, m->degrees);
    set_if(o.translate, m->translate);
    set_if(o.shear, m->shear);
    set_if(o.mosaic_scale, m->scale);
  } else if (auto* x = std::get_if<A::Mixup>(&transform)) {
    set_if(o.mixup_prob, x->prob);
    set_if(o.mixup_scale, x->scale);
  } else if (auto* h = std::get_if<A::Hsv>(&transform)) {
    set_if(o.hsv_prob, h->prob);
  } else if (auto* f = std::get_if<A::Flip>(&transform)) {
    set_if(o.flip_prob, f->prob);
  }
}

// Collects the first problem of one transform, with the pipeline's name for the message.
class Checker {
 public:
  Checker(const std::string& pipeline, const A::Transform& t) : pipeline_(pipeline), name_(transform_name(t)) {}

  void require(bool ok, const std::string& parameter, double value, const std::string& rule) const {
    if (ok) return;
    throw Error("invalid augmentation: " + name_ + " " + parameter + "=" + format_number(value) + " in pipeline '" +
                    pipeline_ + "'",
                "it must be " + rule, "fix the option that sets it (e.g. mosaic_prob=, flip_prob=) or the family's recipe");
  }
  void probability(const std::string& parameter, double p) const { require(p >= 0 && p <= 1, parameter, p, "in [0, 1]"); }
  void ordered(const std::string& parameter, const sdk::Range& r, double lowest) const {
    require(r.low >= lowest && r.high >= r.low, parameter, r.low, "a range low,high with " + format_number(lowest) + " <= low <= high");
  }
  void at_least(const std::string& parameter, double value, double lowest) const {
    require(value >= lowest, parameter, value, "at least " + format_number(lowest));
  }

 private:
  std::string pipeline_, name_;
};

void check_transform(const std::string& pipeline, const A::Transform& transform) {
  const Checker c(pipeline, transform);
  std::visit(
      [&](const auto& t) {
        using T = std::decay_t<decltype(t)>;
        if constexpr (std::is_same_v<T, A::Mosaic>) {
          c.probability("prob", t.prob);
          c.require(t.centre.low >= 0 && t.centre.high <= 2 && t.centre.low <= t.centre.high, "centre", t.centre.low,
                    "a range within [0, 2]");
          c.require(t.scale.low > 0 && t.scale.high >= t.scale.low, "scale", t.scale.low, "0 < low <= high");
          c.require(t.shear > -89 && t.shear < 89, "shear", t.shear, "an angle in degrees well below 90");
          c.at_least("min_box_side", t.min_box_side, 0);
        } else if constexpr (std::is_same_v<T, A::Mixup>) {
          c.probability("prob", t.prob);
          c.require(t.scale.low > 0 && t.scale.high >= t.scale.low, "scale", t.scale.low, "0 < low <= high");
          c.require(t.beta > 0, "beta", t.beta, "positive");
        } else if constexpr (std::is_same_v<T, A::Letterbox>) {
          c.require(t.pad_value >= 0 && t.pad_value <= 255, "pad_value", t.pad_value, "a byte, 0 to 255");
        } else if constexpr (std::is_same_v<T, A::Hsv>) {
          c.probability("prob", t.prob);
          c.require(t.hue_gain >= 0 && t.saturation_gain >= 0 && t.value_gain >= 0, "gain", t.hue_gain, "non-negative");
        } else if constexpr (std::is_same_v<T, A::Flip>) {
          c.probability("prob", t.prob);
        } else if constexpr (std::is_same_v<T, A::FilterBoxes>) {
          c.at_least("min_side", t.min_side, 0);
        } else if constexpr (std::is_same_v<T, A::PhotometricDistort>) {
          c.probability("prob", t.prob);
          c.ordered("brightness", t.brightness, 0);
          c.ordered("contrast", t.contrast, 0);
          c.ordered("saturation", t.saturation, 0);
          c.require(t.hue.low >= -0.5 && t.hue.high <= 0.5 && t.hue.low <= t.hue.high, "hue", t.hue.low,
                    "a range within [-0.5, 0.5]");
        } else if constexpr (std::is_same_v<T, A::ZoomOut>) {
          c.probability("prob", t.prob);
          c.ordered("side", t.side, 1);
          c.require(t.fill >= 0 && t.fill <= 255, "fill", t.fill, "a byte, 0 to 255");
        } else if constexpr (std::is_same_v<T, A::IoUCrop>) {
          c.probability("prob", t.prob);
          c.require(t.min_scale > 0 && t.max_scale <= 1 && t.min_scale <= t.max_scale, "min_scale", t.min_scale,
                    "0 < min_scale <= max_scale <= 1");
          c.require(t.min_aspect_ratio > 0 && t.max_aspect_ratio >= t.min_aspect_ratio, "min_aspect_ratio",
                    t.min_aspect_ratio, "0 < min <= max");
          c.require(!t.sampler_options.empty(), "sampler_options", 0, "a non-empty list");
          c.at_least("trials", t.trials, 1);
        } else if constexpr (std::is_same_v<T, A::SanitizeBoxes>) {
          c.at_least("min_size", t.min_size, 0);
        } else if constexpr (std::is_same_v<T, A::MaxLabels>) {
          c.at_least("count", t.count, 1);
        }
      },
      transform);
}

// The name of the last transform that sets the sample's size ("none"), and whether the sample
// then certainly is imgsz x imgsz: that transform must be a Letterbox or StretchResize, or a
// Mosaic that always applies. `plain` skips Mosaic and Mixup (beta_blend's second sample).
bool ends_at_output(const PreparedPipeline& p, bool plain, std::string& last) {
  last = "none";
  bool ends = false;
  for (const auto& transform : p.transforms) {
    if (std::holds_alternative<A::Letterbox>(transform) || std::holds_alternative<A::StretchResize>(transform)) {
      ends = true;
    } else if (const auto* m = std::get_if<A::Mosaic>(&transform); m && !plain) {
      ends = ends || m->prob >= 1.0;
    } else if (std::holds_alternative<A::ZoomOut>(transform) || std::holds_alternative<A::IoUCrop>(transform)) {
      ends = false;
    } else {
      continue;
    }
    last = transform_name(transform);
  }
  return ends;
}

bool has_beta_blend(const PreparedPipeline& p) {
  for (const auto& transform : p.transforms) {
    const auto* mixup = std::get_if<A::Mixup>(&transform);
    if (mixup && mixup->style == A::Mixup::Style::beta_blend && mixup->prob > 0) return true;
  }
  return false;
}

void check_ends_at_output(const PreparedPipeline& p) {
  std::string last;
  if (!ends_at_output(p, false, last)) {
    throw Error("augmentation pipeline '" + p.name + "' can end with a sample that is not imgsz x imgsz",
                "the last transform that sets the sample's size is " + last +
                    ", and a sample must fill one imgsz x imgsz slot of the batch",
                "end the pipeline with a Letterbox or StretchResize (after any Mosaic that may not apply, "
                "ZoomOut or IoUCrop)");
  }
  // beta_blend's second sample runs the pipeline without its Mosaic: it needs its own way there.
  if (has_beta_blend(p) && !ends_at_output(p, true, last)) {
    throw Error("augmentation pipeline '" + p.name + "' blends mixup with a sample that does not end at imgsz x imgsz",
                "a beta_blend Mixup's second sample goes through the pipeline without its Mosaic, and then " +
                    std::string(last == "none" ? "nothing" : last) + " sets its size",
                "add a Letterbox (or StretchResize) after the Mosaic");
  }
}

}  // namespace

PreparedPipeline prepare_pipeline(const sdk::augment::Pipeline& declared, int imgsz, const AugmentOverrides& overrides) {
  if (imgsz <= 0 || imgsz > 16384) {
    throw Error("augmentation at imgsz=" + std::to_string(imgsz), "imgsz must be between 1 and 16384", "pass a valid imgsz");
  }
  PreparedPipeline p{declared.name, imgsz, declared.transforms};
  for (auto& transform : p.transforms) {
    apply_overrides(transform, overrides);
    check_transform(p.name, transform);
  }
  check_ends_at_output(p);
  return p;
}

}  // namespace libreyolo::core::data
