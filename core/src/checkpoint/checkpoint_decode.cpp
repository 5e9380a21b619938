#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>

#include "libreyolo/core/checkpoint/checkpoint_schema.hpp"
#include "libreyolo/core/data/dataset/class_count.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {
namespace {

using Kind = PickleValue::Kind;

constexpr const char* kMetadataKeys[] = {"schema_version", "libreyolo_version", "model_family", "size",
                                         "task",           "nc",                "names",        "imgsz"};

std::string join(const std::vector<std::string>& items, std::size_t limit = 12) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += ", ... (" + std::to_string(items.size() - limit) + " more)";
  return out.empty() ? "(none)" : out;
}

class Decoder {
 public:
  Decoder(const PickleValue& root, const std::string& source, const LoadOptions& options)
      : root_(root), source_(source), options_(options) {}

  Checkpoint run() {
    if (root_.kind != Kind::Dict)
      bad("it holds a " + describe(root_) + ", not a dict", "Pass a LibreYOLO checkpoint (.pt)");
    Checkpoint out;
    const PickleRef* model = root_.find("model");
    if (model == nullptr) return bare_state_dict();
    if ((*model)->kind != Kind::Dict)
      bad("its 'model' entry is a " + describe(**model) + ", not a state dict",
          "Save model.state_dict(), not the module itself, as LibreYOLO does");
    out.model = state_dict(**model, "model");
    read_metadata(out);
    read_train_state(out);
    return out;
  }

 private:
  [[noreturn]] void bad(const std::string& why, const std::string& todo) const {
    throw Error("Cannot load checkpoint " + source_, why, todo);
  }

  // A file that is just {name: tensor}: legal in LibreYOLO's legacy path, but it does not say
  // which model it is.
  Checkpoint bare_state_dict() {
    const auto keys = root_.string_keys();
    const bool all_tensors = !root_.entries.empty() &&
                             std::all_of(root_.entries.begin(), root_.entries.end(), [](const auto& e) {
                               return e.first->kind == Kind::String && e.second->kind == Kind::Tensor;
                             });
    if (!all_tensors) {
      bad("it has no 'model' entry (its keys: " + join(keys) + ")",
          "Pass a LibreYOLO checkpoint; convert upstream weights (Ultralytics, YOLOX, ...) with "
          "LibreYOLO's weights/convert_*.py first");
    }
    if (options_.require_metadata) {
      bad("it is a bare state dict without LibreYOLO metadata (model_family, size, nc, ...)",
          "Name the model on the command line (model=<family><size>, e.g. yolo9t) so its "
          "weights can be loaded, or re-save it with LibreYOLO's wrap_libreyolo_checkpoint");
    }
    Checkpoint out;
    out.model = state_dict(root_, "the file");
    out.missing_metadata.assign(std::begin(kMetadataKeys), std::end(kMetadataKeys));
    return out;
  }

  StateDict state_dict(const PickleValue& dict, const std::string& where) const {
    StateDict out;
    out.reserve(dict.entries.size());
    for (const auto& entry : dict.entries) {
      if (entry.first->kind != Kind::String)
        bad(where + " has a " + describe(*entry.first) + " key; state dict keys are str",
            "Pass a LibreYOLO checkpoint");
      if (entry.second->kind != Kind::Tensor)
        bad(where + "['" + entry.first->text + "'] is a " + describe(*entry.second) + ", not a tensor",
            "Pass a LibreYOLO checkpoint (extra state objects in a state dict are not supported)");
      out.insert(entry.first->text, entry.second->tensor);
    }
    return out;
  }

  const PickleValue* get(const std::string& key, std::vector<std::string>& missing) const {
    const PickleRef* found = root_.find(key);
    if (found == nullptr) missing.push_back(key);
    return found ? found->get() : nullptr;
  }

  std::string text(const PickleValue* v, const std::string& key) const {
    if (v->kind != Kind::String || v->text.empty())
      bad("'" + key + "' is " + (v->kind == Kind::String ? "empty" : "a " + describe(*v)) + ", expected a non-empty str",
          "Re-save the checkpoint with LibreYOLO");
    return v->text;
  }

  int64_t positive(const PickleValue* v, const std::string& key) const {
    if (v->kind != Kind::Int || v->integer <= 0)
      bad("'" + key + "' is " + (v->kind == Kind::Int ? std::to_string(v->integer) : "a " + describe(*v)) +
              ", expected a positive int",
          "Re-save the checkpoint with LibreYOLO");
    return v->integer;
  }

  void read_metadata(Checkpoint& out) const {
    Metadata& m = out.metadata;
    std::vector<std::string>& missing = out.missing_metadata;
    if (const auto* v = get("schema_version", missing)) {
      m.schema_version = text(v, "schema_version");
      // Same major version: the flat keys we read keep their meaning (the schema promises
      // additive minor versions); another major version may not, so it is refused.
      if (m.schema_version != kSchemaVersion) {
        if (m.schema_version.rfind("1.", 0) != 0)
          bad("its schema_version is '" + m.schema_version + "'; this host reads schema 1.x",
              "Load it with a LibreYOLO version that supports it and re-save as schema 1.0");
        out.warnings.push_back(source_ + ": schema_version " + m.schema_version +
                               " is newer than 1.0; reading the 1.0 keys only");
      }
    }
    if (const auto* v = get("libreyolo_version", missing)) m.libreyolo_version = text(v, "libreyolo_version");
    if (const auto* v = get("model_family", missing)) m.model_family = text(v, "model_family");
    if (const auto* v = get("size", missing)) m.size = text(v, "size");
    if (const auto* v = get("task", missing)) {
      m.task = text(v, "task");
      std::transform(m.task.begin(), m.task.end(), m.task.begin(), [](unsigned char c) { return std::tolower(c); });
      if (std::find_if(std::begin(kTasks), std::end(kTasks), [&](const char* t) { return m.task == t; }) == std::end(kTasks))
        bad("its task '" + m.task + "' is not one of LibreYOLO's tasks", "Re-save the checkpoint with LibreYOLO");
    }
    if (const auto* v = get("nc", missing)) m.nc = positive(v, "nc");
    if (const auto* v = get("names", missing)) read_names(*v, out);
    if (const auto* v = get("imgsz", missing)) m.imgsz = positive(v, "imgsz");

    if (!missing.empty() && options_.require_metadata) {
      bad("it lacks LibreYOLO metadata keys: " + join(missing),
          "Name the model on the command line (model=<family><size>) to load its weights, or "
          "re-save it with a current LibreYOLO");
    }
  }

  // names: dict {int: str} (or a list, or int-like str keys, as LibreYOLO's
  // normalize_checkpoint_names accepts). Keys outside 0..nc-1 are an error; gaps are padded
  // with class_i, with a warning, as LibreYOLO's reader does.
  void read_names(const PickleValue& v, Checkpoint& out) const {
    std::map<int64_t, std::string> by_index;
    auto name_of = [&](const PickleValue& n, const std::string& at) {
      if (n.kind != Kind::String) bad("names[" + at + "] is a " + describe(n) + ", expected str", "Fix the class names and re-save");
      return n.text;
    };
    if (v.kind == Kind::List || v.kind == Kind::Tuple) {
      for (std::size_t i = 0; i < v.items.size(); ++i)
        by_index[static_cast<int64_t>(i)] = name_of(*v.items[i], std::to_string(i));
    } else if (v.kind == Kind::Dict) {
      for (const auto& e : v.entries) {
        int64_t index = 0;
        if (e.first->kind == Kind::Int) {
          index = e.first->integer;
        } else if (e.first->kind == Kind::String) {
          try {
            std::size_t used = 0;
            index = std::stoll(e.first->text, &used);
            if (used != e.first->text.size()) throw std::invalid_argument("trailing");
          } catch (const std::exception&) {
            bad("names has the non-integer key '" + e.first->text + "'", "Key class names by class index");
          }
        } else {
          bad("names has a " + describe(*e.first) + " key", "Key class names by class index");
        }
        by_index[index] = name_of(*e.second, std::to_string(index));
      }
    } else {
      bad("names is a " + describe(v) + ", expected dict[int, str]", "Fix the class names and re-save");
    }

    Metadata& m = out.metadata;
    // Without nc (a legacy file, require_metadata off) the names themselves say how many.
    const int64_t nc = m.nc > 0 ? m.nc : (by_index.empty() ? 0 : by_index.rbegin()->first + 1);
    // Before padding the missing names one string each (class_count.hpp).
    if (nc > data::kMaxClasses) {
      bad("it declares " + std::to_string(nc) + " classes, more than this host accepts (" +
              std::to_string(data::kMaxClasses) + ")",
          "The file is damaged; re-save it with LibreYOLO");
    }
    std::vector<std::string> outside;
    for (const auto& item : by_index) {
      if (item.first < 0 || item.first >= nc) outside.push_back(std::to_string(item.first));
    }
    if (!outside.empty())
      bad("names has keys outside 0.." + std::to_string(nc - 1) + " (nc=" + std::to_string(nc) + "): " + join(outside),
          "Give exactly one name per class index 0..nc-1");
    std::vector<std::string> padded;
    m.names.clear();
    for (int64_t i = 0; i < nc; ++i) {
      auto found = by_index.find(i);
      if (found == by_index.end()) {
        padded.push_back(std::to_string(i));
        m.names.push_back("class_" + std::to_string(i));
      } else {
        m.names.push_back(found->second);
      }
    }
    if (!padded.empty())
      out.warnings.push_back(source_ + ": names lacks class indices " + join(padded) + "; using class_i for them");
  }

  // --- training state -------------------------------------------------------------------

  [[noreturn]] void bad_state(const std::string& why) const {
    bad("its training state is malformed: " + why,
        "Start a new run from its weights (model=" + source_ + ") instead of resuming");
  }

  const PickleValue& field(const PickleValue& dict, const std::string& key, Kind kind, const std::string& where) const {
    const PickleRef* found = dict.find(key);
    if (found == nullptr) bad_state(where + key + " is missing");
    if ((*found)->kind != kind) bad_state(where + key + " is a " + describe(**found));
    return **found;
  }

  double number(const PickleValue& dict, const std::string& key) const {
    const PickleRef* found = dict.find(key);
    if (found == nullptr) bad_state(key + " is missing");
    if ((*found)->kind == Kind::Float) return (*found)->real;
    if ((*found)->kind == Kind::Int) return static_cast<double>((*found)->integer);
    bad_state(key + " is a " + describe(**found));
  }

  void read_train_state(Checkpoint& out) const {
    const PickleRef* host = root_.find(kHostTrainStateKey);
    if (host == nullptr) {
      if (root_.find("optimizer") != nullptr || root_.find("epoch") != nullptr)
        out.warnings.push_back(source_ + ": its training state was written by LibreYOLO (Python) and "
                               "cannot be resumed by the host; only its weights are used");
      return;
    }
    if ((*host)->kind != Kind::Dict) bad_state(std::string(kHostTrainStateKey) + " is a " + describe(**host));
    const PickleValue& h = **host;
    const int64_t format = field(h, "format", Kind::Int, "").integer;
    if (format != kHostTrainStateFormat)
      bad("its training state has layout " + std::to_string(format) + "; this host reads layout " +
              std::to_string(kHostTrainStateFormat),
          "Resume with the libreyolo-host that wrote it, or start a new run from its weights");

    TrainState t;
    t.epoch = field(root_, "epoch", Kind::Int, "").integer;
    t.best_metric_key = field(root_, "best_metric_key", Kind::String, "").text;
    t.best_fitness = number(root_, "best_metric_value");
    t.best_epoch = field(root_, "best_epoch", Kind::Int, "").integer;
    if (field(root_, "is_ema_weights", Kind::Bool, "").boolean) {
      EmaState ema;
      ema.weights = state_dict(field(root_, "ema", Kind::Dict, ""), "ema");
      ema.updates = field(root_, "ema_updates", Kind::Int, "").integer;
      t.ema = std::move(ema);
      t.train_model = state_dict(field(root_, "train_model", Kind::Dict, ""), "train_model");
    }
    t.global_step = field(h, "global_step", Kind::Int, "").integer;

    const std::string o = std::string(kHostTrainStateKey) + ".optimizer.";
    const PickleValue& opt = field(h, "optimizer", Kind::Dict, "");
    t.optimizer.name = field(opt, "name", Kind::String, o).text;
    t.optimizer.step = field(opt, "step", Kind::Int, o).integer;
    for (const auto& e : field(opt, "state", Kind::Dict, o).entries) {
      if (e.first->kind != Kind::String || e.second->kind != Kind::Dict) bad_state(o + "state has a malformed entry");
      t.optimizer.params.insert(e.first->text, state_dict(*e.second, o + "state['" + e.first->text + "']"));
    }

    const std::string s = std::string(kHostTrainStateKey) + ".grad_scaler.";
    const PickleValue& scaler = field(h, "grad_scaler", Kind::Dict, "");
    t.scaler.enabled = field(scaler, "enabled", Kind::Bool, s).boolean;
    t.scaler.scale = field(scaler, "scale", Kind::Float, s).real;
    t.scaler.growth_tracker = field(scaler, "growth_tracker", Kind::Int, s).integer;

    const std::string r = std::string(kHostTrainStateKey) + ".rng.";
    const PickleValue& rng = field(h, "rng", Kind::Dict, "");
    t.rng.seed = static_cast<uint64_t>(field(rng, "seed", Kind::Int, r).integer);
    if (rng.find("cpu_state") != nullptr) t.rng.cpu_state = field(rng, "cpu_state", Kind::Tensor, r).tensor;
    for (const auto& item : field(rng, "cuda_states", Kind::List, r).items) {
      if (item->kind != Kind::Tensor) bad_state(r + "cuda_states holds a " + describe(*item));
      t.rng.cuda_states.push_back(item->tensor);
    }

    for (const auto& e : field(h, "options", Kind::Dict, "").entries) {
      if (e.first->kind != Kind::String || e.second->kind != Kind::String)
        bad_state(std::string(kHostTrainStateKey) + ".options holds a non-str entry");
      t.options[e.first->text] = e.second->text;
    }
    out.train = std::move(t);
  }

  const PickleValue& root_;
  const std::string& source_;
  const LoadOptions& options_;
};

}  // namespace

Checkpoint decode_checkpoint(const PickleValue& root, const std::string& source, const LoadOptions& options) {
  return Decoder(root, source, options).run();
}

}  // namespace libreyolo::core::checkpoint
