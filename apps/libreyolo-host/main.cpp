// libreyolo-host: the command-line entry point. Dispatches to one command; turns every
// core::Error into one clear message and a non-zero exit code.

#include <csignal>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/trainer/out_of_memory.hpp"
#include "libreyolo/sdk/user_error.hpp"

namespace libreyolo::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"train", "train a model: libreyolo-host train model=yolo9s data=coco128 epochs=3", run_train},
      {"val", "evaluate weights on a dataset (COCO mAP)", run_val},
      {"predict", "detect objects in images: libreyolo-host predict model=best.pt source=images/", run_predict},
      {"profile", "measure training steps and name the bottleneck", run_profile},
      {"bench", "measure: bench data (the loader alone), step, capture, fused, train", run_bench},
      {"families", "list the model families found (libreyolo-host families [NAME])", run_families},
      {"version", "print versions of the host, SDK, LibTorch and CUDA", run_version},
      {"help", "show help (libreyolo-host help COMMAND lists its options)", run_help},
      {"completion", "print a bash completion script (libreyolo-host completion bash)", run_completion},
  };
  return all;
}

}  // namespace libreyolo::app

int main(int argc, char** argv) {
  using namespace libreyolo;
  core::log::capture_plugin_logs();
  // A file-size limit (ulimit -f) would kill the process mid-save with SIGXFSZ, before any
  // message. Ignored, write() fails with EFBIG instead, and the failed save says what happened,
  // keeps the previous file and removes its temporary one.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) return app::run_help({});
  const std::string name = argv[1];
  const app::Args args(argv + 2, argv + argc);
  if (name == "--help" || name == "-h") return app::run_help(args);
  if (name == "--version") return app::run_version(args);
  for (const auto& command : app::commands()) {
    if (name != command.name) continue;
    // `train --help` / `train -h`, as every Unix tool: the command's own help, not an option error.
    for (const auto& arg : args) {
      if (arg == "--help" || arg == "-h") return app::run_help({command.name});
    }
    try {
      return command.run(args);
    } catch (const core::Error& e) {
      core::log::error(e.what());
      return app::kExitError;
    } catch (const sdk::UserError& e) {  // a family's verdict on the user's input
      core::log::error(e.what());
      return app::kExitError;
    } catch (const std::exception& e) {
      // train names batch and imgsz itself (trainer.cpp); val and bench run out of memory too.
      if (const auto detail = core::trainer::allocation_failure(e)) {
        core::log::error("out of memory in '", name, "': ", *detail,
                         ". Lower batch or imgsz, or give the process more memory");
        return app::kExitError;
      }
      core::log::error("unexpected failure in '", name, "': ", e.what(),
                       ". This is a bug in libreyolo-host; please report it with the command line.");
      return app::kExitError;
    }
  }
  std::string names;
  for (const auto& command : app::commands()) names += (names.empty() ? "" : ", ") + std::string(command.name);
  core::log::error("unknown command '", name, "'. Commands: ", names, ". Run 'libreyolo-host help'.");
  return app::kExitError;
}
