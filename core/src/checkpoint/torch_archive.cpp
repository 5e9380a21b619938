#include "libreyolo/core/checkpoint/torch_archive.hpp"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <fstream>
#include <string>

#include "libreyolo/core/checkpoint/pickle_reader.hpp"
#include "libreyolo/core/checkpoint/pickle_writer.hpp"
#include "libreyolo/core/checkpoint/zip_crc.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/util/regular_file.hpp"

namespace libreyolo::core::checkpoint {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

[[noreturn]] void unreadable(const std::filesystem::path& path, const std::string& why) {
  throw Error("Cannot read checkpoint " + path.string(), why,
              "Pass a .pt file written by LibreYOLO, torch.save or libreyolo-host; if it was "
              "downloaded, download it again");
}

// Looks at the first bytes so that the common wrong files get a precise message instead of
// the zip library's "failed finding central directory".
void check_signature(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) unreadable(path, std::string("it cannot be opened: ") + std::strerror(errno));
  unsigned char head[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto got = in.gcount();
  if (got == 0) unreadable(path, "the file is empty");
  if (got >= 2 && head[0] == 0x80 && head[1] <= 5) {
    throw Error("Cannot read checkpoint " + path.string(),
                "it is in the legacy torch.save format (PyTorch before 1.6, or "
                "_use_new_zipfile_serialization=False), which the host does not read",
                "Re-save it in Python: torch.save(torch.load(path, weights_only=False), path)");
  }
  if (got < 4 || std::memcmp(head, "PK\x03\x04", 4) != 0)
    unreadable(path, "it is not a PyTorch checkpoint (no zip archive signature)");
}

}  // namespace

void write_torch_archive(const PickleValue& root,
                         const std::function<void(const void* data, std::size_t size)>& sink) {
  const PickledData pickled = write_pickle(root);
  // The sink must never make the zip writer fail (see AtomicFileWriter): it reports success
  // and the caller checks for errors afterwards.
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, std::size_t size) -> std::size_t {
    sink(data, size);
    return size;
  });
  writer.writeRecord("data.pkl", pickled.pickle.data(), pickled.pickle.size());
  // torch.load assumes the machine's byte order when this record is missing; say it.
  writer.writeRecord("byteorder", "little", 6);
  for (std::size_t i = 0; i < pickled.storages.size(); ++i) {
    const at::Tensor& storage = pickled.storages[i];
    writer.writeRecord("data/" + std::to_string(i), storage.data_ptr(), storage.nbytes());
  }
  writer.writeEndOfFile();
}

PickleRef read_torch_archive(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error("Checkpoint " + path.string() + " not found", "no file exists at that path",
                "Check the path (relative paths are resolved from the current folder)");
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw Error("Cannot read checkpoint " + path.string(), "it is a folder, not a file",
                "Pass the .pt file inside it, e.g. " + (path / "weights" / "last.pt").string());
  }
  // Before anything opens it: opening a FIFO waits for a writer forever.
  if (const std::string reason = util::not_regular_file_reason(path); !reason.empty()) {
    throw Error("Cannot read checkpoint " + path.string(), reason,
                "Pass the .pt file itself (a FIFO, device or socket cannot hold a checkpoint)");
  }
  check_signature(path);

  const auto crcs = stored_crcs(path);
  // Every record read is checked against its CRC-32: LibTorch's reader does not.
  auto check_crc = [&](const std::string& name, const at::DataPtr& bytes, std::size_t size) {
    const auto stored = crcs.find(name);
    if (stored == crcs.end() || crc32(bytes.get(), size) == stored->second) return;
    unreadable(path, "the zip archive is damaged: record " + name +
                         " fails its CRC-32 check (its bytes changed after it was written: a bad disk, an "
                         "incomplete copy or an edit)");
  };
  try {
    caffe2::serialize::PyTorchStreamReader reader(path.string());
    if (!reader.hasRecord("data.pkl"))
      unreadable(path, "the zip archive has no data.pkl record (it is not a torch.save file; a "
                       "TorchScript or ONNX export is not a checkpoint)");
    at::DataPtr pickle;
    std::size_t pickle_size = 0;
    std::tie(pickle, pickle_size) = reader.getRecord("data.pkl");
    check_crc("data.pkl", pickle, pickle_size);

    auto load_storage = [&](const std::string& key, c10::ScalarType dtype, int64_t numel) {
      const std::string name = "data/" + key;
      if (!reader.hasRecord(name)) throw PickleError("the tensor data record " + name + " is missing");
      at::DataPtr bytes;
      std::size_t size = 0;
      std::tie(bytes, size) = reader.getRecord(name);
      check_crc(name, bytes, size);
      // Check the record against the claimed element count before allocating: a damaged
      // count must not turn into a huge allocation.
      const std::size_t item = c10::elementSize(dtype);
      if (numel < 0 || static_cast<uint64_t>(numel) > size / item)
        throw PickleError("the tensor data record " + name + " has " + std::to_string(size) +
                          " bytes, too few for " + std::to_string(numel) + " elements");
      at::Tensor storage = at::empty({numel}, at::TensorOptions().dtype(dtype));
      if (numel > 0) std::memcpy(storage.data_ptr(), bytes.get(), static_cast<std::size_t>(numel) * item);
      return storage;
    };
    return read_pickle(static_cast<const char*>(pickle.get()), pickle_size, load_storage);
  } catch (const PickleError& e) {
    unreadable(path, std::string("its data is malformed: ") + e.what());
  } catch (const c10::Error& e) {
    unreadable(path, "the zip archive is damaged or truncated (" +
                         first_line(e.what_without_backtrace()) + ")");
  }
}

}  // namespace libreyolo::core::checkpoint
