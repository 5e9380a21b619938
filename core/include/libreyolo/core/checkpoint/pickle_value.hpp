#pragma once
// The object graph of a pickle, as far as checkpoints need it: None, bool, int, float, str,
// bytes, tuple, list, dict (plain or OrderedDict, insertion order kept), tensors, and an
// "opaque" node for any Python object we do not rebuild (argparse.Namespace in a config,
// numpy scalars, ...). Opaque nodes let a checkpoint with foreign extras still load as long as
// the keys we read are plain data.
//
// Why our own tree instead of c10::IValue: LibTorch's unpickler turns collections.OrderedDict
// (every Python state dict) into None, and its pickler tags dicts with
// torch.jit._pickle.restore_type_tag, which torch.load(weights_only=True) refuses. We read and
// write the pickle ourselves and keep only the zip container from LibTorch.
//
// Nodes are shared (PickleRef) because a pickle's memo refers to objects that are filled in
// after they are remembered (an empty dict is memoised, then SETITEMS fills it).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::core::checkpoint {

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Tensor, Global, Opaque };

  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  // String and Bytes: the text; Global: "module.name"; Opaque: what it was, for messages.
  std::string text;
  std::vector<PickleRef> items;                            // Tuple, List
  std::vector<std::pair<PickleRef, PickleRef>> entries;    // Dict, in insertion order
  bool ordered = false;  // Dict: written as collections.OrderedDict (what state dicts are)
  at::Tensor tensor;     // Tensor

  PickleValue() = default;
  PickleValue(const PickleValue&) = delete;
  PickleValue& operator=(const PickleValue&) = delete;
  // Frees children iteratively: a hostile file can nest lists 100 000 deep in 200 KB, and a
  // recursive destructor would overflow the stack on it.
  ~PickleValue();

  static PickleRef none();
  static PickleRef boolean_value(bool value);
  static PickleRef int_value(int64_t value);
  static PickleRef float_value(double value);
  static PickleRef string(std::string value);
  static PickleRef bytes(std::string value);
  static PickleRef tuple(std::vector<PickleRef> items = {});
  static PickleRef list(std::vector<PickleRef> items = {});
  static PickleRef dict(bool ordered = false);
  static PickleRef tensor_value(at::Tensor value);
  static PickleRef global(std::string qualified_name);
  static PickleRef opaque(std::string description);

  bool is(Kind k) const { return kind == k; }
  // Dict helpers. Keys are compared as str keys; int keys never match a str lookup.
  const PickleRef* find(const std::string& key) const;
  void set(PickleRef key, PickleRef value);  // replaces an equal key, like a Python dict
  void set(const std::string& key, PickleRef value) { set(string(key), std::move(value)); }
  std::vector<std::string> string_keys() const;  // the str keys, in order (for messages)
};

// A short human name for a node ("dict", "tensor", "argparse.Namespace object", ...).
std::string describe(const PickleValue& value);

}  // namespace libreyolo::core::checkpoint
