#include "libreyolo/core/trainer/interrupt.hpp"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

#include <atomic>

namespace libreyolo::core::trainer {
namespace {

std::atomic<int> interrupts{0};
struct sigaction previous_action {};

void on_sigint(int) {
  if (interrupts.fetch_add(1) >= 1) {
    const char message[] = "\ninterrupted twice: exiting now without saving\n";
    [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    std::_Exit(130);
  }
  const char message[] = "\ninterrupt: finishing this step, then saving weights/last.pt (Ctrl-C again to quit now)\n";
  [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  interrupts = 0;
  struct sigaction action {};
  action.sa_handler = &on_sigint;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &previous_action);
}

InterruptGuard::~InterruptGuard() { ::sigaction(SIGINT, &previous_action, nullptr); }

bool InterruptGuard::requested() { return interrupts.load() > 0; }
void InterruptGuard::request_for_test() { interrupts = 1; }
void InterruptGuard::reset() { interrupts = 0; }

}  // namespace libreyolo::core::trainer
