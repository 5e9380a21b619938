// Running out of memory on the CPU is the user's batch or imgsz, as on CUDA (issue #20, item 10).
#include "torch_doctest.hpp"

#include <new>

#include "libreyolo/core/trainer/out_of_memory.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

using namespace libreyolo::core;

TEST_CASE("a failed CPU allocation is recognised as running out of memory, other errors are not") {
  // More than any machine has: the CPU allocator refuses it at once (nothing is touched).
  bool thrown = false;
  try {
    auto tensor = torch::empty({std::int64_t{1} << 50}, torch::kUInt8);
  } catch (const std::exception& e) {
    thrown = true;
    const auto detail = trainer::allocation_failure(e);
    REQUIRE(detail.has_value());
    CHECK(detail->find('\n') == std::string::npos);  // the first line, no backtrace
    CHECK(detail->find("allocate") != std::string::npos);
  }
  CHECK(thrown);
  CHECK(trainer::allocation_failure(std::bad_alloc()).has_value());
  bool shape_error = false;
  try {
    torch::ones({2, 3}).matmul(torch::ones({2, 3}));
  } catch (const std::exception& e) {
    shape_error = true;
    CHECK_FALSE(trainer::allocation_failure(e).has_value());
  }
  CHECK(shape_error);
  CHECK_FALSE(trainer::allocation_failure(std::runtime_error("no such file")).has_value());
}

TEST_CASE("the CPU out-of-memory message names batch and imgsz and says what to lower, without amp") {
  const std::string message = trainer::out_of_memory_error(16, 2048, "cpu", "DefaultCPUAllocator: can't allocate memory").what();
  CHECK(message.find("out of memory on cpu at batch=16 imgsz=2048: DefaultCPUAllocator: can't allocate memory") !=
        std::string::npos);
  CHECK(message.find("lower batch (e.g. batch=8") != std::string::npos);
  CHECK(message.find("give the process more memory") != std::string::npos);
  CHECK(message.find("amp") == std::string::npos);  // amp changes nothing on the CPU
}
