// Test tool for the YOLOv9 parity procedure (docs/parity.md): runs the host's YOLOv9 on inputs
// prepared by tests/python/yolo9_parity.py and writes what it computed, so that the script can
// compare it with LibreYOLO's own model, loss and predict.
//
// Files in and out are torch.save-compatible zip archives holding one dict (read and written
// with the host's own pickle codec), so Python reads them with torch.load and writes them with
// torch.save.
//
//   yolo9_parity forward --weights W.pt --input IN.pt --output OUT.pt [options]
//     IN:  images  [B, 3, H, W] float32 (already preprocessed, 0..1 RGB)
//          targets [B, M, 5] float32 (class, cx, cy, w, h in input pixels; padding rows zero)
//          counts  [B] int64 (real rows of targets per image)
//     OUT: raw_eval  [3 x [B, 64 + nc, H/s, W/s]]  head outputs, BatchNorm in eval mode
//          boxes_eval [B, N, 4], scores_eval [B, N, nc]  Detector::decode of raw_eval
//          loss_eval_{total,box,cls,dfl}  the criterion on raw_eval
//          raw_train [3 x ...]  head outputs, BatchNorm in train mode (batch statistics)
//          loss_train_{total,box,cls,dfl}  the criterion on raw_train (what training uses)
//
//   yolo9_parity predict --weights W.pt --input IN.pt --output OUT.pt --conf C --iou I
//                        [--max-det 300] [--best-class] [--batch 8] [options]
//     IN:  imgsz int, and either
//            images_u8 [N, imgsz, imgsz, 3] uint8 (letterboxed RGB) + orig_sizes [N, 2] int64 (w, h)
//          or
//            paths [str, ...]: the host's validation preprocessing (decode + resize as the
//            image cache does, letterbox top-left with 114) runs here on each file.
//     OUT: detections [K, 6] float32 (x1, y1, x2, y2 in original pixels, score, class),
//          counts [N] int64 (detections per image, in input order, each highest score first),
//          orig_sizes [N, 2] int64, and images_u8 when this tool preprocessed the images.
//     Post-processing: core::eval::postprocess_detections as the host's val runs it for YOLOv9
//     (multi-label: every (anchor, class) pair above conf, then per-class NMS); --best-class
//     selects each anchor's best class instead.
//
// Options: --device cpu|cuda|cuda:N (default cpu), --allow-tf32 (default off: float32 parity),
// --contiguous (NCHW contiguous input instead of the host's channels-last).
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "head.hpp"
#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/pickle_value.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/checkpoint/torch_archive.hpp"
#include "libreyolo/core/data/augment/letterbox.hpp"
#include "libreyolo/core/data/cache/resized_image.hpp"
#include "libreyolo/core/data/image_header.hpp"
#include "libreyolo/core/data/network_input.hpp"
#include "libreyolo/core/eval/nms.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "yolo9_detector.hpp"
#include "yolo9_loss.hpp"

namespace {

namespace ckpt = libreyolo::core::checkpoint;
namespace data = libreyolo::core::data;
namespace eval = libreyolo::core::eval;
namespace y9 = libreyolo::families::yolo9;
using ckpt::PickleRef;
using ckpt::PickleValue;

constexpr const char* kUsage =
    "usage: yolo9_parity forward --weights W.pt --input IN.pt --output OUT.pt [--device D]\n"
    "       yolo9_parity predict --weights W.pt --input IN.pt --output OUT.pt --conf C --iou I\n"
    "                            [--max-det 300] [--best-class] [--batch 8] [--device D]\n"
    "options: --device cpu|cuda|cuda:N, --allow-tf32, --contiguous (see the file's header)\n";

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
  const std::vector<std::string> flags = {"best-class", "allow-tf32", "contiguous"};
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

// Size from the stem and first block widths, as LibreYOLO's detect_size reads them.
std::string size_from_keys(const ckpt::StateDict& state) {
  const auto* conv0 = state.find("backbone.conv0.conv.weight");
  if (conv0 == nullptr) return "";
  const auto first = conv0->size(0);
  if (first == 16) return "t";
  if (first == 64) return "c";
  const auto* elan1 = state.find("backbone.elan1.cv1.conv.weight");
  if (first == 32 && elan1 != nullptr) return elan1->size(0) == 64 ? "s" : "m";
  return "";
}

int64_t classes_from_keys(const ckpt::StateDict& state) {
  const auto* last = state.find("head.cv3.0.2.weight");
  return last == nullptr ? 0 : last->size(0);
}

std::shared_ptr<y9::Yolo9Detector> load_detector(const std::string& path, const torch::Device& device) {
  ckpt::LoadOptions options;
  options.require_metadata = false;
  const auto checkpoint = ckpt::load_checkpoint(path, options);
  std::string size = checkpoint.metadata.size;
  int64_t nc = checkpoint.metadata.nc;
  if (size.empty()) size = size_from_keys(checkpoint.model);
  if (nc <= 0) nc = classes_from_keys(checkpoint.model);
  if (size.empty() || nc <= 0) throw std::runtime_error(path + ": cannot tell the YOLOv9 size / class count");
  if (!checkpoint.metadata.model_family.empty() && checkpoint.metadata.model_family != "yolo9")
    throw std::runtime_error(path + " is a " + checkpoint.metadata.model_family + " checkpoint, not yolo9");
  auto detector = std::make_shared<y9::Yolo9Detector>(size, nc);
  ckpt::load_state_dict_into(*detector, checkpoint.model, /*strict=*/true, path);
  detector->to(device, torch::kFloat32);
  std::cerr << "yolo9_parity: " << path << ": yolo9" << size << ", nc " << nc << ", "
            << checkpoint.model.size() << " tensors, device " << device << "\n";
  return detector;
}

torch::Tensor prepare(const torch::Tensor& images, const torch::Device& device, bool contiguous) {
  auto x = images.to(device, torch::kFloat32);
  return contiguous ? x.contiguous() : x.contiguous(torch::MemoryFormat::ChannelsLast);
}

void put_loss(PickleValue& root, const std::string& prefix, const libreyolo::sdk::LossOutput& loss) {
  root.set(prefix + "total", PickleValue::float_value(loss.total.item<double>()));
  for (const auto& [name, value] : loss.components)
    root.set(prefix + name, PickleValue::float_value(value.item<double>()));
}

int run_forward(const Args& args, const torch::Device& device) {
  auto detector = load_detector(args.get("weights"), device);
  const PickleRef input = ckpt::read_torch_archive(args.get("input"));
  const bool contiguous = args.flag("contiguous");
  const auto images = prepare(tensor_entry(*input, "images"), device, contiguous);
  libreyolo::sdk::Targets targets;
  targets.boxes = tensor_entry(*input, "targets").to(device, torch::kFloat32);
  targets.counts = tensor_entry(*input, "counts").to(device, torch::kLong);
  auto criterion = y9::make_yolo9_criterion(static_cast<int>(detector->num_classes()));

  torch::NoGradGuard no_grad;
  auto out = PickleValue::dict();

  detector->eval();
  const auto raw_eval = detector->forward_remainder(detector->forward_capturable(images), nullptr);
  const auto candidates = detector->decode(raw_eval);
  out->set("raw_eval", tensor_list(raw_eval));
  out->set("boxes_eval", tensor_node(candidates.boxes));
  out->set("scores_eval", tensor_node(candidates.scores));
  put_loss(*out, "loss_eval_", (*criterion)(raw_eval, targets, images));

  detector->train();
  const auto raw_train = detector->forward_remainder(detector->forward_capturable(images), &targets);
  out->set("raw_train", tensor_list(raw_train));
  put_loss(*out, "loss_train_", (*criterion)(raw_train, targets, images));

  out->set("device", PickleValue::string(device.str()));
  write_dict(args.get("output"), out);
  return 0;
}

// The host's validation preprocessing of one file (ValSampleMaker over the uncached image
// source): the image source's resize to long side imgsz, then letterbox top-left with 114.
torch::Tensor host_preprocess(const std::string& path, int imgsz, data::ImageSize& original) {
  original = data::read_image_size(path);
  const auto resized = data::load_resized_image(path, original, imgsz);
  auto out = torch::empty({imgsz, imgsz, 3}, torch::kUInt8);
  data::MutableImageView view{imgsz, imgsz, out.data_ptr<std::uint8_t>()};
  data::ResizeScratch scratch;
  data::letterbox(data::ImageView::of(resized), imgsz, view, data::LetterboxPad::top_left, scratch, 114);
  return out;
}

int run_predict(const Args& args, const torch::Device& device) {
  auto detector = load_detector(args.get("weights"), device);
  const PickleRef input = ckpt::read_torch_archive(args.get("input"));
  const auto& imgsz_node = entry(*input, "imgsz");
  if (!imgsz_node.is(PickleValue::Kind::Int)) throw std::runtime_error("'imgsz' must be an int");
  const int imgsz = static_cast<int>(imgsz_node.integer);

  torch::Tensor images_u8, orig_sizes;
  bool preprocessed_here = false;
  if (input->find("paths") != nullptr) {
    const auto& paths = entry(*input, "paths");
    std::vector<torch::Tensor> images;
    std::vector<int64_t> sizes;
    for (const auto& item : paths.items) {
      data::ImageSize original;
      images.push_back(host_preprocess(item->text, imgsz, original));
      sizes.push_back(original.width);
      sizes.push_back(original.height);
    }
    images_u8 = torch::stack(images);
    orig_sizes = torch::tensor(sizes, torch::kLong).view({-1, 2});
    preprocessed_here = true;
  } else {
    images_u8 = tensor_entry(*input, "images_u8").to(torch::kUInt8).contiguous();
    orig_sizes = tensor_entry(*input, "orig_sizes").to(torch::kLong).contiguous();
  }
  TORCH_CHECK(images_u8.dim() == 4 && images_u8.size(1) == imgsz && images_u8.size(2) == imgsz &&
                  images_u8.size(3) == 3,
              "images_u8 must be [N, imgsz, imgsz, 3], got ", images_u8.sizes());

  eval::NmsOptions nms;
  nms.conf = std::stof(args.get("conf"));
  nms.iou = std::stof(args.get("iou"));
  nms.max_det = std::stoi(args.get("max-det", "300"));
  // The YOLOv9 family's post-processing is multi-label (FamilyInfo::multi_label_nms); the flag
  // picks best-class-per-anchor instead, to show what that would change.
  const bool multi_label = !args.flag("best-class");
  nms.multi_label = multi_label;
  const int64_t batch = std::stoll(args.get("batch", "8"));
  const bool contiguous = args.flag("contiguous");
  libreyolo::sdk::InputFormat format;  // yolo9: RGB, scale 1/255 (Yolo9Family::info)

  torch::NoGradGuard no_grad;
  detector->eval();
  const int64_t n = images_u8.size(0);
  std::vector<torch::Tensor> rows;
  std::vector<int64_t> counts;
  for (int64_t start = 0; start < n; start += batch) {
    const int64_t count = std::min(batch, n - start);
    auto x = data::to_network_input(images_u8.narrow(0, start, count).to(device), format);
    if (contiguous) x = x.contiguous();
    const auto candidates = detector->decode(detector->forward_remainder(detector->forward_capturable(x), nullptr));
    std::vector<eval::InputToOriginal> mapping;
    for (int64_t i = start; i < start + count; ++i) {
      const data::ImageSize size{static_cast<int>(orig_sizes[i][0].item<int64_t>()),
                                 static_cast<int>(orig_sizes[i][1].item<int64_t>())};
      const auto info = data::letterbox_info(size, imgsz);
      mapping.push_back({info.scale, static_cast<double>(info.pad_x), static_cast<double>(info.pad_y), size.width,
                         size.height});
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
  out->set("detections", tensor_node(rows.empty() ? torch::zeros({0, 6}) : torch::stack(rows)));
  out->set("counts", tensor_node(torch::tensor(counts, torch::kLong)));
  out->set("orig_sizes", tensor_node(orig_sizes));
  out->set("postprocess", PickleValue::string(multi_label ? "multi_label" : "host_best_class"));
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
    std::cerr << "yolo9_parity: " << e.what() << "\n";
    return 1;
  }
}
