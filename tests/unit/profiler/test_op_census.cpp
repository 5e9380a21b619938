// profiler::OpCensus: operators counted in the phase the host marked, outermost apart from the
// ones they call, on the autograd thread too, with each outermost operator's host time by name;
// nothing counted once it is closed; one at a time.
#include "../torch_doctest.hpp"

#include <stdexcept>

#include "libreyolo/core/profiler/op_census.hpp"

using libreyolo::core::profiler::OpCensus;
using libreyolo::core::profiler::StepPhase;

TEST_CASE("op census: operators land in the marked phase; nested calls count in all, not in outermost") {
  const auto a = torch::randn({4, 3}, torch::requires_grad());
  const auto w = torch::randn({2, 3});
  torch::Tensor y;
  {
    OpCensus census;
    census.step_begins();
    census.phase_begins(StepPhase::forward);
    y = torch::linear(a, w);  // aten::linear, which calls further operators
    census.phase_begins(StepPhase::loss);
    const auto loss = y.sum();
    census.phase_begins(StepPhase::backward);
    loss.backward();
    census.step_ends();
    (void)torch::ones({2});  // between steps: in no phase
    CHECK(census.steps() == 1);
    const auto forward = census.count(StepPhase::forward);
    CHECK(forward.outermost == 1);
    CHECK(forward.all > forward.outermost);
    CHECK(census.count(StepPhase::loss).outermost == 1);
    CHECK(census.count(StepPhase::backward).outermost >= 2);  // autograd's nodes (and the engine's own ops)
    CHECK(census.count(StepPhase::optimizer).all == 0);
    const auto total = census.total();
    CHECK(total.outermost == forward.outermost + census.count(StepPhase::loss).outermost +
                                 census.count(StepPhase::backward).outermost);
    const auto by_calls = census.top(StepPhase::forward, 5);
    REQUIRE(by_calls.size() == 1);
    CHECK(by_calls[0].name == "aten::linear");
    CHECK(by_calls[0].calls == 1);
    CHECK(by_calls[0].host_ms > 0);
    const auto by_time = census.top(StepPhase::backward, 1, libreyolo::core::profiler::OpOrder::host_time);
    REQUIRE(by_time.size() == 1);
    for (const auto& other : census.top(StepPhase::backward, 100)) CHECK(other.host_ms <= by_time[0].host_ms);
    CHECK_THROWS_AS(OpCensus(), std::logic_error);
  }
  OpCensus again;  // the first one closed: a new one starts from zero
  (void)(a * 2);
  CHECK(again.total().all == 0);  // no step begun: not in any phase
}
