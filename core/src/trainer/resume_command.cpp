#include "resume_command.hpp"

namespace libreyolo::core::trainer {
namespace {

// Single quotes for anything a shell would split or expand (device=[0, 1], paths with spaces).
std::string shell_word(const std::string& word) {
  bool plain = !word.empty();
  for (const char c : word) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string("_-.,/:=+@%").find(c) != std::string::npos;
    plain = plain && safe;
  }
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string resume_command(const RunFolder& run) {
  // Every other option comes from the run's args.yaml (a resume takes them all from there).
  return "libreyolo-host train " + shell_word("resume=" + (run.weights / "last.pt").string());
}

}  // namespace libreyolo::core::trainer
