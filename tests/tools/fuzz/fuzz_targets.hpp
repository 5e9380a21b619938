#pragma once
// The parsers fuzz_inputs.cpp attacks: each reads one input the way the host reads a user's
// file. A target may refuse an input only with the project's error type; anything else it lets
// escape (std::out_of_range, a YAML exception, c10::Error, ...) is a finding.

#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "mutate.hpp"

namespace libreyolo::test::fuzz {

struct Target {
  std::string name;
  std::vector<Bytes> tokens;                 // byte strings its grammar gives meaning to
  std::function<void(const Bytes&)> run;     // reads one input; may throw
};

// The targets, each working in its own files under `scratch` (created here): labels,
// data_yaml, cfg, image, pickle.
std::vector<Target> fuzz_targets(const std::filesystem::path& scratch);

// core::Error, or the pickle reader's PickleError (which the archive reader turns into one).
bool is_project_error(const std::exception& e);

}  // namespace libreyolo::test::fuzz
