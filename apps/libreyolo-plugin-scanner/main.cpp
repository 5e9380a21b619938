// libreyolo-plugin-scanner PLUGIN_FILE: loads one family plugin in this process, runs what the
// host runs when it loads a plugin, and prints the verdict record (plugin_scan.hpp) on stdout.
// The host starts it once per new or changed plugin file, so that a plugin that crashes, hangs
// or calls exit() ends this process instead of the host. Exit code 0 with a complete record:
// the scan finished (whatever its verdict); anything else is the plugin's doing (or a usage
// error, code 2).

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/plugin_scan.hpp"

namespace {

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace libreyolo::core;
  if (argc != 2) {
    std::fprintf(stderr, "usage: libreyolo-plugin-scanner PLUGIN_FILE\n");
    return 2;
  }
  // The record gets a descriptor of its own and stdout becomes stderr: whatever the plugin
  // prints (it may print anything) cannot corrupt the record.
  const int record_fd = ::dup(STDOUT_FILENO);
  if (record_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 3;
  // The first line now, before the plugin is loaded: from here on the host's clock runs for
  // the plugin, not for this process's start.
  if (!write_all(record_fd, plugins::scan_record_header())) return 3;
  log::capture_plugin_logs();
  log::set_level(log::Level::error);  // the host warns about a refusal; once is enough
  const auto verdict = plugins::scan_in_this_process(argv[1]);
  if (!write_all(record_fd, plugins::format_scan_answer(verdict))) return 3;
  ::close(record_fd);
  // Returning runs the plugin's static destructors, as the host's exit would: one that
  // crashes there is caught too.
  return 0;
}
