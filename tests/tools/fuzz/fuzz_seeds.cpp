// fuzz_seeds DIR: writes the generated seed files of the fuzz corpus (docs/fuzzing.md) into
// DIR/image and DIR/pickle: small JPEGs and PNGs of the flavours the decoders handle, and the
// data.pkl of checkpoints written by our own pickle writer. Run once; the output is committed
// under tests/fuzz/. The text seeds (labels, data_yaml, cfg) are written by hand.

#include <torch/torch.h>

#include <iostream>

#include "data/data_test_support.hpp"
#include "libreyolo/core/checkpoint/checkpoint_schema.hpp"
#include "libreyolo/core/checkpoint/pickle_writer.hpp"

namespace fs = std::filesystem;
namespace ck = libreyolo::core::checkpoint;
using namespace libreyolo::test;

namespace {

std::vector<std::uint8_t> gradient(int width, int height, int components) {
  std::vector<std::uint8_t> samples(static_cast<std::size_t>(width) * height * components);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<std::uint8_t>(i * 37 % 251);
  return samples;
}

void write_images(const fs::path& dir) {
  write_bytes(dir / "rgb.jpg", encode_jpeg(16, 12, 3, gradient(16, 12, 3)));
  write_bytes(dir / "gray.jpg", encode_jpeg(9, 7, 1, gradient(9, 7, 1)));
  write_bytes(dir / "exif_rotated.jpg", encode_jpeg(8, 4, 3, gradient(8, 4, 3), exif_app1(6)));
  write_bytes(dir / "cmyk.jpg", encode_jpeg(4, 4, 4, gradient(4, 4, 4)));
  write_bytes(dir / "rgb.png", encode_png(PngSpec(8, 6, PNG_COLOR_TYPE_RGB, 8), gradient(8, 6, 3)));
  PngSpec interlaced(9, 9, PNG_COLOR_TYPE_RGB_ALPHA, 8);
  interlaced.interlaced = true;
  write_bytes(dir / "rgba_interlaced.png", encode_png(interlaced, gradient(9, 9, 4)));
  PngSpec bilevel(10, 3, PNG_COLOR_TYPE_GRAY, 1);
  write_bytes(dir / "gray_1bit.png", encode_png(bilevel, std::vector<std::uint8_t>(6, 0xA5)));
  PngSpec palette(4, 4, PNG_COLOR_TYPE_PALETTE, 8);
  palette.palette = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  palette.palette_alpha = {255, 128};
  write_bytes(dir / "palette.png", encode_png(palette, std::vector<std::uint8_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}));
}

ck::Checkpoint small_checkpoint(bool with_training_state) {
  ck::Checkpoint c;
  c.metadata.model_family = "example";
  c.metadata.size = "n";
  c.metadata.nc = 2;
  c.metadata.names = {"cat", "dog"};
  c.metadata.imgsz = 64;
  c.model.insert("conv.weight", torch::arange(6, torch::kFloat32).reshape({2, 3}));
  c.model.insert("bn.num_batches_tracked", torch::tensor(int64_t{3}));
  if (!with_training_state) return c;
  ck::TrainState t;
  t.epoch = 1;
  t.global_step = 8;
  t.best_fitness = 0.25;
  t.train_model = c.model;
  t.ema = ck::EmaState{c.model, 8};
  t.optimizer.name = "SGD";
  t.optimizer.step = 8;
  ck::StateDict buffers;
  buffers.insert("momentum_buffer", torch::ones({2, 3}));
  t.optimizer.params.insert("conv.weight", buffers);
  t.rng.seed = 5;
  t.rng.cpu_state = torch::zeros({16}, torch::kUInt8);
  t.options = {{"epochs", "3"}, {"batch", "2"}};
  c.train = t;
  return c;
}

void write_pickles(const fs::path& dir) {
  for (const bool training : {false, true}) {
    const auto root = ck::encode_checkpoint(small_checkpoint(training), "seed");
    const std::string pickle = ck::write_pickle(*root).pickle;
    write_bytes(dir / (training ? "training_checkpoint.pkl" : "weights_only.pkl"),
                std::vector<std::uint8_t>(pickle.begin(), pickle.end()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_seeds DIR (writes DIR/image and DIR/pickle)\n";
    return 2;
  }
  const fs::path dir = argv[1];
  write_images(dir / "image");
  write_pickles(dir / "pickle");
  std::cout << "seeds written to " << (dir / "image").string() << " and " << (dir / "pickle").string() << "\n";
  return 0;
}
