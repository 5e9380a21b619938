#pragma once
// What a checkpoint holds, as plain structs. The file layout is LibreYOLO's schema v1.0
// (docs/checkpoint_schema.md in LibreYOLO): a dict with `model` (the state dict) and flat
// metadata keys, so LibreYOLO loads our best.pt/last.pt and we load its .pt files.
//
// Training state for resume is split in two:
//  - what LibreYOLO's own trainer also writes and means the same thing, under its key names
//    (epoch, best_metric_key/value, best_epoch, is_ema_weights, train_model, ema,
//    ema_updates), so a Python LibreYOLO resume of our last.pt restores weights, EMA and epoch;
//  - what only the host can restore (optimizer buffers by parameter name, grad-scaler, step
//    counter, RNG, resolved options) under one extra key, `host_train_state`, which LibreYOLO
//    ignores. LibreYOLO's `optimizer` key (PyTorch's param-index layout) is not written.

// ordered_dict.h uses TORCH_CHECK without including its header.
#include <c10/util/Exception.h>
#include <torch/ordered_dict.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace libreyolo::core::checkpoint {

// name -> tensor in PyTorch's state_dict() order and naming ("backbone.conv1.bn.running_mean").
using StateDict = torch::OrderedDict<std::string, at::Tensor>;

// The value written as `libreyolo_version`. LibreYOLO only requires a non-empty string there
// (serialization.py: validate_checkpoint_metadata); nothing in LibreYOLO parses it. We name
// the real writer instead of pretending to be a LibreYOLO release.
inline constexpr const char* kWriterVersion = "libreyolo-host 0.1.0";
inline constexpr const char* kSchemaVersion = "1.0";

// The tasks LibreYOLO's schema names (libreyolo/tasks.py).
inline constexpr const char* kTasks[] = {"detect", "segment", "semantic", "pose",
                                         "classify", "gaze",   "obb",      "point"};

struct Metadata {
  std::string schema_version = kSchemaVersion;
  std::string libreyolo_version;  // as read; saving always writes kWriterVersion
  std::string model_family;       // "yolo9"
  std::string size;               // "t"
  std::string task = "detect";
  int64_t nc = 0;
  std::vector<std::string> names;  // names[i] is class i; empty when saving: class_i
  int64_t imgsz = 0;
};

struct OptimizerState {
  std::string name;  // "SGD", "AdamW": restoring into another optimizer is refused
  int64_t step = 0;  // optimizer steps taken (Adam's bias correction needs it)
  // parameter name -> its buffers ("momentum_buffer", "exp_avg", "exp_avg_sq", ...). Keyed by
  // name, not index, so a resume survives a reordering of parameters.
  torch::OrderedDict<std::string, StateDict> params;
};

struct EmaState {
  StateDict weights;     // LibreYOLO key `ema`
  int64_t updates = 0;   // LibreYOLO key `ema_updates`
};

struct GradScalerState {
  bool enabled = false;  // fp16 AMP only; bf16 and fp32 runs leave it off
  double scale = 65536.0;
  int64_t growth_tracker = 0;
};

struct RngState {
  // Stored bit for bit as a Python int in int64 range: a seed >= 2^63 reads as negative in
  // Python, and round-trips exactly here.
  uint64_t seed = 0;
  at::Tensor cpu_state;                 // at::Generator::get_state() of the CPU generator
  std::vector<at::Tensor> cuda_states;  // one per device, optional
};

struct TrainState {
  int64_t epoch = 0;        // last finished epoch, 0-based; resume starts at epoch + 1
  int64_t global_step = 0;  // optimizer steps since the run began
  std::string best_metric_key = "metrics/mAP50-95";
  double best_fitness = 0.0;  // LibreYOLO `best_metric_value`
  int64_t best_epoch = 0;  // LibreYOLO's: 1-based, 0 before any validation
  // With EMA on, Checkpoint::model holds the EMA weights (what LibreYOLO does) and
  // train_model the raw weights the optimizer was updating.
  std::optional<EmaState> ema;
  StateDict train_model;
  OptimizerState optimizer;
  GradScalerState scaler;
  RngState rng;
  std::map<std::string, std::string> options;  // the resolved options of the run
};

struct Checkpoint {
  Metadata metadata;
  StateDict model;
  std::optional<TrainState> train;  // present in last.pt / best.pt written by the host
  // Filled by load_checkpoint: the metadata keys the file lacked (LoadOptions::require_metadata
  // off) and things the caller should log (padded class names, a newer 1.x schema, ...).
  std::vector<std::string> missing_metadata;
  std::vector<std::string> warnings;
};

}  // namespace libreyolo::core::checkpoint
