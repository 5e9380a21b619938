#include <cstring>

#include "pipeline_stages.hpp"

namespace libreyolo::core::data::pipeline {

WorkingSample::WorkingSample(StageContext& c, const SampleView& sample, std::vector<PixelBox>& boxes)
    : context_(c), boxes_(boxes), fetched_(true), source_view_(sample.image) {
  boxes_ = sample.boxes;
}

void WorkingSample::fetch() {
  if (fetched_) return;
  SampleView sample = context_.source.sample(context_.index, 0);
  source_view_ = sample.image;
  boxes_ = std::move(sample.boxes);
  fetched_ = true;
}

ImageView WorkingSample::pixels() {
  fetch();
  switch (where_) {
    case Where::source: return source_view_;
    case Where::work: return ImageView::of(*work_);
    case Where::output: break;
  }
  return {context_.out.width, context_.out.height, context_.out.pixels};
}

std::vector<PixelBox>& WorkingSample::boxes() {
  fetch();
  return boxes_;
}

MutableImageView WorkingSample::writable() {
  fetch();
  if (where_ == Where::output) return context_.out;
  if (where_ == Where::source) {
    Image& copy = spare();
    copy.width = source_view_.width;
    copy.height = source_view_.height;
    copy.pixels.resize(static_cast<std::size_t>(copy.width) * copy.height * 3);
    std::memcpy(copy.pixels.data(), source_view_.pixels, copy.pixels.size());
    placed_in(copy);
  }
  return {work_->width, work_->height, work_->pixels.data()};
}

Image& WorkingSample::spare() {
  Image* work = context_.scratch.work;
  return work_ == &work[0] ? work[1] : work[0];
}

void WorkingSample::placed_in(Image& image) {
  fetched_ = true;
  where_ = Where::work;
  work_ = &image;
}

std::vector<PixelBox>& WorkingSample::replace() {
  fetched_ = true;
  return boxes_;
}

void WorkingSample::placed_at_output(int content_w, int content_h) {
  fetched_ = true;
  where_ = Where::output;
  content_width_ = content_w;
  content_height_ = content_h;
}

}  // namespace libreyolo::core::data::pipeline
