#pragma once
// What the launcher does with its workers' output: rank 0's is forwarded live to the launcher's
// own stdout/stderr (the user watches one rank, as with a single-GPU run), and the last lines of
// any rank are kept for the failure report, because the error that killed a rank is usually in
// its final lines.

#include <chrono>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "unique_fd.hpp"

namespace libreyolo::core::distributed {

inline constexpr std::size_t kTailLines = 20;

// The last `max_lines` complete lines seen.
class LineTail {
 public:
  explicit LineTail(std::size_t max_lines = kTailLines) : max_lines_(max_lines) {}
  void add(std::string line);
  std::vector<std::string> lines() const { return {lines_.begin(), lines_.end()}; }

 private:
  std::size_t max_lines_;
  std::deque<std::string> lines_;
};

// Cuts a byte stream into lines for a LineTail. A progress bar redraws its line with '\r', so
// only the last drawing of a line is kept; an endless line keeps only its end (bounded memory).
class LineSplitter {
 public:
  void feed(std::string_view bytes, LineTail& tail);
  void flush(LineTail& tail);  // the unterminated last line, if any

 private:
  std::string partial_;  // the line being written
  std::string redrawn_;  // its previous drawing, ended by '\r'
};

// The last `max_lines` lines of a rank's log file; reads only the file's end. Empty when the
// file cannot be read (the report then just lacks the tail).
std::vector<std::string> read_log_tail(const std::filesystem::path& file, std::size_t max_lines = kTailLines);

// Rank 0's stdout and stderr pipes, copied to this process's stdout and stderr as they arrive.
class ForwardedOutput {
 public:
  ForwardedOutput(UniqueFd stdout_read, UniqueFd stderr_read);

  // Waits up to `timeout` for output and forwards what came; with both pipes closed it just
  // sleeps `timeout`, so the supervision loop keeps its pace either way. True when bytes came.
  bool pump(std::chrono::milliseconds timeout);
  // Forwards what is already in the pipes without waiting (after rank 0 has exited). Bounded,
  // in case a grandchild still holds a pipe open and keeps writing.
  void drain();
  // The last lines of both streams, in the order they were read.
  std::vector<std::string> tail_lines();

 private:
  struct Stream {
    UniqueFd fd;
    int target_fd;
    LineSplitter splitter;
  };
  bool forward_available(Stream& stream);  // false once the pipe reached end of file

  Stream streams_[2];
  LineTail tail_;
};

}  // namespace libreyolo::core::distributed
