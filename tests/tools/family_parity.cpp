// Test tool for the parity procedure (docs/parity.md): runs the host's model of any family on
// inputs prepared by tests/python/<family>_parity.py (yolo9_parity.py, yolox_parity.py) and
// writes what it computed, so that the script can compare it with LibreYOLO's own model, loss
// and predict.
//
// The family comes from the checkpoint (LibreYOLO's metadata `model_family`, else recognised from
// its state-dict keys) and is loaded from the family plugins as libreyolo-host loads them
// (--plugin-dir, $LIBREYOLO_PLUGIN_PATH, lib/libreyolo/families next to this binary): the
// detector, criterion and FamilyInfo (input format, multi-label NMS) are the family's own.
//
// Files in and out are torch.save-compatible zip archives holding one dict (read and written
// with the host's own pickle codec), so Python reads them with torch.load and writes them with
// torch.save.
//
//   family_parity forward --weights W.pt --input IN.pt --output OUT.pt [options]
//     IN:  images  [B, 3, H, W] float32, already as the network takes them (FamilyInfo::input:
//                  yolo9 RGB 0..1, yolox BGR 0..255)
//          targets [B, M, 5] float32 (class, cx, cy, w, h in input pixels; padding rows zero)
//          counts  [B] int64 (real rows of targets per image)
//     OUT: family, size (str), nc (int)
//          raw_eval  [levels x [B, C, H/s, W/s]]  head outputs, BatchNorm in eval mode
//          boxes_eval [B, N, 4], scores_eval [B, N, nc]  Detector::decode of raw_eval
//          loss_eval_{total,<components>}  the criterion on raw_eval
//          raw_train [levels x ...]  head outputs, BatchNorm in train mode (batch statistics)
//          loss_train_{total,<components>}  the criterion on raw_train (what training uses)
//          loss_noaug_eval_*, loss_noaug_train_*  the same two after every detector_event of
//            the recipe's epoch schedule (the final no-augmentation epochs: YOLOX's L1 term on;
//            families without such events give the same values)
//          component names: yolo9 box, cls, dfl; yolox iou, obj, cls, l1.
//
//   family_parity predict --weights W.pt --input IN.pt --output OUT.pt --conf C --iou I
//                         [--max-det 300] [--best-class | --multi-label] [--batch 8] [options]
//     IN:  imgsz int, and either
//            images_u8 [N, imgsz, imgsz, 3] uint8 (letterboxed RGB) + orig_sizes [N, 2] int64 (w, h)
//          or
//            paths [str, ...]: the host's validation preprocessing (decode + resize as the
//            image cache does, letterbox top-left with 114) runs here on each file.
//     OUT: detections [K, 6] float32 (x1, y1, x2, y2 in original pixels, score, class),
//          counts [N] int64 (detections per image, in input order, each highest score first),
//          orig_sizes [N, 2] int64, postprocess (str), and images_u8 when this tool
//          preprocessed the images.
//     Input: to_network_input with the family's InputFormat, as the validator does.
//     Post-processing: core::eval::postprocess_detections as the host's val runs it, multi-label
//     as FamilyInfo::multi_label_nms says (yolo9: every (anchor, class) pair above conf, then
//     per-class NMS; yolox: each anchor's best class); --best-class / --multi-label force one.
//
// Options: --device cpu|cuda|cuda:N (default cpu), --allow-tf32 (default off: float32 parity),
// --contiguous (NCHW contiguous input instead of the host's channels-last), --plugin-dir DIR.
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/pickle_value.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/checkpoint/torch_archive.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/augment/stretch_resize.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/eval/nms.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/size_from_weights.hpp"
#include "libreyolo/core/trainer/validator.hpp"
#include "libreyolo/sdk/criterion.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "libreyolo/sdk/family.hpp"
#include "libreyolo/sdk/targets.hpp"

namespace {

namespace ckpt = libreyolo::core::checkpoint;
namespace data = libreyolo::core::data;
namespace eval = libreyolo::core::eval;
namespace plugins = libreyolo::core::plugins;
namespace trainer = libreyolo::core::trainer;
namespace sdk = libreyolo::sdk;
using ckpt::PickleRef;
using ckpt::PickleValue;

constexpr const char* kUsage =
    "usage: family_parity forward --weights W.pt --input IN.pt --output OUT.pt [--device D]\n"
    "       family_parity predict --weights W.pt --input IN.pt --output OUT.pt --conf C --iou I\n"
    "                             [--max-det 300] [--best-class | --multi-label] [--batch 8] [--device D]\n"
    "options: --device cpu|cuda|cuda:N, --allow-tf32, --contiguous, --plugin-dir DIR (see the file's header)\n";

struct Args {
  std::string command;
  std::map<std::string, std::string> values;
  bool flag(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const {
    const auto it = values.find(name);
    if (it != values.end()) return it->second;
    if (fallback.empty()) throw std::runtime_error("missing --" + name + "\n" + kUsage);
    return fallback;
  }
};

Args parse_args(int argc, char** argv) {
  if (argc < 2) throw std::runtime_error(kUsage);
  Args args;
  args.command = argv[1];
  const std::vector<std::string> flags = {"best-class", "multi-label", "allow-tf32", "contiguous"};
  for (int i = 2; i < argc; ++i) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0) throw std::runtime_error("unexpected argument " + key + "\n" + kUsage);
    key = key.substr(2);
    if (std::find(flags.begin(), flags.end(), key) != flags.end()) {
      args.values[key] = "1";
    } else {
      if (i + 1 >= argc) throw std::runtime_error("--" + key + " needs a value");
      args.values[key] = argv[++i];
    }
  }
  return args;
}

// ---- the interchange file: one dict ----

const PickleValue& entry(const PickleValue& root, const std::string& key) {
  const PickleRef* found = root.find(key);
  if (found == nullptr) throw std::runtime_error("input file has no key '" + key + "'");
  return **found;
}

torch::Tensor tensor_entry(const PickleValue& root, const std::string& key) {
  const auto& value = entry(root, key);
  if (!value.is(PickleValue::Kind::Tensor)) throw std::runtime_error("'" + key + "' is not a tensor");
  return value.tensor;
}

void write_dict(const std::string& path, const PickleRef& root) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  ckpt::write_torch_archive(*root, [&](const void* bytes, std::size_t size) {
    out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
  });
  out.close();
  if (!out) throw std::runtime_error("error while writing " + path);
}

PickleRef tensor_node(const torch::Tensor& t) {
  return PickleValue::tensor_value(t.detach().to(torch::kCPU).contiguous().clone());
}

PickleRef tensor_list(const std::vector<torch::Tensor>& tensors) {
  std::vector<PickleRef> items;
  for (const auto& t : tensors) items.push_back(tensor_node(t));
  return PickleValue::list(std::move(items));
}

// ---- the model ----

// A LibreYOLO checkpoint names its family, size and class count; a bare state dict is
// recognised from its keys, as LibreYOLO's can_load / detect_size / detect_nb_classes do.
struct KeyFacts {
  std::string family, size;
  int64_t nc = 0;
};

KeyFacts facts_from_keys(const ckpt::StateDict& state) {
  KeyFacts facts;
  if (const auto* stem = state.find("backbone.backbone.stem.conv.conv.weight")) {
    facts.family = "yolox";
    const std::map<int64_t, std::string> sizes{{16, "n"}, {24, "t"}, {32, "s"}, {48, "m"}, {64, "l"}, {80, "x"}};
    const auto it = sizes.find(stem->size(0));
    if (it != sizes.end()) facts.size = it->second;
    if (const auto* cls = state.find("head.cls_preds.0.weight")) facts.nc = cls->size(0);
  } else if (const auto* conv0 = state.find("backbone.conv0.conv.weight")) {
    facts.family = "yolo9";
    const auto first = conv0->size(0);
    if (first == 16) facts.size = "t";
    if (first == 64) facts.size = "c";
    const auto* elan1 = state.find("backbone.elan1.cv1.conv.weight");
    if (first == 32 && elan1 != nullptr) facts.size = elan1->size(0) == 64 ? "s" : "m";
    if (const auto* last = state.find("head.cv3.0.2.weight")) facts.nc = last->size(0);
  } else if (const auto* rtm_cls = state.find("head.rtm_cls.0.weight")) {
    facts.family = "rtmdet";  // its size: the family's size_signature (load_model)
    facts.nc = rtm_cls->size(0);
  }
  return facts;
}

// The plugins stay loaded until the process exits (FamilyRegistry never unloads).
const plugins::FamilyRegistry& registry(const Args& args) {
  static const plugins::FamilyRegistry loaded = [&] {
    std::vector<std::filesystem::path> explicit_dirs;
    if (args.flag("plugin-dir")) explicit_dirs.emplace_back(args.get("plugin-dir"));
    return plugins::load_plugins(plugins::plugin_search_path(explicit_dirs, std::getenv("LIBREYOLO_PLUGIN_PATH"),
                                                             plugins::executable_dir()));
  }();
  return loaded;
}

struct Model {
  const plugins::LoadedFamily* family = nullptr;
  std::string size;
  int64_t nc = 0;
  std::shared_ptr<sdk::Detector> detector;
};

Model load_model(const Args& args, const torch::Device& device) {
  const std::string path = args.get("weights");
  ckpt::LoadOptions options;
  options.require_metadata = false;
  const auto checkpoint = ckpt::load_checkpoint(path, options);
  const auto facts = facts_from_keys(checkpoint.model);
  std::string name = checkpoint.metadata.model_family.empty() ? facts.family : checkpoint.metadata.model_family;
  Model model;
  model.nc = checkpoint.metadata.nc > 0 ? checkpoint.metadata.nc : facts.nc;
  if (name.empty()) throw std::runtime_error(path + ": cannot tell the family");
  model.family = &registry(args).require(name);
  // As libreyolo-host decides it: the family's size signature, else the metadata.
  model.size = plugins::size_from_weights(model.family->info, checkpoint, path);
  if (model.size.empty()) model.size = facts.size;
  if (model.size.empty() || model.nc <= 0) throw std::runtime_error(path + ": cannot tell the size / class count");
  sdk::ModelSpec spec;
  spec.size = model.size;
  spec.num_classes = static_cast<int>(model.nc);
  model.detector = model.family->family->create_detector(spec);
  ckpt::load_state_dict_into(*model.detector, checkpoint.model, /*strict=*/true, path);
  model.detector->to(device, torch::kFloat32);
  std::cerr << "family_parity: " << path << ": " << name << model.size << ", nc " << model.nc << ", "
            << checkpoint.model.size() << " tensors, plugin " << model.family->file.string() << ", device "
            << device << "\n";
  return model;
}

torch::Tensor prepare(const torch::Tensor& images, const torch::Device& device, bool contiguous) {
  auto x = images.to(device, torch::kFloat32);
  return contiguous ? x.contiguous() : x.contiguous(torch::MemoryFormat::ChannelsLast);
}

void put_loss(PickleValue& root, const std::string& prefix, const sdk::LossOutput& loss) {
  root.set(prefix + "total", PickleValue::float_value(loss.total.item<double>()));
  for (const auto& [name, value] : loss.components)
    root.set(prefix + name, PickleValue::float_value(value.item<double>()));
}

void put_info(PickleValue& root, const Model& model) {
  root.set("family", PickleValue::string(model.family->info.name));
  root.set("size", PickleValue::string(model.size));
  root.set("nc", PickleValue::int_value(model.nc));
}

int run_forward(const Args& args, const torch::Device& device) {
  auto model = load_model(args, device);
  auto& detector = *model.detector;
  const PickleRef input = ckpt::read_torch_archive(args.get("input"));
  const bool contiguous = args.flag("contiguous");
  const auto images = prepare(tensor_entry(*input, "images"), device, contiguous);
  sdk::Targets targets;
  targets.boxes = tensor_entry(*input, "targets").to(device, torch::kFloat32);
  targets.counts = tensor_entry(*input, "counts").to(device, torch::kLong);
  sdk::CriterionSpec spec;
  spec.num_classes = static_cast<int>(model.nc);
  spec.imgsz = static_cast<int>(images.size(3));
  auto criterion = model.family->family->create_criterion(detector, spec);

  torch::NoGradGuard no_grad;
  auto out = PickleValue::dict();
  put_info(*out, model);

  detector.eval();
  const auto raw_eval = detector.forward_remainder(detector.forward_capturable(images), nullptr);
  const auto candidates = detector.decode(raw_eval);
  out->set("raw_eval", tensor_list(raw_eval));
  out->set("boxes_eval", tensor_node(candidates.boxes));
  out->set("scores_eval", tensor_node(candidates.scores));

  detector.train();
  const auto raw_train = detector.forward_remainder(detector.forward_capturable(images), &targets);
  out->set("raw_train", tensor_list(raw_train));

  // The training phase the criterion sees: first as training starts, then after every change
  // of the recipe's epoch schedule has reached the detector (the final no-augmentation epochs:
  // YOLOX's L1 term; the criterion reads the switch per call).
  put_loss(*out, "loss_eval_", (*criterion)(raw_eval, targets, images));
  put_loss(*out, "loss_train_", (*criterion)(raw_train, targets, images));
  for (const auto& change : model.family->family->recipe(model.size).schedule) {
    if (!change.detector_event.empty()) detector.on_scheduled_change(change.detector_event);
  }
  put_loss(*out, "loss_noaug_eval_", (*criterion)(raw_eval, targets, images));
  put_loss(*out, "loss_noaug_train_", (*criterion)(raw_train, targets, images));

  out->set("device", PickleValue::string(device.str()));
  write_dict(args.get("output"), out);
  return 0;
}

// The host's validation preprocessing of one file (ValSampleMaker over the uncached image
// source): the image source's resize to long side imgsz, then letterbox top-left with 114, or
// for families that declare it, a stretch to the square (bilinear, no antialiasing).
torch::Tensor host_preprocess(const std::string& path, int imgsz, sdk::EvalResize resize, data::ImageSize& original) {
  original = data::read_image_size(path);
  const auto resized = data::load_resized_image(path, original, imgsz);
  auto out = torch::empty({imgsz, imgsz, 3}, torch::kUInt8);
  data::MutableImageView view{imgsz, imgsz, out.data_ptr<std::uint8_t>()};
  if (resize == sdk::EvalResize::stretch) {
    std::vector<data::PixelBox> no_boxes;
    data::InterpolateScratch scratch;
    data::stretch_resize(data::ImageView::of(resized), sdk::augment::StretchResize{false}, view, no_boxes, scratch);
    return out;
  }
  data::ResizeScratch scratch;
  data::letterbox(data::ImageView::of(resized), imgsz, view, data::LetterboxPad::top_left, scratch, 114);
  return out;
}

// The images to predict on: files preprocessed here as the host's validation does, or tensors
// the Python side preprocessed.
struct PredictInput {
  torch::Tensor images_u8, orig_sizes;
  bool preprocessed_here = false;
};

PredictInput read_predict_input(const PickleValue& input, int imgsz, sdk::EvalResize resize) {
  PredictInput out;
  if (input.find("paths") != nullptr) {
    std::vector<torch::Tensor> images;
    std::vector<int64_t> sizes;
    for (const auto& item : entry(input, "paths").items) {
      data::ImageSize original;
      images.push_back(host_preprocess(item->text, imgsz, resize, original));
      sizes.push_back(original.width);
      sizes.push_back(original.height);
    }
    out.images_u8 = torch::stack(images);
    out.orig_sizes = torch::tensor(sizes, torch::kLong).view({-1, 2});
    out.preprocessed_here = true;
  } else {
    out.images_u8 = tensor_entry(input, "images_u8").to(torch::kUInt8).contiguous();
    out.orig_sizes = tensor_entry(input, "orig_sizes").to(torch::kLong).contiguous();
  }
  TORCH_CHECK(out.images_u8.dim() == 4 && out.images_u8.size(1) == imgsz && out.images_u8.size(2) == imgsz &&
                  out.images_u8.size(3) == 3,
              "images_u8 must be [N, imgsz, imgsz, 3], got ", out.images_u8.sizes());
  return out;
}

int run_predict(const Args& args, const torch::Device& device) {
  auto model = load_model(args, device);
  auto& detector = *model.detector;
  const sdk::FamilyInfo& info = model.family->info;
  const PickleRef input = ckpt::read_torch_archive(args.get("input"));
  const auto& imgsz_node = entry(*input, "imgsz");
  if (!imgsz_node.is(PickleValue::Kind::Int)) throw std::runtime_error("'imgsz' must be an int");
  const int imgsz = static_cast<int>(imgsz_node.integer);
  const auto [images_u8, orig_sizes, preprocessed_here] = read_predict_input(*input, imgsz, info.eval_resize);

  eval::NmsOptions nms;
  nms.conf = std::stof(args.get("conf"));
  nms.iou = std::stof(args.get("iou"));
  nms.max_det = std::stoi(args.get("max-det", "300"));
  // The family's own post-processing (FamilyInfo::multi_label_nms: yolo9 multi-label, yolox
  // best class per anchor); --best-class / --multi-label force one, to show what it changes.
  if (args.flag("best-class") && args.flag("multi-label"))
    throw std::runtime_error("--best-class and --multi-label exclude each other");
  const bool multi_label = args.flag("multi-label") || (info.multi_label_nms && !args.flag("best-class"));
  nms.multi_label = multi_label;
  nms.max_candidates = info.nms_candidates;
  nms.suppress = info.suppression == sdk::Suppression::class_nms;
  const auto resize = info.eval_resize;
  const int64_t batch = std::stoll(args.get("batch", "8"));
  const bool contiguous = args.flag("contiguous");
  const sdk::InputFormat& format = info.input;  // yolo9: RGB / 255; yolox: BGR 0-255

  torch::NoGradGuard no_grad;
  detector.eval();
  const int64_t n = images_u8.size(0);
  std::vector<torch::Tensor> rows;
  std::vector<int64_t> counts;
  for (int64_t start = 0; start < n; start += batch) {
    const int64_t count = std::min(batch, n - start);
    auto x = data::to_network_input(images_u8.narrow(0, start, count).to(device), format);
    if (contiguous) x = x.contiguous();
    const auto candidates = detector.decode(detector.forward_remainder(detector.forward_capturable(x), nullptr));
    std::vector<eval::InputToOriginal> mapping;
    for (int64_t i = start; i < start + count; ++i) {
      const data::ImageSize size{static_cast<int>(orig_sizes[i][0].item<int64_t>()),
                                 static_cast<int>(orig_sizes[i][1].item<int64_t>())};
      mapping.push_back(trainer::input_to_original(size, imgsz, resize));
    }
    const auto per_image = eval::postprocess_detections(candidates.boxes, candidates.scores, mapping, nms);
    for (const auto& dets : per_image) {
      counts.push_back(static_cast<int64_t>(dets.size()));
      for (const auto& d : dets) {
        rows.push_back(torch::tensor({static_cast<float>(d.box.x1), static_cast<float>(d.box.y1),
                                      static_cast<float>(d.box.x2), static_cast<float>(d.box.y2),
                                      static_cast<float>(d.score), static_cast<float>(d.class_id)}));
      }
    }
  }
  auto out = PickleValue::dict();
  put_info(*out, model);
  out->set("detections", tensor_node(rows.empty() ? torch::zeros({0, 6}) : torch::stack(rows)));
  out->set("counts", tensor_node(torch::tensor(counts, torch::kLong)));
  out->set("orig_sizes", tensor_node(orig_sizes));
  out->set("postprocess", PickleValue::string(!nms.suppress ? "top_k" : multi_label ? "multi_label" : "best_class"));
  if (preprocessed_here) out->set("images_u8", tensor_node(images_u8));
  write_dict(args.get("output"), out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const torch::Device device(args.get("device", "cpu"));
    if (device.is_cuda() && !torch::cuda::is_available()) throw std::runtime_error("CUDA is not available");
    const bool tf32 = args.flag("allow-tf32");
    at::globalContext().setAllowTF32CuDNN(tf32);
    at::globalContext().setAllowTF32CuBLAS(tf32);
    if (args.command == "forward") return run_forward(args, device);
    if (args.command == "predict") return run_predict(args, device);
    std::cerr << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "family_parity: " << e.what() << "\n";
    return 1;
  }
}
