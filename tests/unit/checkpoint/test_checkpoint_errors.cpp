// Every bad input load_checkpoint can meet gets a core::Error that says what is wrong.

#include "test_checkpoint_support.hpp"
#include "../temp_dir.hpp"

#include <cmath>
#include <limits>

namespace ck = libreyolo::core::checkpoint;
using namespace libreyolo::test::checkpoint;
using libreyolo::core::Error;
using libreyolo::test::TempDir;
using V = ck::PickleValue;

namespace {

// Loads `path` expecting an Error whose message contains `needle`.
void expect_error(const std::filesystem::path& path, const std::string& needle, ck::LoadOptions options = {}) {
  try {
    ck::load_checkpoint(path, options);
    FAIL("no error for " << path.string() << " (expected '" << needle << "')");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
    CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("a missing file, a folder and an empty file are named") {
  TempDir dir;
  expect_error(dir / "nope.pt", "not found");
  expect_error(dir.path(), "is a folder");
  write_bytes(dir / "empty.pt", "");
  expect_error(dir / "empty.pt", "empty");
}

TEST_CASE("random bytes and a truncated checkpoint are refused, not crashed on") {
  TempDir dir;
  std::string noise(4096, '\0');
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 2654435761u) >> 13);
  write_bytes(dir / "noise.pt", noise);
  expect_error(dir / "noise.pt", "not a PyTorch checkpoint");

  ck::save_checkpoint(dir / "good.pt", sample_checkpoint(trained_net()));
  const std::string good = read_bytes(dir / "good.pt");
  for (std::size_t keep : {good.size() / 2, good.size() - 10, std::size_t{100}}) {
    write_bytes(dir / "cut.pt", good.substr(0, keep));
    expect_error(dir / "cut.pt", "damaged or truncated");
  }
}

TEST_CASE("a legacy (pre-1.6) torch.save file gets its own message") {
  TempDir dir;
  write_bytes(dir / "old.pt", std::string("\x80\x02\x8a\x0a", 4) + "legacy magic number and pickles follow");
  expect_error(dir / "old.pt", "legacy torch.save format");
}

TEST_CASE("a zip that is not a torch.save file") {
  TempDir dir;
  // A corrupted pickle inside a valid archive: the archive reader must not crash either.
  ck::save_checkpoint(dir / "good.pt", sample_checkpoint(trained_net()));
  std::string bytes = read_bytes(dir / "good.pt");
  const auto at = bytes.find("collections");  // inside data.pkl, stored uncompressed
  REQUIRE(at != std::string::npos);
  bytes[at - 1] = '\x07';  // an opcode that does not exist
  write_bytes(dir / "bad.pt", bytes);
  // The zip's CRC catches it first in some LibTorch versions; either way it is refused.
  CHECK_THROWS_AS(ck::load_checkpoint(dir / "bad.pt"), Error);
}

TEST_CASE("a dict without 'model' names the keys it has") {
  TempDir dir;
  auto root = V::dict();
  root->set("state_dict", V::dict());
  root->set("epoch", V::int_value(3));
  write_archive(dir / "foreign.pt", root);
  expect_error(dir / "foreign.pt", "its keys: state_dict, epoch");
  expect_error(dir / "foreign.pt", "convert_");

  auto list = V::list({V::int_value(1)});
  write_archive(dir / "list.pt", list);
  expect_error(dir / "list.pt", "holds a list, not a dict");

  auto root2 = valid_root();
  root2->set("model", V::list({V::tensor_value(torch::ones({1}))}));
  write_archive(dir / "module.pt", root2);
  expect_error(dir / "module.pt", "not a state dict");
}

TEST_CASE("a bare state dict: an error by default, weights only when asked") {
  TempDir dir;
  auto root = V::dict(true);
  root->set("conv.weight", V::tensor_value(torch::ones({2, 2})));
  root->set("conv.bias", V::tensor_value(torch::zeros({2})));
  write_archive(dir / "bare.pt", root);
  expect_error(dir / "bare.pt", "bare state dict");
  expect_error(dir / "bare.pt", "model=<family><size>");

  const auto loaded = ck::load_checkpoint(dir / "bare.pt", ck::LoadOptions{false});
  CHECK(loaded.model.keys() == std::vector<std::string>{"conv.weight", "conv.bias"});
  CHECK(loaded.missing_metadata.size() == 8);
  CHECK(loaded.metadata.model_family.empty());
}

TEST_CASE("missing metadata keys are named") {
  TempDir dir;
  auto root = valid_root();
  root->entries.erase(root->entries.begin() + 4);  // size (entry 0 is model)
  root->entries.erase(root->entries.begin() + 7);  // imgsz
  write_archive(dir / "legacy.pt", root);
  expect_error(dir / "legacy.pt", "lacks LibreYOLO metadata keys: size, imgsz");

  const auto loaded = ck::load_checkpoint(dir / "legacy.pt", ck::LoadOptions{false});
  CHECK(loaded.missing_metadata == std::vector<std::string>{"size", "imgsz"});
  CHECK(loaded.metadata.model_family == "yolo9");
  CHECK(loaded.metadata.nc == 2);
}

TEST_CASE("schema_version: 1.0 loads, 1.x warns, another major version is refused") {
  TempDir dir;
  auto root = valid_root();
  write_archive(dir / "v10.pt", root);
  CHECK(ck::load_checkpoint(dir / "v10.pt").warnings.empty());

  root->set("schema_version", V::string("1.3"));
  write_archive(dir / "v13.pt", root);
  const auto loaded = ck::load_checkpoint(dir / "v13.pt");
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].find("1.3") != std::string::npos);

  root->set("schema_version", V::string("2.0"));
  write_archive(dir / "v20.pt", root);
  expect_error(dir / "v20.pt", "schema_version is '2.0'");

  root->set("schema_version", V::float_value(1.0));
  write_archive(dir / "float.pt", root);
  expect_error(dir / "float.pt", "'schema_version' is a float");
}

TEST_CASE("names: out of range is an error, gaps are padded with class_i") {
  TempDir dir;
  auto root = valid_root();
  auto names = V::dict();
  names->set(V::int_value(0), V::string("a"));
  names->set(V::int_value(2), V::string("c"));
  root->set("names", names);
  write_archive(dir / "range.pt", root);
  expect_error(dir / "range.pt", "outside 0..1 (nc=2): 2");

  auto sparse = V::dict();
  sparse->set(V::int_value(1), V::string("b"));
  root->set("names", sparse);
  write_archive(dir / "sparse.pt", root);
  const auto loaded = ck::load_checkpoint(dir / "sparse.pt");
  CHECK(loaded.metadata.names == std::vector<std::string>{"class_0", "b"});
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].find("class_i") != std::string::npos);

  // LibreYOLO's reader also takes a list and int-like str keys.
  root->set("names", V::list({V::string("x"), V::string("y")}));
  write_archive(dir / "list.pt", root);
  CHECK(ck::load_checkpoint(dir / "list.pt").metadata.names == std::vector<std::string>{"x", "y"});
  auto strkeys = V::dict();
  strkeys->set("1", V::string("y"));
  strkeys->set("0", V::string("x"));
  root->set("names", strkeys);
  write_archive(dir / "str.pt", root);
  CHECK(ck::load_checkpoint(dir / "str.pt").metadata.names == std::vector<std::string>{"x", "y"});

  auto negative = V::dict();
  negative->set(V::int_value(-1), V::string("x"));
  root->set("names", negative);
  write_archive(dir / "neg.pt", root);
  expect_error(dir / "neg.pt", "outside");

  auto words = V::dict();
  words->set("cat", V::string("x"));
  root->set("names", words);
  write_archive(dir / "words.pt", root);
  expect_error(dir / "words.pt", "non-integer key 'cat'");
}

TEST_CASE("wrongly typed metadata values are named") {
  TempDir dir;
  auto root = valid_root();
  root->set("nc", V::string("80"));
  write_archive(dir / "nc.pt", root);
  expect_error(dir / "nc.pt", "'nc' is a str, expected a positive int");

  root = valid_root();
  root->set("imgsz", V::int_value(0));
  write_archive(dir / "imgsz.pt", root);
  expect_error(dir / "imgsz.pt", "'imgsz' is 0");

  root = valid_root();
  root->set("task", V::string("tracking"));
  write_archive(dir / "task.pt", root);
  expect_error(dir / "task.pt", "task 'tracking'");

  root = valid_root();
  root->set("model_family", V::string(""));
  write_archive(dir / "family.pt", root);
  expect_error(dir / "family.pt", "'model_family' is empty");

  root = valid_root();
  (*root->find("model"))->set("bn.extra", V::int_value(3));
  write_archive(dir / "extra.pt", root);
  expect_error(dir / "extra.pt", "model['bn.extra'] is a int, not a tensor");
}

TEST_CASE("a LibreYOLO (Python) training checkpoint loads as weights, with a warning") {
  TempDir dir;
  auto root = valid_root();
  root->set("epoch", V::int_value(9));
  root->set("optimizer", V::dict());
  write_archive(dir / "python_last.pt", root);
  const auto loaded = ck::load_checkpoint(dir / "python_last.pt");
  CHECK_FALSE(loaded.train.has_value());
  REQUIRE(loaded.warnings.size() == 1);
  CHECK(loaded.warnings[0].find("cannot be resumed by the host") != std::string::npos);
}

TEST_CASE("a host training state from another layout or with broken fields is refused") {
  TempDir dir;
  ck::Checkpoint c = sample_checkpoint(trained_net());
  c.train.emplace();
  ck::save_checkpoint(dir / "last.pt", c);
  auto root = ck::read_torch_archive(dir / "last.pt");
  auto& host = **root->find(ck::kHostTrainStateKey);

  host.set("format", V::int_value(2));
  write_archive(dir / "future.pt", root);
  expect_error(dir / "future.pt", "layout 2");

  host.set("format", V::int_value(1));
  host.set("global_step", V::string("12"));
  write_archive(dir / "broken.pt", root);
  expect_error(dir / "broken.pt", "global_step is a str");
}

TEST_CASE("save_checkpoint on a full disk keeps the previous checkpoint byte for byte") {
  TempDir dir;
  const auto path = dir / "last.pt";
  ck::Checkpoint first = sample_checkpoint(trained_net(3, 1));
  ck::save_checkpoint(path, first);
  const std::string before = read_bytes(path);

  ck::Checkpoint second = sample_checkpoint(trained_net(3, 2));
  // Injected: the disk fills after 1000 bytes, in the middle of the archive.
  std::size_t budget = 1000;
  ck::FileHooks hooks;
  hooks.write = [&](int fd, const void* data, std::size_t size) -> ssize_t {
    if (budget == 0) {
      errno = ENOSPC;
      return -1;
    }
    const std::size_t n = std::min(size, budget);
    budget -= n;
    return ::write(fd, data, n);
  };
  try {
    ck::save_checkpoint(path, second, hooks);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("No space left on device") != std::string::npos);
    CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
  }
  CHECK(read_bytes(path) == before);
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
  CHECK(bit_equal(ck::load_checkpoint(path).model, first.model));

  // Real: the temp file's name is taken by a folder, so it cannot even be created.
  std::filesystem::create_directory(ck::temp_path_for(path));
  CHECK_THROWS_AS(ck::save_checkpoint(path, second), Error);
  CHECK(read_bytes(path) == before);
}

// Issue #20, item 6: silent corruption is refused.
TEST_CASE("a checkpoint whose bytes changed after writing fails its CRC check") {
  TempDir dir;
  auto c = sample_checkpoint(trained_net());
  // A tensor of one recognisable float, so its bytes can be found in the file.
  c.model.insert("marker", torch::full({64}, 1234.5f));
  ck::save_checkpoint(dir / "good.pt", c);
  std::string bytes = read_bytes(dir / "good.pt");
  const float marker = 1234.5f;
  const auto at = bytes.find(std::string(reinterpret_cast<const char*>(&marker), sizeof marker));
  REQUIRE(at != std::string::npos);
  bytes[at + 1] = static_cast<char>(bytes[at + 1] ^ 0x10);  // 1234.5 becomes another finite number
  write_bytes(dir / "flipped.pt", bytes);
  expect_error(dir / "flipped.pt", "fails its CRC-32 check");
  CHECK_NOTHROW(ck::load_checkpoint(dir / "good.pt"));
}

TEST_CASE("weights holding NaN or infinity are refused with the tensor's name") {
  TempDir dir;
  auto c = sample_checkpoint(trained_net());
  auto broken = c.model["head.weight"].clone();
  broken[0][1] = std::nanf("");
  broken[1][0] = std::numeric_limits<float>::infinity();
  c.model["head.weight"] = broken;
  ck::save_checkpoint(dir / "nan.pt", c);
  expect_error(dir / "nan.pt", "tensor 'head.weight' holds 2 of 12 values that are NaN or infinite");
}
