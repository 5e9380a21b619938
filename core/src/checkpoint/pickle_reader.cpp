// The opcodes follow Python's Lib/pickletools.py; the tensor rebuild follows what
// torch/_tensor.py (__reduce_ex__) and torch/serialization.py (persistent_id) write.

#include "libreyolo/core/checkpoint/pickle_reader.hpp"

#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "libreyolo/core/checkpoint/storage_types.hpp"

namespace libreyolo::core::checkpoint {
namespace {

using Kind = PickleValue::Kind;

class Unpickler {
 public:
  Unpickler(const char* data, std::size_t size, const StorageLoader& load_storage)
      : data_(reinterpret_cast<const unsigned char*>(data)), size_(size), load_storage_(load_storage) {}

  PickleRef run() {
    while (true) {
      const std::size_t at = pos_;
      const unsigned char op = byte();
      switch (op) {
        case 0x80: byte(); break;                  // PROTO n
        case 0x95: bytes(8); break;                // FRAME: a length hint only
        case '.': return finish(at);               // STOP
        case '(': marks_.push_back(stack_.size()); break;  // MARK
        case '0': pop(); break;                    // POP
        case '1': pop_mark(); break;               // POP_MARK
        case '2': push(top()); break;              // DUP
        case 'N': push(PickleValue::none()); break;
        case 0x88: push(PickleValue::boolean_value(true)); break;
        case 0x89: push(PickleValue::boolean_value(false)); break;
        case 'J': push(PickleValue::int_value(static_cast<int32_t>(little(4)))); break;
        case 'K': push(PickleValue::int_value(static_cast<int64_t>(little(1)))); break;
        case 'M': push(PickleValue::int_value(static_cast<int64_t>(little(2)))); break;
        case 0x8a: push(long_int(little(1))); break;   // LONG1
        case 0x8b: push(long_int(little(4))); break;   // LONG4
        case 'I': push(text_int(line())); break;       // INT (protocol 0)
        case 'G': push(PickleValue::float_value(big_double())); break;  // BINFLOAT
        case 'X': push(PickleValue::string(bytes(little(4)))); break;   // BINUNICODE
        case 0x8c: push(PickleValue::string(bytes(little(1)))); break;  // SHORT_BINUNICODE
        case 0x8d: push(PickleValue::string(bytes(little(8)))); break;  // BINUNICODE8
        case 'T': push(PickleValue::string(bytes(little(4)))); break;   // BINSTRING (py2 str)
        case 'U': push(PickleValue::string(bytes(little(1)))); break;   // SHORT_BINSTRING
        case 'B': push(PickleValue::bytes(bytes(little(4)))); break;    // BINBYTES
        case 'C': push(PickleValue::bytes(bytes(little(1)))); break;    // SHORT_BINBYTES
        case 0x8e: push(PickleValue::bytes(bytes(little(8)))); break;   // BINBYTES8
        case '}': push(PickleValue::dict()); break;                      // EMPTY_DICT
        case ']': push(PickleValue::list()); break;                      // EMPTY_LIST
        case ')': push(PickleValue::tuple()); break;                     // EMPTY_TUPLE
        case 0x8f: push(PickleValue::opaque("set")); break;              // EMPTY_SET
        case 'd': push(dict_from(pop_mark())); break;                    // DICT
        case 'l': push(PickleValue::list(pop_mark())); break;            // LIST
        case 't': push(PickleValue::tuple(pop_mark())); break;           // TUPLE
        case 0x91: pop_mark(); push(PickleValue::opaque("frozenset")); break;  // FROZENSET
        case 0x85: push(PickleValue::tuple(pop_n(1))); break;            // TUPLE1
        case 0x86: push(PickleValue::tuple(pop_n(2))); break;            // TUPLE2
        case 0x87: push(PickleValue::tuple(pop_n(3))); break;            // TUPLE3
        case 'a': append(pop_n(1)); break;                               // APPEND
        case 'e': append(pop_mark()); break;                             // APPENDS
        case 0x90: pop_mark(); break;                                    // ADDITEMS (to a set)
        case 's': set_items(pop_n(2)); break;                            // SETITEM
        case 'u': set_items(pop_mark()); break;                          // SETITEMS
        case 'h': push(memo_get(little(1))); break;                      // BINGET
        case 'j': push(memo_get(little(4))); break;                      // LONG_BINGET
        case 'g': push(memo_get(text_index(line()))); break;             // GET
        case 'q': memo_[little(1)] = top(); break;                       // BINPUT
        case 'r': memo_[little(4)] = top(); break;                       // LONG_BINPUT
        case 'p': memo_[text_index(line())] = top(); break;              // PUT
        case 0x94: memo_[memo_.size()] = top(); break;                   // MEMOIZE
        case 'c': {                                                      // GLOBAL
          std::string module = line();
          push(PickleValue::global(module + "." + line()));
          break;
        }
        case 0x93: {                                                     // STACK_GLOBAL
          auto name = pop();
          auto module = pop();
          push(PickleValue::global(module->text + "." + name->text));
          break;
        }
        case 'R': reduce(); break;                                       // REDUCE
        case 0x81: new_object(false); break;                             // NEWOBJ
        case 0x92: new_object(true); break;                              // NEWOBJ_EX
        case 'b': pop(); top(); break;  // BUILD: attribute state (a state dict's _metadata, ...)
        case 'Q': push(persistent_load(pop())); break;                   // BINPERSID
        default:
          fail("unsupported pickle opcode 0x" + hex(op) + " at byte " + std::to_string(at));
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw PickleError(message); }

  static std::string hex(unsigned value) {
    const char* digits = "0123456789abcdef";
    return {digits[(value >> 4) & 15], digits[value & 15]};
  }

  unsigned char byte() {
    if (pos_ >= size_) fail("the pickle ends early (truncated data)");
    return data_[pos_++];
  }

  std::string bytes(uint64_t count) {
    if (count > size_ - pos_) fail("the pickle ends early (truncated data)");
    std::string out(reinterpret_cast<const char*>(data_ + pos_), count);
    pos_ += count;
    return out;
  }

  uint64_t little(int count) {
    uint64_t value = 0;
    for (int i = 0; i < count; ++i) value |= static_cast<uint64_t>(byte()) << (8 * i);
    return value;
  }

  double big_double() {
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | byte();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }

  std::string line() {
    std::string out;
    while (true) {
      const unsigned char c = byte();
      if (c == '\n') return out;
      out.push_back(static_cast<char>(c));
    }
  }

  // LONG1/LONG4: little-endian two's complement of `count` bytes. Python ints wider than 64
  // bits become opaque: nothing we read needs them, and failing the whole file would be wrong.
  PickleRef long_int(uint64_t count) {
    const std::string raw = bytes(count);
    if (count == 0) return PickleValue::int_value(0);
    if (count > 8) return PickleValue::opaque("int wider than 64 bits");
    uint64_t value = 0;
    for (uint64_t i = 0; i < count; ++i) value |= static_cast<uint64_t>(static_cast<unsigned char>(raw[i])) << (8 * i);
    if (count < 8 && (static_cast<unsigned char>(raw[count - 1]) & 0x80)) value |= ~uint64_t{0} << (8 * count);
    return PickleValue::int_value(static_cast<int64_t>(value));
  }

  PickleRef text_int(const std::string& text) {
    if (text == "00") return PickleValue::boolean_value(false);
    if (text == "01") return PickleValue::boolean_value(true);
    try {
      return PickleValue::int_value(std::stoll(text));
    } catch (const std::exception&) {
      fail("bad INT literal '" + text + "'");
    }
  }

  uint64_t text_index(const std::string& text) {
    try {
      return std::stoull(text);
    } catch (const std::exception&) {
      fail("bad memo index '" + text + "'");
    }
  }

  void push(PickleRef value) { stack_.push_back(std::move(value)); }

  PickleRef pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail("malformed pickle (stack underflow)");
    PickleRef value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }

  PickleRef& top() {
    if (stack_.empty()) fail("malformed pickle (stack underflow)");
    return stack_.back();
  }

  std::vector<PickleRef> pop_n(std::size_t n) {
    std::vector<PickleRef> out(n);
    for (std::size_t i = n; i-- > 0;) out[i] = pop();
    return out;
  }

  std::vector<PickleRef> pop_mark() {
    if (marks_.empty()) fail("malformed pickle (no MARK)");
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(mark)),
                               std::make_move_iterator(stack_.end()));
    stack_.resize(mark);
    return out;
  }

  PickleRef memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("malformed pickle (memo entry " + std::to_string(index) + " missing)");
    return it->second;
  }

  PickleRef dict_from(const std::vector<PickleRef>& items) {
    auto dict = PickleValue::dict();
    fill(*dict, items);
    return dict;
  }

  void fill(PickleValue& dict, const std::vector<PickleRef>& items) {
    if (items.size() % 2 != 0) fail("malformed pickle (odd number of dict items)");
    for (std::size_t i = 0; i < items.size(); i += 2) dict.set(items[i], items[i + 1]);
  }

  void set_items(const std::vector<PickleRef>& items) {
    PickleValue& target = *top();
    if (target.kind == Kind::Dict) return fill(target, items);
    if (target.kind != Kind::Opaque) fail("malformed pickle (SETITEMS on a " + describe(target) + ")");
  }

  void append(const std::vector<PickleRef>& items) {
    PickleValue& target = *top();
    if (target.kind == Kind::List) {
      target.items.insert(target.items.end(), items.begin(), items.end());
      return;
    }
    if (target.kind != Kind::Opaque) fail("malformed pickle (APPENDS on a " + describe(target) + ")");
  }

  PickleRef finish(std::size_t at) {
    if (stack_.size() != 1 || !marks_.empty()) fail("malformed pickle (STOP at byte " + std::to_string(at) + " with " + std::to_string(stack_.size()) + " values on the stack)");
    return stack_.back();
  }

  // ('storage', torch.<Type>Storage, key, location, numel): torch.save's persistent id.
  PickleRef persistent_load(const PickleRef& pid) {
    if (pid->kind != Kind::Tuple || pid->items.size() < 5 || pid->items[0]->kind != Kind::String ||
        pid->items[0]->text != "storage")
      fail("unsupported persistent id (not a torch.save storage reference)");
    const auto& type = *pid->items[1];
    const auto& key = *pid->items[2];
    const auto& numel = *pid->items[4];
    auto dtype = type.kind == Kind::Global ? storage_dtype(type.text) : std::nullopt;
    if (!dtype) fail("unsupported storage type " + describe(type));
    if (key.kind != Kind::String || numel.kind != Kind::Int || numel.integer < 0)
      fail("malformed storage reference");
    auto cached = storages_.find(key.text);
    if (cached == storages_.end()) {
      cached = storages_.emplace(key.text, load_storage_(key.text, *dtype, numel.integer)).first;
    }
    return PickleValue::tensor_value(cached->second);
  }

  // torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
  PickleRef rebuild_tensor(const std::vector<PickleRef>& args) {
    if (args.size() < 4 || args[0]->kind != Kind::Tensor || args[1]->kind != Kind::Int)
      fail("malformed tensor record");
    const at::Tensor& storage = args[0]->tensor;
    const std::vector<int64_t> sizes = int_tuple(*args[2]);
    const std::vector<int64_t> strides = int_tuple(*args[3]);
    const int64_t offset = args[1]->integer;
    if (sizes.size() != strides.size()) fail("malformed tensor record (sizes and strides differ in length)");
    // The last element the view touches must lie inside the storage, or as_strided would read
    // past the buffer.
    int64_t last = offset;
    bool empty = false;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] < 0 || strides[i] < 0) fail("malformed tensor record (negative size or stride)");
      int64_t reach = 0;
      if (sizes[i] == 0) empty = true;
      else if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) || __builtin_add_overflow(last, reach, &last))
        fail("malformed tensor record (shape overflows)");
    }
    if (offset < 0 || (!empty && last >= storage.numel()))
      fail("tensor record reaches past its storage (" + std::to_string(storage.numel()) + " elements)");
    return PickleValue::tensor_value(storage.as_strided(sizes, strides, offset));
  }

  std::vector<int64_t> int_tuple(const PickleValue& value) {
    if (value.kind != Kind::Tuple && value.kind != Kind::List) fail("malformed tensor record (shape is a " + describe(value) + ")");
    std::vector<int64_t> out;
    for (const auto& item : value.items) {
      if (item->kind != Kind::Int) fail("malformed tensor record (non-integer shape)");
      out.push_back(item->integer);
    }
    return out;
  }

  void reduce() {
    auto args = pop();
    auto callable = pop();
    if (callable->kind != Kind::Global) {
      push(PickleValue::opaque("result of calling " + describe(*callable)));
      return;
    }
    const std::string& name = callable->text;
    const std::vector<PickleRef> no_args;
    const std::vector<PickleRef>& a = args->kind == Kind::Tuple ? args->items : no_args;
    if (name == "collections.OrderedDict") {
      auto dict = PickleValue::dict(true);
      push(dict);
    } else if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      push(rebuild_tensor(a));
    } else if (name == "torch._utils._rebuild_parameter" ||
               name == "torch._utils._rebuild_parameter_with_state") {
      // nn.Parameter(data, requires_grad, hooks): the data is what a checkpoint needs.
      if (a.empty() || a[0]->kind != Kind::Tensor) fail("malformed parameter record");
      push(a[0]);
    } else if (name == "torch.jit._pickle.restore_type_tag" && !a.empty()) {
      push(a[0]);  // written by LibTorch's pickler (torch::pickle_save): value, type string
    } else if (name.rfind("torch.jit._pickle.build_", 0) == 0 && !a.empty()) {
      push(a[0]);  // LibTorch's specialised int/float/bool/tensor lists
    } else if (name == "_codecs.encode" && !a.empty() && a[0]->kind == Kind::String) {
      push(PickleValue::bytes(a[0]->text));  // how protocol 2 spells bytes
    } else {
      push(PickleValue::opaque(name + " object"));
    }
  }

  void new_object(bool with_kwargs) {
    if (with_kwargs) pop();
    pop();  // args
    auto cls = pop();
    push(PickleValue::opaque(describe(*cls) + " object"));
  }

  const unsigned char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  const StorageLoader& load_storage_;
  std::vector<PickleRef> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<uint64_t, PickleRef> memo_;
  std::map<std::string, at::Tensor> storages_;
};

}  // namespace

PickleRef read_pickle(const char* data, std::size_t size, const StorageLoader& load_storage) {
  return Unpickler(data, size, load_storage).run();
}

}  // namespace libreyolo::core::checkpoint
