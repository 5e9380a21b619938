#pragma once
// Running out of memory is the user's to fix (a smaller batch or input), not a bug: CUDA's
// allocator says so with c10::OutOfMemoryError, the CPU's with a plain c10::Error ("can't
// allocate memory", LibTorch 1.13) or std::bad_alloc. Each ends the run with one message that
// names the batch and input size and says what to lower.

#include <exception>
#include <optional>
#include <string>


namespace libreyolo::core::trainer {

// The allocator's message (first line, no backtrace) when `e` is an allocation failure.
std::optional<std::string> allocation_failure(const std::exception& e);

// The error that names batch and imgsz for it is trainer.hpp's out_of_memory_error.

}  // namespace libreyolo::core::trainer
