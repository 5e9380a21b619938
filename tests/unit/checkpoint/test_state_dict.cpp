// state_dict_of names and orders tensors like PyTorch's Module.state_dict();
// load_state_dict_into reports every problem at once (strict) or skips them (not strict).

#include "test_checkpoint_support.hpp"

namespace ck = libreyolo::core::checkpoint;
using namespace libreyolo::test::checkpoint;
using libreyolo::core::Error;

namespace {

// Nested modules with a Sequential, as families build them.
struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    cv = register_module("cv", torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(2, 2, 1)),
                                                     torch::nn::BatchNorm2d(2)));
    register_buffer("anchors", torch::zeros({3}));
  }
  torch::nn::Sequential cv{nullptr};
};
TORCH_MODULE(Block);

struct NestedImpl : torch::nn::Module {
  NestedImpl() {
    scale = register_parameter("scale", torch::ones({1}));
    backbone = register_module("backbone", Block());
  }
  torch::Tensor scale;
  Block backbone{nullptr};
};
TORCH_MODULE(Nested);

}  // namespace

TEST_CASE("state_dict_of matches PyTorch's names and order") {
  Nested net;
  const auto state = ck::state_dict_of(*net);
  // Python: own parameters, own buffers, then children depth-first.
  CHECK(state.keys() == std::vector<std::string>{"scale", "backbone.anchors", "backbone.cv.0.weight",
                                                   "backbone.cv.0.bias", "backbone.cv.1.weight", "backbone.cv.1.bias",
                                                   "backbone.cv.1.running_mean", "backbone.cv.1.running_var",
                                                   "backbone.cv.1.num_batches_tracked"});
  CHECK_FALSE(state["scale"].requires_grad());  // detached, like state_dict()
  // Detached but not copied: it is the live tensor's data.
  CHECK(state["scale"].data_ptr() == net->scale.data_ptr());

  const auto persistent = ck::state_dict_of(*net, [](const std::string& name) { return name.find("anchors") != std::string::npos; });
  CHECK(persistent.size() == 8);
  CHECK(persistent.find("backbone.anchors") == nullptr);

  // A Conv2d without bias has no "bias" key (PyTorch skips None parameters).
  TinyNet tiny;
  CHECK(ck::state_dict_of(*tiny).find("conv.bias") == nullptr);
}

TEST_CASE("strict loading lists missing, unexpected and mismatched keys in one error") {
  TinyNet net = trained_net(3);
  ck::StateDict state = ck::state_dict_of(*trained_net(5));  // head has 5 classes
  state.erase("bn.running_var");
  state.insert("extra.weight", torch::zeros({1}));
  const auto before = ck::state_dict_of(*net)["conv.weight"].clone();
  try {
    ck::load_state_dict_into(*net, state, /*strict=*/true, "yolo9t.pt");
    FAIL("no error");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("yolo9t.pt") != std::string::npos);
    CHECK(message.find("1 missing (bn.running_var)") != std::string::npos);
    CHECK(message.find("1 unexpected (extra.weight)") != std::string::npos);
    CHECK(message.find("head.weight: model [3, 4], weights [5, 4]") != std::string::npos);
    CHECK(message.find("head.bias: model [3], weights [5]") != std::string::npos);
  }
  // Nothing was changed.
  CHECK(torch::equal(ck::state_dict_of(*net)["conv.weight"], before));
}

TEST_CASE("non-strict loading skips the mismatched head and loads the rest") {
  TinyNet source = trained_net(80, 3);
  TinyNet target = trained_net(3, 4);
  const auto head_before = target->head->weight.clone();
  const auto report = ck::load_state_dict_into(*target, ck::state_dict_of(*source), /*strict=*/false);
  CHECK(report.loaded == 6);
  CHECK(report.mismatched.size() == 2);
  CHECK(report.skipped() == std::vector<std::string>{"head.weight", "head.bias"});
  CHECK(torch::equal(target->conv->weight, source->conv->weight));
  CHECK(torch::equal(target->bn->running_var, source->bn->running_var));
  CHECK(target->bn->num_batches_tracked.item<int64_t>() == 3);
  CHECK(torch::equal(target->head->weight, head_before));
  CHECK(report.loaded + report.skipped().size() == 8);
}

TEST_CASE("loading keeps the module's dtype and channels-last layout") {
  TinyNet net;
  net->to(torch::kDouble);
  net->conv->weight.set_data(net->conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  const auto state = ck::state_dict_of(*trained_net());  // float32, row-major
  CHECK(ck::load_state_dict_into(*net, state, true).complete());
  CHECK((net->conv->weight.scalar_type() == torch::kDouble));
  CHECK(net->conv->weight.is_contiguous(torch::MemoryFormat::ChannelsLast));
  CHECK(torch::allclose(net->conv->weight.to(torch::kFloat), state["conv.weight"]));
}
