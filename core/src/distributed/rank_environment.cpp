#include "libreyolo/core/distributed/rank_environment.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {
namespace {

// Every error ends with the same advice: the variables only make sense as a set.
constexpr const char* kLauncherAdvice =
    "a launcher sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT together "
    "(torchrun --nproc_per_node=N --no-python libreyolo-host train ...); unset them all for a "
    "single-process run";

// The raw text of one variable; empty values are treated as unset.
class Variables {
 public:
  explicit Variables(const std::function<const char*(const char*)>& getenv) : getenv_(getenv) {}

  std::optional<std::string> text(const char* name) const {
    const char* value = getenv_(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  }

  // A whole number in [low, high]; `meaning` says what the range is, for the error.
  std::optional<int> number(const char* name, int low, int high, const std::string& meaning) const {
    const auto value = text(name);
    if (!value) return std::nullopt;
    int parsed = 0;
    const char* end = value->data() + value->size();
    const auto [stop, error] = std::from_chars(value->data(), end, parsed);
    if (error != std::errc() || stop != end) {
      throw Error(std::string(name) + "=" + *value + " is not a whole number",
                  "the distributed launcher variables are integers", kLauncherAdvice);
    }
    if (parsed < low || parsed > high) {
      throw Error(std::string(name) + "=" + *value + " is out of range", meaning, kLauncherAdvice);
    }
    return parsed;
  }

 private:
  const std::function<const char*(const char*)>& getenv_;
};

[[noreturn]] void throw_missing(const std::string& present, const char* missing, const std::string& why) {
  throw Error(present + " is set but " + missing + " is not", why, kLauncherAdvice);
}

bool read_spawned_flag(const Variables& vars) {
  const auto value = vars.text(kSpawnedWorkerVariable);
  if (!value || *value == "0") return false;
  if (*value == "1") return true;
  throw Error(std::string(kSpawnedWorkerVariable) + "=" + *value + " is not 0 or 1",
              "libreyolo-host sets it to 1 in the workers it spawns", "unset it; it is not a user setting");
}

// MASTER_ADDR and MASTER_PORT: where rank 0 listens. Only a one-process world may omit them.
void read_master(const Variables& vars, RankEnvironment& env) {
  const auto addr = vars.text("MASTER_ADDR");
  const auto port = vars.number("MASTER_PORT", 1, 65535, "a TCP port is between 1 and 65535");
  if (env.world_size > 1) {
    const std::string why = "the ranks meet at MASTER_ADDR:MASTER_PORT, where rank 0 listens";
    const std::string world = "WORLD_SIZE=" + std::to_string(env.world_size);
    if (!addr) throw_missing(world, "MASTER_ADDR", why);
    if (!port) throw_missing(world, "MASTER_PORT", why);
  }
  env.master_addr = addr.value_or("127.0.0.1");
  env.master_port = port.value_or(0);
}

}  // namespace

std::optional<RankEnvironment> read_rank_environment(
    const std::function<const char*(const char*)>& getenv) {
  const Variables vars(getenv);
  const auto rank_text = vars.text("RANK");
  const auto world_text = vars.text("WORLD_SIZE");
  if (!rank_text && !world_text) {
    // A worker flag without a rank means the set was tampered with; a worker must know its rank.
    if (read_spawned_flag(vars)) {
      throw_missing(std::string(kSpawnedWorkerVariable) + "=1", "RANK and WORLD_SIZE",
                    "a spawned worker is started with its rank and the world size");
    }
    return std::nullopt;
  }
  const std::string why_both = "every process of a distributed run must know its rank and how many ranks there are";
  if (!world_text) throw_missing("RANK=" + *rank_text, "WORLD_SIZE", why_both);
  if (!rank_text) throw_missing("WORLD_SIZE=" + *world_text, "RANK", why_both);

  RankEnvironment env;
  env.world_size = *vars.number("WORLD_SIZE", 1, 1 << 20, "the world size counts processes: at least 1");
  const std::string ranks = "ranks run from 0 to WORLD_SIZE-1 = " + std::to_string(env.world_size - 1);
  env.rank = *vars.number("RANK", 0, env.world_size - 1, ranks);
  env.local_rank = vars.number("LOCAL_RANK", 0, env.world_size - 1, "local " + ranks).value_or(env.rank);
  read_master(vars, env);
  env.spawned_by_host = read_spawned_flag(vars);
  env.worker_device = vars.number(kWorkerDeviceVariable, 0, 1 << 16, "a CUDA index is 0 or more");
  env.launcher_autobatch = vars.number(kLauncherAutobatchVariable, 1, 1 << 20, "a global batch is at least 1");
  return env;
}

std::optional<RankEnvironment> read_rank_environment() {
  return read_rank_environment([](const char* name) { return std::getenv(name); });
}

void refuse_spawn_inside_worker(const std::optional<RankEnvironment>& env) {
  if (!env || !env->spawned_by_host) return;
  throw Error("spawn was requested from inside a spawned worker (rank " + std::to_string(env->rank) + ")",
              "a spawned worker runs the single-device path only; spawning again would start workers "
              "recursively",
              "start the run from a plain shell (not a worker), or use an external launcher: "
              "torchrun --nproc_per_node=N --no-python libreyolo-host train ...");
}

}  // namespace libreyolo::core::distributed
