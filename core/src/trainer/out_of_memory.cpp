#include "libreyolo/core/trainer/out_of_memory.hpp"

#include <c10/util/Exception.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <new>

#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// What the allocators say when they fail: LibTorch's CPU allocator ("can't allocate memory",
// "not enough memory"), its CUDA allocator ("out of memory"), and our own messages.
bool says_allocation_failed(const std::string& message) {
  constexpr std::array<const char*, 4> phrases = {"can't allocate memory", "not enough memory", "out of memory",
                                                  "failed to allocate"};
  const std::string text = lower(message);
  return std::any_of(phrases.begin(), phrases.end(), [&](const char* p) { return text.find(p) != std::string::npos; });
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::optional<std::string> allocation_failure(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return std::string("the C++ allocator could not allocate (") + e.what() + ")";
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&e)) {
    const std::string message = first_line(torch_error->what_without_backtrace());
    if (dynamic_cast<const c10::OutOfMemoryError*>(&e) || says_allocation_failed(message)) return message;
    return std::nullopt;
  }
  return std::nullopt;
}

Error out_of_memory_error(int batch, int imgsz, const std::string& device, const std::string& detail) {
  const bool cpu = device.rfind("cpu", 0) == 0;
  // On the CPU amp changes nothing; the process's memory limit (ulimit -v, a container's
  // limit) and other programs do.
  const std::string last = cpu ? "or give the process more memory (close other programs, raise ulimit -v or the "
                                 "container's memory limit)"
                               : "or keep amp=true (half the activation memory)";
  return Error("out of memory on " + device + " at batch=" + std::to_string(batch) + " imgsz=" + std::to_string(imgsz),
               first_line(detail),
               "lower batch (e.g. batch=" + std::to_string(std::max(1, batch / 2)) +
                   ", with nbs= to keep the nominal batch), lower imgsz, " + last);
}

}  // namespace libreyolo::core::trainer
