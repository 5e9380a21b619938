#pragma once
// A restricted unpickler for the pickles inside torch.save files (protocol 2, which torch.save
// uses, plus the protocol 3-4 opcodes a user's pickle_protocol= could add). It never imports or
// calls Python code: it rebuilds plain data and tensors and turns every other object into an
// opaque node (see pickle_value.hpp). Think of it as torch.load(weights_only=True) that
// tolerates foreign extras instead of refusing the whole file.

#include <c10/core/ScalarType.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "libreyolo/core/checkpoint/pickle_value.hpp"

namespace libreyolo::core::checkpoint {

// A malformed or unsupported pickle. The archive reader turns it into a core::Error that
// names the file.
class PickleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the storage called `key` in the archive as a 1-D CPU tensor of `numel` elements of
// `dtype`. Called once per distinct key.
using StorageLoader =
    std::function<at::Tensor(const std::string& key, c10::ScalarType dtype, int64_t numel)>;

PickleRef read_pickle(const char* data, std::size_t size, const StorageLoader& load_storage);

}  // namespace libreyolo::core::checkpoint
