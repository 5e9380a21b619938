#include "libreyolo/core/distributed/worker_launcher.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "libreyolo/core/distributed/rank_environment.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "worker_supervisor.hpp"

extern char** environ;

namespace libreyolo::core::distributed {
namespace {

std::string device_list(const std::vector<int>& devices) {
  std::string text;
  for (const int device : devices) text += (text.empty() ? "" : ",") + std::to_string(device);
  return text;
}

// Refuses what would fail later in a confusing way, before any process exists.
void check_plan(const WorkerPlan& plan) {
  if (plan.executable.empty()) {
    throw Error("no program to start the workers with", "the launch plan names no executable",
                "pass the program's path (usually this_executable())");
  }
  if (plan.devices.empty()) {
    throw Error("no GPUs to start workers on", "the multi-GPU launcher needs one CUDA index per rank",
                "pass a list of GPUs, e.g. device=0,1");
  }
  for (std::size_t i = 0; i < plan.devices.size(); ++i) {
    const int device = plan.devices[i];
    if (device < 0) {
      throw Error("GPU " + std::to_string(device) + " in device=" + device_list(plan.devices) + " is not a GPU index",
                  "CUDA indices start at 0", "list GPUs as 0,1,...");
    }
    if (std::count(plan.devices.begin(), plan.devices.end(), device) > 1) {
      throw Error("GPU " + std::to_string(device) + " is listed twice in device=" + device_list(plan.devices),
                  "each rank needs a GPU of its own (NCCL refuses two ranks on one GPU)", "list each GPU once");
    }
  }
  if (plan.master_port < 0 || plan.master_port > 65535) {
    throw Error("master port " + std::to_string(plan.master_port) + " is not a TCP port",
                "ports run from 1 to 65535; 0 picks a free one", "pass 0 or a free port");
  }
  if (plan.devices.size() > 1 && plan.log_dir.empty()) {
    throw Error("no folder for the workers' logs", "ranks >= 1 write their output to log_dir/rank<r>.log",
                "set the launch plan's log_dir");
  }
}

// Created before any worker starts, so a bad folder is an error rather than half a launch.
UniqueFd open_rank_log(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error("cannot create the worker log " + file.string(), std::strerror(errno),
                "choose a writable log folder");
  }
  return UniqueFd(fd);
}

void create_log_dir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw Error("cannot create the worker log folder " + dir.string(), error.message(),
                "choose a writable log folder");
  }
}

// The torchrun variables plus ours; LOCAL_RANK equals RANK because every rank runs on this host.
WorkerCommand command_for(const WorkerPlan& plan, int port, int rank) {
  const std::string world = std::to_string(plan.devices.size());
  const std::vector<std::pair<std::string, std::string>> variables = {
      {"RANK", std::to_string(rank)},
      {"LOCAL_RANK", std::to_string(rank)},
      {"WORLD_SIZE", world},
      {"LOCAL_WORLD_SIZE", world},
      {"MASTER_ADDR", plan.master_addr},
      {"MASTER_PORT", std::to_string(port)},
      {kSpawnedWorkerVariable, "1"},
      {kWorkerDeviceVariable, std::to_string(plan.devices[static_cast<std::size_t>(rank)])},
  };
  WorkerCommand command;
  command.argv.push_back(plan.executable.string());
  command.argv.insert(command.argv.end(), plan.arguments.begin(), plan.arguments.end());
  command.environment = worker_environment(environ, variables);
  return command;
}

std::vector<WorkerSpec> prepare_workers(const WorkerPlan& plan, int port) {
  if (plan.devices.size() > 1) create_log_dir(plan.log_dir);
  std::vector<WorkerSpec> workers;
  for (std::size_t rank = 0; rank < plan.devices.size(); ++rank) {
    WorkerSpec spec;
    spec.rank = static_cast<int>(rank);
    spec.device = plan.devices[rank];
    spec.command = command_for(plan, port, spec.rank);
    if (rank > 0) {
      spec.log_file = plan.log_dir / ("rank" + std::to_string(rank) + ".log");
      spec.log_fd = open_rank_log(spec.log_file);
    }
    workers.push_back(std::move(spec));
  }
  return workers;
}

}  // namespace

std::filesystem::path this_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

LaunchOutcome launch_workers(const WorkerPlan& plan) {
  check_plan(plan);
  const int port = plan.master_port > 0 ? plan.master_port : pick_free_port();
  std::vector<WorkerSpec> workers = prepare_workers(plan, port);
  const std::size_t n = plan.devices.size();
  log::info("spawning ", n, " worker", n == 1 ? "" : "s", " (GPU", n == 1 ? " " : "s ", device_list(plan.devices),
            ") on ", plan.master_addr, ":", port,
            n > 1 ? "; ranks >= 1 log to " + plan.log_dir.string() : std::string());
  return supervise_workers(std::move(workers), plan.stop_grace);
}

}  // namespace libreyolo::core::distributed
