#pragma once
// The family contract: what a model family plugin tells the host, in data, so that the host
// can decide policy without ever naming a family. This header is deliberately free of
// LibTorch: the host can list, validate and describe families (`libreyolo-host families`)
// without compiling a single LibTorch header. The model itself lives in detector.hpp.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::sdk {

class Detector;   // detector.hpp (a torch::nn::Module)
class Criterion;  // criterion.hpp

// Which part of the training forward the host may record into a CUDA graph.
enum class CaptureRegion {
  none,              // nothing: the family always trains eager
  network,           // the whole network (YOLO-style families)
  backbone_encoder,  // backbone + encoder only (DETR-style families: the decoder is dynamic)
  // The whole training step: the network (as `network`) and the criterion, with the host's
  // backward, gradient scaler, optimizer and EMA around them, as one graph per batch shape. A
  // family declares it only when its criterion has static shapes and never reads the device
  // from the host: targets arrive padded to a capacity the host picks (rows past counts[b] are
  // zero) with Targets::host_counts empty, and the loss must come out the same whatever the
  // padding. Where the whole step cannot be recorded (multi-scale, several GPUs, no float16
  // gradient scaler) the host captures the `network` region instead.
  step,
  // The whole network of a DETR-style family, its decoder included: before each training
  // forward the host calls Detector::prepare_training_forward with the batch's targets, and the
  // family pads what the decoder reads from them (denoising queries) to a count that does not
  // change from batch to batch, in tensors it keeps at fixed addresses. The criterion (with its
  // matcher on the host) stays eager.
  network_with_denoising,
};

LIBREYOLO_SDK_API const char* to_string(CaptureRegion region);

// How the network wants its input. The host's data pipeline is uint8 RGB end to end; on the
// device it converts a batch to float as `(pixel * scale - mean) / std` per channel, in the
// channel order given here. LibreYOLO's YOLOv9 takes RGB / 255; its YOLOX takes BGR 0-255.
struct InputFormat {
  enum class ChannelOrder { rgb, bgr };
  ChannelOrder channel_order = ChannelOrder::rgb;
  float scale = 1.0f / 255.0f;
  float mean[3] = {0.0f, 0.0f, 0.0f};  // in the channel order above
  float std[3] = {1.0f, 1.0f, 1.0f};
};

// How a family tells its size from weights, as LibreYOLO's detect_size does: the length of
// one state-dict tensor's first dimension. The host uses it when a checkpoint's metadata lacks
// its size or names a size its tensors do not have.
struct SizeSignature {
  std::string key;                         // e.g. "backbone.stem.0.conv.weight"; empty: none
  std::map<long long, std::string> sizes;  // that tensor's size(0) -> the size it means
};

// How validation turns an image into the square network input. LibreYOLO's YOLOs letterbox
// (aspect kept, grey 114 padding); its DETRs stretch the image to the square.
enum class EvalResize { letterbox, stretch };

// What turns candidates into detections. Dense YOLO-style heads predict each object many
// times, so the host runs per-class NMS. Set predictors (DETRs) match one query per object in
// training, so LibreYOLO keeps the max_det highest (query, class) scores with no suppression.
enum class Suppression { class_nms, none };

LIBREYOLO_SDK_API const char* to_string(EvalResize resize);
LIBREYOLO_SDK_API const char* to_string(Suppression suppression);

// Who the family is.
struct FamilyInfo {
  std::string name;          // what users type: "yolo9" (lower case, [a-z0-9_])
  std::string display_name;  // "YOLOv9"
  std::string description;   // one line for `libreyolo-host families`
  std::vector<std::string> sizes;          // "t", "s", "m", "c"
  std::vector<std::string> tasks;          // "detect"
  std::map<std::string, int> default_imgsz;  // per size; sizes not listed use 640
  InputFormat input;                         // what forward_capturable() receives
  // Post-processing: every class above the confidence threshold is a candidate (LibreYOLO's
  // YOLOv9), instead of each anchor's best class only (LibreYOLO's YOLOX).
  bool multi_label_nms = false;
  // At most this many (anchor, class) candidates, the highest scores, enter NMS per image.
  // RTMDet keeps the best 30000 of each of its three levels (mmdetection's nms_pre), 90000 in
  // all; its decode() zeroes the rest per level, and this total lets the survivors through.
  int nms_candidates = 30000;
  Suppression suppression = Suppression::class_nms;
  EvalResize eval_resize = EvalResize::letterbox;
  SizeSignature size_signature;
  std::string version = "0.1.0";           // the plugin's own version
};

// Host policy defaults the family decides. Users may override amp and sync_bn.
struct Policy {
  bool amp = true;          // false where float16 breaks the model (D-FINE clamps at 65504)
  // With amp = false: why, in one sentence. `families` shows it, and a run whose user turns
  // amp on anyway is warned with it once.
  std::string amp_off_reason;
  bool sync_bn = false;     // true for BatchNorm-heavy conv families under multi-GPU
  CaptureRegion capture = CaptureRegion::network;
  bool supports_spawn = true;  // may the host spawn one process per GPU for this family
};

// What the host asks a family to build.
struct ModelSpec {
  std::string size;      // one of FamilyInfo::sizes
  int num_classes = 80;  // from the dataset (or a checkpoint's metadata)
  int imgsz = 640;       // training input size (square); detectors must accept any multiple of 32
};

struct CriterionSpec {
  int num_classes = 80;
  int imgsz = 640;
};

class Family {
 public:
  virtual ~Family() = default;

  virtual FamilyInfo info() const = 0;
  virtual Policy policy() const = 0;
  // The recipe may differ per size (e.g. smaller models use lighter augmentation). It holds
  // the augmentation pipelines, the epoch schedule and the parameter-group rules too.
  virtual Recipe recipe(const std::string& size) const = 0;

  virtual std::shared_ptr<Detector> create_detector(const ModelSpec& spec) const = 0;
  virtual std::shared_ptr<Criterion> create_criterion(Detector& detector,
                                                      const CriterionSpec& spec) const = 0;
};

// Checks what the host relies on (non-empty name and sizes, name spelling, default_imgsz
// only for declared sizes). Returns an empty string when valid, else the problem.
LIBREYOLO_SDK_API std::string validate(const FamilyInfo& info);

}  // namespace libreyolo::sdk
