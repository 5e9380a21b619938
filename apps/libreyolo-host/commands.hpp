#pragma once
// The subcommands of libreyolo-host. Each lives in its own command_<name>.cpp.

#include <string>
#include <vector>

namespace libreyolo::app {

using Args = std::vector<std::string>;  // the arguments after the command name

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

const std::vector<Command>& commands();

int run_train(const Args& args);
int run_val(const Args& args);
int run_predict(const Args& args);
int run_profile(const Args& args);
int run_bench(const Args& args);
int run_families(const Args& args);
int run_version(const Args& args);
int run_help(const Args& args);
int run_completion(const Args& args);

// Exit codes, documented in docs/cli.md.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;          // a clear error was printed (bad input, missing file, ...)
constexpr int kExitNotBuiltYet = 3;    // the command exists in the interface but not yet in code
constexpr int kExitInterrupted = 130;  // Ctrl-C or SIGTERM: weights/last.pt kept, resume=true continues

}  // namespace libreyolo::app
