#pragma once
// While alive, the log prints warnings and errors only: a training run's per-epoch lines and
// class tables are noise in test output.

#include "libreyolo/core/log/log.hpp"

namespace libreyolo::test {

class QuietLog {
 public:
  QuietLog() : saved_(core::log::level()) { core::log::set_level(core::log::Level::warn); }
  ~QuietLog() { core::log::set_level(saved_); }
  QuietLog(const QuietLog&) = delete;
  QuietLog& operator=(const QuietLog&) = delete;

 private:
  core::log::Level saved_;
};

}  // namespace libreyolo::test
