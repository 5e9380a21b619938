#pragma once
// The `<destination>.part` a download writes into, opened and locked (flock) for the whole
// download, so that two processes fetching the same file take turns: the second finds the
// finished file when it gets the lock. Internal to the downloader.

#include <cstdint>
#include <filesystem>
#include <string>

namespace libreyolo::core::weights {

class PartFile {
 public:
  // Opens (creating) and locks `<destination>.part`; `error` is set when that fails.
  PartFile(const std::filesystem::path& destination, std::string& error);
  ~PartFile();
  PartFile(const PartFile&) = delete;
  PartFile& operator=(const PartFile&) = delete;

  bool open() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }
  std::uint64_t size() const;
  // Empties the file (the server sent the whole file instead of the missing range).
  bool restart();
  // All of `bytes`, at the end; false with errno's message in `error`.
  bool append(const char* bytes, std::size_t count, std::string& error);
  // fsync, then rename to `destination`: the finished file appears whole or not at all.
  bool publish(const std::filesystem::path& destination, std::string& error);
  // Removes the .part when it holds nothing worth resuming; true when something is kept.
  bool keep_if_useful();
  // Another process finished `destination` while this one waited for the lock: drop this .part
  // if it is one this process created after the other's rename.
  void discard_if_other_finished(const std::filesystem::path& destination);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace libreyolo::core::weights
