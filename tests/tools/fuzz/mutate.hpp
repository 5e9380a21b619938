#pragma once
// Random mutations of an input for the fuzz test (fuzz_inputs.cpp): the kinds of damage real
// files suffer (flipped bits, lost or doubled bytes, truncation, two files spliced together)
// plus bytes a target's grammar gives meaning to. Every draw comes from the caller's engine, so
// a seed replays the same inputs.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace libreyolo::test::fuzz {

using Bytes = std::string;

// One to a few mutations of `input`; `corpus` supplies splice partners, `tokens` the target's
// meaningful byte strings (e.g. "\n", ": ", "[" for YAML).
Bytes mutate(const Bytes& input, const std::vector<Bytes>& corpus, const std::vector<Bytes>& tokens,
             std::mt19937_64& rng);

}  // namespace libreyolo::test::fuzz
