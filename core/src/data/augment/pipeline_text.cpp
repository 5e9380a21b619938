#include "libreyolo/core/data/augment/pipeline_text.hpp"

#include <cstdio>
#include <type_traits>

namespace libreyolo::core::data {
namespace {

namespace A = sdk::augment;

std::string range(const sdk::Range& r) { return format_number(r.low) + "-" + format_number(r.high); }

struct Names {
  const char* operator()(const A::Mosaic&) const { return "Mosaic"; }
  const char* operator()(const A::Mixup&) const { return "Mixup"; }
  const char* operator()(const A::Letterbox&) const { return "Letterbox"; }
  const char* operator()(const A::Hsv&) const { return "Hsv"; }
  const char* operator()(const A::Flip&) const { return "Flip"; }
  const char* operator()(const A::FilterBoxes&) const { return "FilterBoxes"; }
  const char* operator()(const A::PhotometricDistort&) const { return "PhotometricDistort"; }
  const char* operator()(const A::ZoomOut&) const { return "ZoomOut"; }
  const char* operator()(const A::IoUCrop&) const { return "IoUCrop"; }
  const char* operator()(const A::SanitizeBoxes&) const { return "SanitizeBoxes"; }
  const char* operator()(const A::StretchResize&) const { return "StretchResize"; }
  const char* operator()(const A::MaxLabels&) const { return "MaxLabels"; }
};

struct Parameters {
  std::string operator()(const A::Mosaic& t) const {
    std::string text = "prob " + format_number(t.prob) + ", " +
                       (t.warp == A::Mosaic::Warp::random_affine ? "random affine" : "half resize") + ", centre " +
                       range(t.centre) + (t.upscale_tiles ? ", small tiles enlarged" : "");
    if (t.min_box_side > 0) text += ", boxes > " + format_number(t.min_box_side) + " px";
    if (t.warp == A::Mosaic::Warp::random_affine) {
      text += ", degrees " + format_number(t.degrees) + ", translate " + format_number(t.translate) + ", scale " +
              range(t.scale) + ", shear " + format_number(t.shear);
    }
    return text;
  }
  std::string operator()(const A::Mixup& t) const {
    return "prob " + format_number(t.prob) + ", " +
           (t.style == A::Mixup::Style::paste ? "paste, scale " + range(t.scale)
                                              : "beta blend, Beta(" + format_number(t.beta) + ", " + format_number(t.beta) + ")");
  }
  std::string operator()(const A::Letterbox& t) const {
    return std::string(t.placement == A::Letterbox::Placement::top_left ? "top-left" : "centred") + ", pad " +
           std::to_string(t.pad_value);
  }
  std::string operator()(const A::Hsv& t) const {
    return "prob " + format_number(t.prob) + ", gains " + format_number(t.hue_gain) + "/" +
           format_number(t.saturation_gain) + "/" + format_number(t.value_gain);
  }
  std::string operator()(const A::Flip& t) const { return "prob " + format_number(t.prob); }
  std::string operator()(const A::FilterBoxes& t) const { return "keep w, h > " + format_number(t.min_side); }
  std::string operator()(const A::PhotometricDistort& t) const {
    return "prob " + format_number(t.prob) + ", brightness " + range(t.brightness) + ", contrast " + range(t.contrast) +
           ", saturation " + range(t.saturation) + ", hue " + range(t.hue) + skip(t.skip_without_boxes);
  }
  std::string operator()(const A::ZoomOut& t) const {
    return "prob " + format_number(t.prob) + ", side " + range(t.side) + ", fill " + std::to_string(t.fill) +
           skip(t.skip_without_boxes);
  }
  std::string operator()(const A::IoUCrop& t) const {
    std::string options;
    for (const double o : t.sampler_options) options += (options.empty() ? "" : ",") + format_number(o);
    return "prob " + format_number(t.prob) + ", scale " + format_number(t.min_scale) + "-" + format_number(t.max_scale) +
           ", aspect " + format_number(t.min_aspect_ratio) + "-" + format_number(t.max_aspect_ratio) + ", IoU options " +
           options + ", " + std::to_string(t.trials) + " trials" + skip(t.skip_without_boxes);
  }
  std::string operator()(const A::SanitizeBoxes& t) const { return "keep w, h >= " + format_number(t.min_size); }
  std::string operator()(const A::StretchResize& t) const { return t.antialias ? "antialiased" : "not antialiased"; }
  std::string operator()(const A::MaxLabels& t) const { return std::to_string(t.count); }

  static std::string skip(bool without_boxes) { return without_boxes ? ", skips images without boxes" : ""; }
};

}  // namespace

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string transform_name(const A::Transform& transform) { return std::visit(Names{}, transform); }

std::string describe_transform(const A::Transform& transform) {
  return transform_name(transform) + "(" + std::visit(Parameters{}, transform) + ")";
}

std::string describe_pipeline(const A::Pipeline& pipeline) {
  std::string text = pipeline.name + ":";
  for (std::size_t i = 0; i < pipeline.transforms.size(); ++i) {
    text += (i ? " -> " : " ") + describe_transform(pipeline.transforms[i]);
  }
  return text;
}

}  // namespace libreyolo::core::data
