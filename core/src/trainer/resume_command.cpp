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

std::string resume_command(const std::vector<config::ReportedOption>& options, const RunFolder& run) {
  std::string command = "libreyolo-host train";
  for (const auto& option : options) {
    if (option.source != config::OptionSource::command_line) continue;
    // Replaced below; exist_ok would be harmless but says the wrong thing about a resume.
    if (option.name == "resume" || option.name == "project" || option.name == "name" || option.name == "exist_ok") {
      continue;
    }
    command += " " + shell_word(option.name + "=" + option.value);
  }
  const auto project = run.root.parent_path().empty() ? std::filesystem::path(".") : run.root.parent_path();
  command += " " + shell_word("project=" + project.string()) + " " + shell_word("name=" + run.root.filename().string()) +
             " resume=true";
  return command;
}

}  // namespace libreyolo::core::trainer
