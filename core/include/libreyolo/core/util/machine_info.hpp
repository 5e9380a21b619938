#pragma once
// What a benchmark ran on, for the record it writes (docs/benchmarks.md quotes these).

#include <string>

namespace libreyolo::core::util {

struct MachineInfo {
  std::string cpu_model;  // from /proc/cpuinfo
  int cpu_cores = 0;      // hardware threads available to this process
  std::string date_utc;   // ISO 8601, when the record was made
};

MachineInfo machine_info();

}  // namespace libreyolo::core::util
