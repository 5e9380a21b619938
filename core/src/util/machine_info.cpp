#include "libreyolo/core/util/machine_info.hpp"

#include <ctime>
#include <fstream>
#include <thread>

namespace libreyolo::core::util {

MachineInfo machine_info() {
  MachineInfo info;
  info.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) info.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  info.date_utc = buffer;
  return info;
}

}  // namespace libreyolo::core::util
