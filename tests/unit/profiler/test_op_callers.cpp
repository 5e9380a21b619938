// profiler::OpCallers: each call of the chosen operator tallied under the operators around it
// (outermost first, the last `depth` of them) and its first tensor's sizes and strides; backward
// nodes by their own names (on autograd's thread); nothing recorded once closed; one at a time.
#include "../torch_doctest.hpp"

#include <stdexcept>
#include <string>

#include "libreyolo/core/profiler/op_callers.hpp"

using libreyolo::core::profiler::CallerTally;
using libreyolo::core::profiler::OpCallers;

namespace {
std::int64_t calls_of(const std::vector<CallerTally>& tallies, const std::string& chain) {
  for (const auto& t : tallies)
    if (t.chain == chain) return t.calls;
  return 0;
}
}  // namespace

TEST_CASE("op callers: a copy is tallied under its callers with its input's sizes and strides") {
  const auto x = torch::randn({2, 3});
  std::vector<CallerTally> tallies;
  {
    OpCallers callers("aten::copy_");
    for (int i = 0; i < 2; ++i) (void)x.t().contiguous();
    tallies = callers.top(10);
  }
  const std::string first = tallies.empty() ? std::string("none") : tallies.front().chain;
  CAPTURE(first);
  CHECK(calls_of(tallies, "aten::contiguous > aten::clone > aten::copy_ [3, 2] strides [2, 1]; [3, 2] strides [1, 3]") == 2);
  (void)x.t().contiguous();  // closed: not recorded, and a new recording starts empty
  OpCallers again("aten::copy_");
  CHECK(again.top(10).empty());
}

TEST_CASE("op callers: the depth keeps the innermost callers; backward nodes appear by name") {
  const auto a = torch::randn({3}, torch::requires_grad());
  std::vector<CallerTally> tallies;
  {
    OpCallers callers("aten::mul", 1);
    (a * 2.0).sum().backward();
    tallies = callers.top(10);
  }
  REQUIRE_FALSE(tallies.empty());
  bool from_backward = false;
  for (const auto& t : tallies) {
    CAPTURE(t.chain);
    // At most one caller before the operator itself.
    CHECK(t.chain.find(" > ") == t.chain.rfind(" > "));
    // MulBackward0 or MulBackward1 (a tensor or a scalar factor; LibTorch versions name it either way).
    if (t.chain.rfind("MulBackward", 0) == 0 && t.chain.find("> aten::mul") != std::string::npos) from_backward = true;
  }
  CHECK(from_backward);
}

TEST_CASE("op callers: one recording at a time") {
  OpCallers first("aten::add");
  CHECK_THROWS_AS(OpCallers("aten::add"), std::logic_error);
}
