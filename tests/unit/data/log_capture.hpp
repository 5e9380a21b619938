#pragma once
// While alive, every log message also goes to a file in a temporary folder; text() returns what
// was logged so far. For tests that check that something was said (a warning naming a file).

#include <fstream>
#include <iterator>
#include <string>

#include "../temp_dir.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::test {

class LogCapture {
 public:
  LogCapture() { core::log::set_file(dir_ / "log.txt"); }
  ~LogCapture() { core::log::close_file(); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Ends the capture (the file is flushed and closed) and returns it.
  std::string text() {
    core::log::close_file();
    std::ifstream in(dir_ / "log.txt");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  TempDir dir_;
};

inline std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

}  // namespace libreyolo::test
