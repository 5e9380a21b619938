#include "libreyolo/core/checkpoint/pickle_writer.hpp"

#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "libreyolo/core/checkpoint/storage_types.hpp"

namespace libreyolo::core::checkpoint {
namespace {

using Kind = PickleValue::Kind;

class Pickler {
 public:
  PickledData run(const PickleValue& root) {
    out_.push_back(static_cast<char>(0x80));  // PROTO 2: what torch.save writes by default
    out_.push_back(2);
    value(root);
    out_.push_back('.');  // STOP
    return {std::move(out_), std::move(storages_)};
  }

 private:
  void op(char code) { out_.push_back(code); }

  void little(uint64_t v, int count) {
    for (int i = 0; i < count; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }

  void integer(int64_t v) {
    if (v >= 0 && v <= 0xff) {
      op('K');  // BININT1
      little(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v <= 0xffff) {
      op('M');  // BININT2
      little(static_cast<uint64_t>(v), 2);
    } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
      op('J');  // BININT
      little(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
    } else {
      op(static_cast<char>(0x8a));  // LONG1, 8 bytes two's complement
      out_.push_back(8);
      little(static_cast<uint64_t>(v), 8);
    }
  }

  void real(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    op('G');  // BINFLOAT is big-endian
    for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }

  void text(const std::string& s) {
    op('X');  // BINUNICODE: Python decodes it as UTF-8
    little(s.size(), 4);
    out_ += s;
  }

  void global(const char* module, const std::string& name) {
    op('c');
    out_ += module;
    out_ += '\n';
    out_ += name;
    out_ += '\n';
  }

  void value(const PickleValue& v) {
    switch (v.kind) {
      case Kind::None: op('N'); return;
      case Kind::Bool: op(static_cast<char>(v.boolean ? 0x88 : 0x89)); return;
      case Kind::Int: integer(v.integer); return;
      case Kind::Float: real(v.real); return;
      case Kind::String: text(v.text); return;
      case Kind::Tuple:
        op('(');  // MARK
        for (const auto& item : v.items) value(*item);
        op('t');
        return;
      case Kind::List:
        op(']');
        if (v.items.empty()) return;
        op('(');
        for (const auto& item : v.items) value(*item);
        op('e');  // APPENDS
        return;
      case Kind::Dict:
        if (v.ordered) {
          global("collections", "OrderedDict");
          op(')');
          op('R');
        } else {
          op('}');
        }
        if (v.entries.empty()) return;
        op('(');
        for (const auto& entry : v.entries) {
          value(*entry.first);
          value(*entry.second);
        }
        op('u');  // SETITEMS
        return;
      case Kind::Tensor: tensor(v.tensor); return;
      case Kind::Bytes:
      case Kind::Global:
      case Kind::Opaque: break;
    }
    throw std::runtime_error("a " + describe(v) + " value cannot be written to a checkpoint");
  }

  void tensor(const at::Tensor& t) {
    if (!t.defined()) throw std::runtime_error("an undefined tensor cannot be written to a checkpoint");
    // A non-contiguous tensor (channels-last weights, a transposed view) gets a compact copy so
    // the file holds plain row-major data; contiguous ones keep their storage so aliases stay
    // aliases.
    at::Tensor source = t.is_contiguous() ? t : t.contiguous();
    const std::string storage_class = storage_class_name(source.scalar_type());
    const int64_t storage_numel =
        static_cast<int64_t>(source.storage().nbytes() / source.element_size());
    const std::size_t key = storage_key(source, storage_numel);

    global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    // Persistent id, as torch.save's persistent_id: ('storage', type, key, location, numel).
    op('(');
    text("storage");
    global("torch", storage_class);
    text(std::to_string(key));
    text("cpu");
    integer(storage_numel);
    op('t');
    op('Q');  // BINPERSID
    integer(source.storage_offset());
    op('(');
    for (int64_t size : source.sizes()) integer(size);
    op('t');
    op('(');
    for (int64_t stride : source.strides()) integer(stride);
    op('t');
    op(static_cast<char>(0x89));  // requires_grad=False: checkpoints hold data, not leaves
    global("collections", "OrderedDict");  // backward hooks: always empty
    op(')');
    op('R');
    op('t');
    op('R');
  }

  std::size_t storage_key(const at::Tensor& source, int64_t storage_numel) {
    const std::pair<const void*, int> identity{source.storage().unsafeGetStorageImpl(),
                                               static_cast<int>(source.scalar_type())};
    auto found = keys_.find(identity);
    if (found != keys_.end()) return found->second;
    // A view of the whole storage (as_strided's offset is absolute), brought to the CPU once.
    at::Tensor whole = source.as_strided({storage_numel}, {1}, 0).cpu();
    storages_.push_back(whole);
    // Keep the source alive so its storage address cannot be reused by a temporary copy.
    keep_alive_.push_back(source);
    keys_.emplace(identity, storages_.size() - 1);
    return storages_.size() - 1;
  }

  std::string out_;
  std::vector<at::Tensor> storages_;
  std::vector<at::Tensor> keep_alive_;
  std::map<std::pair<const void*, int>, std::size_t> keys_;
};

}  // namespace

PickledData write_pickle(const PickleValue& root) { return Pickler().run(root); }

}  // namespace libreyolo::core::checkpoint
