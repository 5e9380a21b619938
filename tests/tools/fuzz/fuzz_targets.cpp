#include "fuzz_targets.hpp"

#include <torch/torch.h>

#include <fstream>

#include "libreyolo/core/checkpoint/checkpoint_schema.hpp"
#include "libreyolo/core/checkpoint/finite_weights.hpp"
#include "libreyolo/core/checkpoint/pickle_reader.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/dataset/label_file.hpp"
#include "libreyolo/core/data/image/image_decode.hpp"
#include "libreyolo/core/data/image/image_header.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::test::fuzz {
namespace fs = std::filesystem;
using namespace std::string_literals;  // tokens with NUL bytes
namespace ck = core::checkpoint;
namespace {

void write_file(const fs::path& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Target labels() {
  return {"labels", {"\n", " ", "\r\n", "0 ", "0.5 ", "-1 ", "1e308 ", "nan ", "inf ", "3.0 ", "\xEF\xBB\xBF"},
          [](const Bytes& input) { core::data::parse_label_text(input, 3); }};
}

// A dataset folder whose data.yaml is the input: the reader resolves its split paths against
// real folders and list files.
Target data_yaml(const fs::path& scratch) {
  const fs::path root = scratch / "dataset";
  for (const char* split : {"train", "val"}) {
    fs::create_directories(root / "images" / split);
    write_file(root / "images" / split / "a.jpg", "");
  }
  write_file(root / "list.txt", "images/train/a.jpg\n# comment\n./images/val/a.jpg\n");
  const fs::path yaml = root / "data.yaml";
  return {"data_yaml",
          {"\n", ": ", "- ", "[", "]", "{", "}", "path: ", "train: ", "names: ", "nc: ", "&a ", "*a", "!!str ", "? ",
           "'", "\"", "|\n", "999999999", "-1", "list.txt", "images/val"},
          [yaml](const Bytes& input) {
            write_file(yaml, input);
            core::data::load_dataset_config(yaml);
          }};
}

// cfg=file.yaml with every option of `train`, values checked as the command line's are.
Target cfg(const fs::path& scratch) {
  const fs::path file = scratch / "options.yaml";
  return {"cfg",
          {"\n", ": ", "- ", "[", "]", "{", "}", "epochs: ", "batch: ", "cfg: ", "mosaic_scale: ", "? ", "&a ", "*a", "~"},
          [file](const Bytes& input) {
            write_file(file, input);
            core::config::read_user_options({"cfg=" + file.string()}, core::config::train_options());
          }};
}

// The scan's header reader on the file, then the decoder on the bytes (the loader's path).
Target image(const fs::path& scratch) {
  const fs::path file = scratch / "image";
  return {"image",
          {"\xFF\xD8", "\xFF\xC0", "\xFF\xC2", "\xFF\xC4", "\xFF\xDA", "\xFF\xD9", "\xFF\xE1", "IHDR", "IDAT", "IEND",
           "PLTE", "tRNS", "Exif\0\0"s},
          [file](const Bytes& input) {
            write_file(file, input);
            try {
              core::data::read_image_size(file);
            } catch (const core::Error&) {
              // the scan would drop it; the decoder must still refuse it cleanly
            }
            const auto* data = reinterpret_cast<const std::uint8_t*>(input.data());
            core::data::decode_image_bytes(data, input.size(), "fuzz input", 0);
          }};
}

// data.pkl of a checkpoint; storages come from a stand-in for the zip records that, like
// torch_archive.cpp's loader, refuses a count larger than the record it has.
Target pickle() {
  return {"pickle",
          {"(", ")", "}", "]", "t", "u", "s", "R", "Q", "q\x00"s, "h\x00"s, "\x8c\x05model", "K\x01", "J\xff\xff\xff\x7f",
           "ctorch._utils\n_rebuild_tensor_v2\n", "\x8a\x08", "."},
          [](const Bytes& input) {
            constexpr int64_t kRecordElements = 1 << 16;
            auto load = [](const std::string& key, c10::ScalarType dtype, int64_t numel) {
              if (numel > kRecordElements) throw ck::PickleError("the tensor data record data/" + key + " is too short");
              return at::zeros({numel}, at::TensorOptions().dtype(dtype));
            };
            const auto root = ck::read_pickle(input.data(), input.size(), load);
            ck::LoadOptions lenient;  // a bare state dict is fine: more of the decoder runs
            lenient.require_metadata = false;
            ck::refuse_non_finite(ck::decode_checkpoint(*root, "fuzz input", lenient), "fuzz input");
          }};
}

}  // namespace

std::vector<Target> fuzz_targets(const fs::path& scratch) {
  fs::create_directories(scratch);
  return {labels(), data_yaml(scratch), cfg(scratch), image(scratch), pickle()};
}

bool is_project_error(const std::exception& e) {
  return dynamic_cast<const core::Error*>(&e) != nullptr || dynamic_cast<const ck::PickleError*>(&e) != nullptr;
}

}  // namespace libreyolo::test::fuzz
