#pragma once
// Small string helpers shared by the SDK and the host. Log messages are built with str_cat
// rather than fmt: LibTorch 2.x ships its own fmt headers, which must not meet spdlog's.

#include <sstream>
#include <string>

namespace libreyolo::sdk {

template <class... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace libreyolo::sdk
