#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "libreyolo/core/distributed/worker_launcher.hpp"
#include "libreyolo/core/error.hpp"
#include "unique_fd.hpp"

namespace libreyolo::core::distributed {

int pick_free_port() {
  const auto fail = [](const std::string& step) -> Error {
    return Error("could not find a free TCP port for the workers to meet on", step + ": " + std::strerror(errno),
                 "pass a port explicitly (MASTER_PORT) or check that 127.0.0.1 is usable");
  };
  const UniqueFd socket_fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket_fd) throw fail("socket()");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;  // the kernel picks an unused port
  if (::bind(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw fail("bind(127.0.0.1:0)");
  }
  socklen_t length = sizeof address;
  if (::getsockname(socket_fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw fail("getsockname()");
  }
  return ntohs(address.sin_port);
}

}  // namespace libreyolo::core::distributed
