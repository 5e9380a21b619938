// SideStreamChoice (sdk/src/side_stream_choice.hpp): a branch takes a side stream only where all
// the stream's work already comes before the branch's fork point, so that it never waits for work
// it does not need; otherwise a new stream, up to the limit, then none (the caller's stream).
#include <doctest/doctest.h>

#include <optional>

#include "../../../sdk/src/side_stream_choice.hpp"

using libreyolo::sdk::SideStreamChoice;

namespace {

int main_stream_storage, c_storage;  // stand-ins for streams: only their addresses matter
const SideStreamChoice::Stream kMain = &main_stream_storage;
int made[8];

// Starts a branch from `point` (making the stream where asked) and returns its index.
std::size_t start(SideStreamChoice& choice, const SideStreamChoice::Point& point) {
  const auto index = choice.choose(point);
  REQUIRE(index.has_value());
  if (*index == choice.streams()) choice.add(&made[choice.streams()]);
  choice.started(*index);
  return *index;
}

}  // namespace

TEST_CASE("side stream choice: siblings forked from one stream reuse the stream joined before their point") {
  SideStreamChoice choice(16);
  const auto first = start(choice, choice.mark(kMain));
  choice.joined(first, kMain);
  CHECK(start(choice, choice.mark(kMain)) == first);
  CHECK(choice.streams() == 1);
}

TEST_CASE("side stream choice: a stream used after the point (a nested fork in between) is not taken") {
  SideStreamChoice choice(16);
  const auto outer = choice.mark(kMain);         // a block's fork point
  const auto nested = start(choice, choice.mark(kMain));  // its chain's own fork, joined at once
  choice.joined(nested, kMain);
  const auto shortcut = start(choice, outer);    // the block's other branch, started after its chain
  CHECK(shortcut != nested);
  CHECK(choice.streams() == 2);
}

TEST_CASE("side stream choice: a stream in use, or joined into another stream, is not taken") {
  SideStreamChoice choice(16);
  const auto busy = start(choice, choice.mark(kMain));
  CHECK(start(choice, choice.mark(kMain)) != busy);  // not joined yet
  SideStreamChoice other(16);
  const auto into_c = start(other, other.mark(&c_storage));
  other.joined(into_c, &c_storage);
  CHECK(start(other, other.mark(kMain)) != into_c);  // its work comes before C's, not the main stream's
  CHECK(start(other, other.mark(&c_storage)) == into_c);
}

TEST_CASE("side stream choice: past the limit a branch gets no stream (it runs on the caller's)") {
  SideStreamChoice choice(1);
  start(choice, choice.mark(kMain));
  CHECK_FALSE(choice.choose(choice.mark(kMain)).has_value());
}

TEST_CASE("side stream choice: YOLOv9's forward takes five side streams, each branch on one of its own") {
  SideStreamChoice choice(16);
  const auto out3_made = choice.mark(kMain);
  for (int block = 0; block < 4; ++block) {  // the bottom-up path's RepNCSP blocks
    const auto block_point = choice.mark(kMain);
    for (int rep = 0; rep < 3; ++rep) {      // their chains' RepConvN, each joined at once
      const auto one_by_one = start(choice, choice.mark(kMain));
      choice.joined(one_by_one, kMain);
    }
    const auto shortcut = start(choice, block_point);
    choice.joined(shortcut, kMain);
  }
  const auto p3_head = start(choice, out3_made);  // beside the path: nothing of the path's on it
  const auto p3_stream = choice.stream(p3_head);
  const auto p3_class = start(choice, choice.mark(p3_stream));
  choice.joined(p3_class, p3_stream);
  const auto levels = choice.mark(kMain);         // P4's head on the main stream, P5's beside it
  const auto level4_class = start(choice, choice.mark(kMain));
  choice.joined(level4_class, kMain);
  const auto level5 = start(choice, levels);
  const auto level5_class = start(choice, choice.mark(choice.stream(level5)));
  CHECK(choice.streams() == 5);
  CHECK(p3_head != p3_class);
  CHECK(level5 != level4_class);  // joined into the main stream after the levels' point
  CHECK(level5 != p3_head);
  CHECK(level5_class != level5);
}
