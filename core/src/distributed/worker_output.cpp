#include "worker_output.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <utility>

namespace libreyolo::core::distributed {
namespace {

constexpr std::size_t kMaxLineBytes = 4096;
// Twenty lines of a log fit in this many bytes unless they are absurdly long; reading only the
// end keeps the report cheap for a log of a week-long run.
constexpr std::streamoff kLogTailBytes = 64 * 1024;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // our own stdout is gone: keep supervising regardless
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

}  // namespace

void LineTail::add(std::string line) {
  lines_.push_back(std::move(line));
  while (lines_.size() > max_lines_) lines_.pop_front();
}

void LineSplitter::feed(std::string_view bytes, LineTail& tail) {
  for (const char c : bytes) {
    if (c == '\n') {
      flush(tail);
      continue;
    }
    if (c == '\r') {
      // Either a redraw (more text follows) or half of "\r\n": both leave the line's last drawing.
      if (!partial_.empty()) redrawn_ = std::exchange(partial_, std::string());
      continue;
    }
    partial_ += c;
    if (partial_.size() > kMaxLineBytes) partial_.erase(0, partial_.size() - kMaxLineBytes);
  }
}

void LineSplitter::flush(LineTail& tail) {
  std::string line = partial_.empty() ? std::move(redrawn_) : std::move(partial_);
  partial_.clear();
  redrawn_.clear();
  if (!line.empty()) tail.add(std::move(line));
}

std::vector<std::string> read_log_tail(const std::filesystem::path& file, std::size_t max_lines) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > kLogTailBytes ? size - kLogTailBytes : 0;
  in.seekg(start);
  std::string bytes(static_cast<std::size_t>(size - start), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (start > 0) bytes.erase(0, bytes.find('\n') + 1);  // the first line was cut by the seek
  LineTail tail(max_lines);
  LineSplitter splitter;
  splitter.feed(bytes, tail);
  splitter.flush(tail);
  return tail.lines();
}

ForwardedOutput::ForwardedOutput(UniqueFd stdout_read, UniqueFd stderr_read)
    : streams_{{std::move(stdout_read), STDOUT_FILENO, {}}, {std::move(stderr_read), STDERR_FILENO, {}}} {}

bool ForwardedOutput::pump(std::chrono::milliseconds timeout) {
  pollfd fds[2];
  nfds_t count = 0;
  Stream* polled[2];
  for (Stream& stream : streams_) {
    if (!stream.fd) continue;
    fds[count] = {stream.fd.get(), POLLIN, 0};
    polled[count++] = &stream;
  }
  // With no pipe left this is a plain sleep; EINTR (a Ctrl-C) just ends the wait early.
  if (::poll(count > 0 ? fds : nullptr, count, static_cast<int>(timeout.count())) <= 0) return false;
  bool got_bytes = false;
  for (nfds_t i = 0; i < count; ++i) {
    if (fds[i].revents == 0) continue;
    if (forward_available(*polled[i])) {
      got_bytes = true;
    } else {
      polled[i]->splitter.flush(tail_);
      polled[i]->fd.reset();
    }
  }
  return got_bytes;
}

void ForwardedOutput::drain() {
  for (int round = 0; round < 256 && pump(std::chrono::milliseconds(0)); ++round) {
  }
}

std::vector<std::string> ForwardedOutput::tail_lines() {
  for (Stream& stream : streams_) stream.splitter.flush(tail_);
  return tail_.lines();
}

bool ForwardedOutput::forward_available(Stream& stream) {
  char buffer[8192];
  ssize_t got = 0;
  do {
    got = ::read(stream.fd.get(), buffer, sizeof buffer);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return false;
  write_all(stream.target_fd, buffer, static_cast<std::size_t>(got));
  stream.splitter.feed(std::string_view(buffer, static_cast<std::size_t>(got)), tail_);
  return true;
}

}  // namespace libreyolo::core::distributed
