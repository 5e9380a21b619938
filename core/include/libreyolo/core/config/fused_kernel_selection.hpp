#pragma once
// The `fused_kernels` option read as the SDK's policy (sdk/fused_kernels.hpp): `off`, `auto`
// (every kernel where built), `measured` (the default: those measured faster on an H200), one
// kernel's name (that kernel alone), several joined by '+' (those alone), `measured+` names
// (the measured ones and those: a candidate for the default against the default), or `measured-`
// names joined by '-' (the measured ones but those: what a kernel of the default contributes, or
// a way around one that misbehaves).

#include <string>

#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::core::config {

struct FusedKernelSelection {
  sdk::FusedKernels policy = sdk::FusedKernels::measured;
  std::string only;  // set_fused_kernels' second argument: '+'-joined kernel names, "" for none
};

// Throws core::Error naming the part that is not a kernel's name, with the names there are.
FusedKernelSelection parse_fused_kernels(const std::string& text);

// What `bench fused` compares a selection with: `measured` for `measured+...` and `measured-...`,
// else `off`.
std::string fused_kernels_baseline(const std::string& text);

}  // namespace libreyolo::core::config
