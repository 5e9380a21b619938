// write_file_atomically: the old file survives every failure byte for byte, and no temp file
// is left behind. Real OS failures where they can be made without root (a file size limit,
// a folder in the temp file's way), injected ones for a full disk and a failed fsync.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "libreyolo/core/checkpoint/atomic_file.hpp"
#include "libreyolo/core/error.hpp"
#include "../temp_dir.hpp"

namespace ck = libreyolo::core::checkpoint;
using libreyolo::core::Error;
using libreyolo::test::TempDir;

namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_string(const std::filesystem::path& path, const std::string& text) {
  ck::write_file_atomically(path, [&](ck::AtomicFileWriter& out) { out.write(text.data(), text.size()); });
}

// 64 KiB in 1 KiB pieces, like the zip writer's many small writes.
void produce_big(ck::AtomicFileWriter& out) {
  const std::string chunk(1024, 'n');
  for (int i = 0; i < 64; ++i) out.write(chunk.data(), chunk.size());
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Lowers the file size limit for this process and restores it, even when a CHECK fails.
// Writes past the limit then fail with EFBIG (SIGXFSZ is ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

}  // namespace

TEST_CASE("atomic write replaces the file and leaves no temp file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "old");
  write_string(path, "new contents");
  CHECK(read_all(path) == "new contents");
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
  CHECK(contains(ck::temp_path_for(path).string(), "last.pt.tmp-"));
}

TEST_CASE("a full disk (injected ENOSPC) keeps the old file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "the previous checkpoint");
  std::size_t budget = 5000;  // the disk fills after 5000 bytes
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
  const std::string message = error_of([&] { ck::write_file_atomically(path, produce_big, hooks); });
  CHECK(contains(message, path.string()));
  CHECK(contains(message, "No space left on device"));
  CHECK(contains(message, "unchanged"));
  CHECK(read_all(path) == "the previous checkpoint");
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
}

TEST_CASE("a real write failure (file size limit, EFBIG) keeps the old file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "the previous checkpoint");
  std::string message;
  {
    FileSizeLimit limit(16 * 1024);
    message = error_of([&] { ck::write_file_atomically(path, produce_big); });
  }
  CHECK(contains(message, "File too large"));
  CHECK(read_all(path) == "the previous checkpoint");
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
}

TEST_CASE("a temp file that cannot be created (a folder in its way) keeps the old file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "the previous checkpoint");
  std::filesystem::create_directory(ck::temp_path_for(path));
  const std::string message = error_of([&] { write_string(path, "new"); });
  CHECK(contains(message, "creating the temporary file"));
  CHECK(read_all(path) == "the previous checkpoint");
  // Not ours: it must still be there.
  CHECK(std::filesystem::is_directory(ck::temp_path_for(path)));
}

TEST_CASE("a missing folder says so") {
  TempDir dir;
  const std::string message = error_of([&] { write_string(dir / "no" / "such" / "last.pt", "x"); });
  CHECK(contains(message, "No such file or directory"));
  CHECK(contains(message, "Create the folder"));
}

TEST_CASE("a failed rename (a folder at the target) removes the temp file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  std::filesystem::create_directories(path / "inside");
  const std::string message = error_of([&] { write_string(path, "new"); });
  CHECK(contains(message, "renaming"));
  CHECK(std::filesystem::is_directory(path / "inside"));
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
}

TEST_CASE("a failed fsync (injected EIO) keeps the old file") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "the previous checkpoint");
  ck::FileHooks hooks;
  hooks.fsync = [](int) {
    errno = EIO;
    return -1;
  };
  const std::string message = error_of([&] { ck::write_file_atomically(path, produce_big, hooks); });
  CHECK(contains(message, "flushing"));
  CHECK(contains(message, "Input/output error"));
  CHECK(read_all(path) == "the previous checkpoint");
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
}

TEST_CASE("an exception from the producer is passed on and the old file kept") {
  TempDir dir;
  const auto path = dir / "last.pt";
  write_string(path, "the previous checkpoint");
  auto failing = [](ck::AtomicFileWriter& out) {
    out.write("partial", 7);
    throw std::runtime_error("encoder failed");
  };
  CHECK_THROWS_WITH_AS(ck::write_file_atomically(path, failing), "encoder failed", std::runtime_error);
  CHECK(read_all(path) == "the previous checkpoint");
  CHECK_FALSE(std::filesystem::exists(ck::temp_path_for(path)));
}
