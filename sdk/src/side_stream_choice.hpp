#pragma once
// Which side stream a branch started from a fork point (side_by_side.hpp) may run on.
//
// A stream runs its work in order, so a branch queued on a stream that still holds other work
// waits for that work too, although it does not need it: a false dependency that would undo the
// overlap. That happens easily: a block's shortcut branch starts after the block's chain, whose own
// nested blocks forked and joined side streams meanwhile; a detector's P3 head starts after the
// whole bottom-up path. So a branch takes a stream only where every piece of work on it already
// comes before the fork point: a stream never used, or one joined into the fork point's stream
// before the point was marked and given nothing since. Where none is, a new stream is made, up to
// a limit; past it the branch runs on the caller's stream (correct, without the overlap).
//
// Host-side bookkeeping only (streams are opaque here), so the CPU build tests it; the CUDA half
// (side_streams_cuda.cpp) makes the streams and orders them with events. Not thread-safe: the
// caller holds a lock.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace libreyolo::sdk {

class SideStreamChoice {
 public:
  using Stream = const void*;  // a cudaStream_t
  struct Point {
    Stream on;
    std::uint64_t tick;
  };

  explicit SideStreamChoice(std::size_t most_streams) : most_(most_streams) {}

  // A fork point on stream `on`, now.
  Point mark(Stream on) { return {on, ++tick_}; }

  // The index of the stream for a branch started from `point` (streams().size(): make a new one
  // and add() it), or nullopt: none may be made, run the branch on the caller's stream.
  std::optional<std::size_t> choose(const Point& point) const {
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      const auto& s = streams_[i];
      const bool never_used = s.started_at == 0;
      const bool all_before_point = s.joined_into == point.on && s.joined_at < point.tick && s.started_at < s.joined_at;
      if (never_used || all_before_point) return i;
    }
    if (streams_.size() < most_) return streams_.size();
    return std::nullopt;
  }
  void add(Stream made) { streams_.push_back({made}); }
  Stream stream(std::size_t index) const { return streams_.at(index).stream; }
  std::size_t streams() const { return streams_.size(); }

  // A branch began on stream `index` / the stream `index` was joined into stream `into`.
  void started(std::size_t index) { streams_.at(index).started_at = ++tick_; }
  void joined(std::size_t index, Stream into) {
    auto& s = streams_.at(index);
    s.joined_into = into;
    s.joined_at = ++tick_;
  }
  // The index of `stream`, or nullopt where it is none of these.
  std::optional<std::size_t> index_of(Stream stream) const {
    for (std::size_t i = 0; i < streams_.size(); ++i)
      if (streams_[i].stream == stream) return i;
    return std::nullopt;
  }

 private:
  struct SideStream {
    Stream stream;
    Stream joined_into = nullptr;
    std::uint64_t started_at = 0, joined_at = 0;  // ticks; 0: never
  };
  std::size_t most_;
  std::uint64_t tick_ = 0;
  std::vector<SideStream> streams_;
};

}  // namespace libreyolo::sdk
