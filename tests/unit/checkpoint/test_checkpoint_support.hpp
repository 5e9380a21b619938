#pragma once
// Shared helpers for the checkpoint tests: a small model (Conv2d + BatchNorm2d + Linear), a
// filled checkpoint, raw file access and a writer for hand-made (bad) checkpoint files.

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "../torch_doctest.hpp"
#include "libreyolo/core/checkpoint/atomic_file.hpp"
#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/checkpoint/torch_archive.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::test::checkpoint {

namespace ck = libreyolo::core::checkpoint;

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl(int64_t classes = 3)
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)))),
        bn(register_module("bn", torch::nn::BatchNorm2d(4))),
        head(register_module("head", torch::nn::Linear(4, classes))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn(conv(x)));
    return head(x.mean({2, 3}));
  }
  torch::nn::Conv2d conv;
  torch::nn::BatchNorm2d bn;
  torch::nn::Linear head;
};
TORCH_MODULE(TinyNet);

// A trained-looking TinyNet: random weights and non-trivial BatchNorm statistics.
inline TinyNet trained_net(int64_t classes = 3, uint64_t seed = 7) {
  torch::manual_seed(seed);
  TinyNet net(classes);
  net->train();
  for (int i = 0; i < 3; ++i) net->forward(torch::randn({2, 3, 8, 8}));
  return net;
}

inline ck::Checkpoint sample_checkpoint(const TinyNet& net) {
  ck::Checkpoint c;
  c.metadata.model_family = "yolo9";
  c.metadata.size = "t";
  c.metadata.nc = 3;
  c.metadata.names = {"cat", "dog", "person"};
  c.metadata.imgsz = 640;
  c.model = ck::state_dict_of(*net);
  return c;
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes any PickleValue tree as a torch.save-style file (for files LibreYOLO or a user
// could have made, valid or not).
inline void write_archive(const std::filesystem::path& path, const ck::PickleRef& root) {
  ck::write_file_atomically(path, [&](ck::AtomicFileWriter& out) {
    ck::write_torch_archive(*root, [&](const void* d, std::size_t n) { out.write(d, n); });
  });
}

// Same dtype, shape and bytes: "bit-exact", NaNs included.
inline bool bit_equal(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  auto ca = a.contiguous().cpu();
  auto cb = b.contiguous().cpu();
  return ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

inline bool bit_equal(const ck::StateDict& a, const ck::StateDict& b) {
  if (a.keys() != b.keys()) return false;
  for (const auto& item : a) {
    if (!bit_equal(item.value(), b[item.key()])) return false;
  }
  return true;
}

// The metadata dict of a valid v1.0 checkpoint, for tests that then break one key.
inline ck::PickleRef valid_root() {
  using V = ck::PickleValue;
  auto model = V::dict(true);
  model->set("conv.weight", V::tensor_value(torch::ones({2, 2})));
  auto names = V::dict();
  names->set(V::int_value(0), V::string("a"));
  names->set(V::int_value(1), V::string("b"));
  auto root = V::dict();
  root->set("model", model);
  root->set("schema_version", V::string("1.0"));
  root->set("libreyolo_version", V::string("1.2.0"));
  root->set("model_family", V::string("yolo9"));
  root->set("size", V::string("s"));
  root->set("task", V::string("detect"));
  root->set("nc", V::int_value(2));
  root->set("names", names);
  root->set("imgsz", V::int_value(640));
  return root;
}

}  // namespace libreyolo::test::checkpoint
