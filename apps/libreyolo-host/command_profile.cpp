// `libreyolo-host profile run|summary|phases|kernels` (docs/design.md#profiler, docs/training-performance.md):
//   profile run DATA (--weights W.pt | --model F --size S) [--batch N] [--repeat N] [key=value ...]
//       trains just long enough to measure the profiler's window, prints the verdict and writes
//       <run>/prof/ (command_profile_run.cpp);
//   profile summary|phases|kernels FILE [--top N]
//       print from a saved profile.json, also one copied from another machine
//       (command_profile_read.cpp).

#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::app {

int run_profile_run(const Args& args);                          // command_profile_run.cpp
int run_profile_read(const std::string& view, const Args& args);  // command_profile_read.cpp

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  libreyolo-host profile run DATA (--weights W.pt | --model FAMILY --size S) [--batch N] [--repeat N] [key=value ...]\n"
    "      measure profile_skip + profile_steps training steps (epoch 0 augmentation, no_aug_epochs=0), print the\n"
    "      verdict, write <run>/prof/ (timeline.html, profile_trace.json, profile_summary.json, profile.json);\n"
    "      --repeat N writes prof_1..prof_N and profile_repeat.json\n"
    "  libreyolo-host profile summary FILE         the window's numbers and the verdict\n"
    "  libreyolo-host profile phases FILE          mean time per phase of a step\n"
    "  libreyolo-host profile kernels FILE [--top N]  the kernels with the most GPU time (default 10)\n"
    "FILE is a profile.json, or a folder holding one (prof/ or its run folder).\n";

}  // namespace

int run_profile(const Args& args) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? kExitError : kExitOk;
  }
  const std::string view = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (view == "run") return run_profile_run(rest);
  if (view == "summary" || view == "phases" || view == "kernels") return run_profile_read(view, rest);
  throw core::Error("unknown profile subcommand '" + view + "'", "profile has run, summary, phases and kernels",
                    "run 'libreyolo-host profile help'");
}

}  // namespace libreyolo::app
