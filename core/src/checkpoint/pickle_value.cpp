#include "libreyolo/core/checkpoint/pickle_value.hpp"

namespace libreyolo::core::checkpoint {
namespace {

PickleRef make(PickleValue::Kind kind) {
  auto value = std::make_shared<PickleValue>();
  value->kind = kind;
  return value;
}

// Python dict key equality for the key types checkpoints use (str, int, bool, float).
// Python treats True == 1 and 1.0 == 1; checkpoints never mix those, so kinds must match.
bool same_key(const PickleValue& a, const PickleValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case PickleValue::Kind::String:
    case PickleValue::Kind::Bytes: return a.text == b.text;
    case PickleValue::Kind::Int: return a.integer == b.integer;
    case PickleValue::Kind::Bool: return a.boolean == b.boolean;
    case PickleValue::Kind::Float: return a.real == b.real;
    case PickleValue::Kind::None: return true;
    default: return &a == &b;
  }
}

}  // namespace

PickleValue::~PickleValue() {
  std::vector<PickleRef> pending;
  auto take_children = [&pending](PickleValue& node) {
    for (auto& item : node.items) pending.push_back(std::move(item));
    for (auto& entry : node.entries) {
      pending.push_back(std::move(entry.first));
      pending.push_back(std::move(entry.second));
    }
    node.items.clear();
    node.entries.clear();
  };
  take_children(*this);
  while (!pending.empty()) {
    PickleRef node = std::move(pending.back());
    pending.pop_back();
    // Only the last owner empties it; the node then dies here with no children left.
    if (node && node.use_count() == 1) take_children(*node);
  }
}

PickleRef PickleValue::none() { return make(Kind::None); }

PickleRef PickleValue::boolean_value(bool value) {
  auto node = make(Kind::Bool);
  node->boolean = value;
  return node;
}

PickleRef PickleValue::int_value(int64_t value) {
  auto node = make(Kind::Int);
  node->integer = value;
  return node;
}

PickleRef PickleValue::float_value(double value) {
  auto node = make(Kind::Float);
  node->real = value;
  return node;
}

PickleRef PickleValue::string(std::string value) {
  auto node = make(Kind::String);
  node->text = std::move(value);
  return node;
}

PickleRef PickleValue::bytes(std::string value) {
  auto node = make(Kind::Bytes);
  node->text = std::move(value);
  return node;
}

PickleRef PickleValue::tuple(std::vector<PickleRef> items) {
  auto node = make(Kind::Tuple);
  node->items = std::move(items);
  return node;
}

PickleRef PickleValue::list(std::vector<PickleRef> items) {
  auto node = make(Kind::List);
  node->items = std::move(items);
  return node;
}

PickleRef PickleValue::dict(bool ordered) {
  auto node = make(Kind::Dict);
  node->ordered = ordered;
  return node;
}

PickleRef PickleValue::tensor_value(at::Tensor value) {
  auto node = make(Kind::Tensor);
  node->tensor = std::move(value);
  return node;
}

PickleRef PickleValue::global(std::string qualified_name) {
  auto node = make(Kind::Global);
  node->text = std::move(qualified_name);
  return node;
}

PickleRef PickleValue::opaque(std::string description) {
  auto node = make(Kind::Opaque);
  node->text = std::move(description);
  return node;
}

const PickleRef* PickleValue::find(const std::string& key) const {
  for (const auto& entry : entries) {
    if (entry.first->kind == Kind::String && entry.first->text == key) return &entry.second;
  }
  return nullptr;
}

void PickleValue::set(PickleRef key, PickleRef value) {
  for (auto& entry : entries) {
    if (same_key(*entry.first, *key)) {
      entry.second = std::move(value);
      return;
    }
  }
  entries.emplace_back(std::move(key), std::move(value));
}

std::vector<std::string> PickleValue::string_keys() const {
  std::vector<std::string> keys;
  for (const auto& entry : entries) {
    if (entry.first->kind == Kind::String) keys.push_back(entry.first->text);
  }
  return keys;
}

std::string describe(const PickleValue& value) {
  switch (value.kind) {
    case PickleValue::Kind::None: return "None";
    case PickleValue::Kind::Bool: return "bool";
    case PickleValue::Kind::Int: return "int";
    case PickleValue::Kind::Float: return "float";
    case PickleValue::Kind::String: return "str";
    case PickleValue::Kind::Bytes: return "bytes";
    case PickleValue::Kind::Tuple: return "tuple";
    case PickleValue::Kind::List: return "list";
    case PickleValue::Kind::Dict: return value.ordered ? "OrderedDict" : "dict";
    case PickleValue::Kind::Tensor: return "tensor";
    case PickleValue::Kind::Global: return value.text;
    case PickleValue::Kind::Opaque: return value.text;
  }
  return "unknown";
}

}  // namespace libreyolo::core::checkpoint
