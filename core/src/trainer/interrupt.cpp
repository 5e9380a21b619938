#include "libreyolo/core/trainer/interrupt.hpp"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

#include <atomic>

namespace libreyolo::core::trainer {
namespace {

std::atomic<int> interrupts{0};
std::atomic<int> first_signal{0};
struct sigaction previous_sigint {}, previous_sigterm {};

// Only async-signal-safe calls in here: write() and _Exit().
void say(const char* text, std::size_t size) { [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, text, size); }

void on_stop_signal(int signal) {
  if (interrupts.fetch_add(1) >= 1) {
    const char message[] = "\ninterrupted twice: exiting now without saving\n";
    say(message, sizeof message - 1);
    std::_Exit(128 + signal);
  }
  first_signal = signal;
  if (signal == SIGTERM) {
    const char message[] = "\nSIGTERM: finishing this step, then stopping with weights/last.pt kept (send it again to quit now)\n";
    say(message, sizeof message - 1);
  } else {
    const char message[] = "\ninterrupt: finishing this step, then stopping with weights/last.pt kept (Ctrl-C again to quit now)\n";
    say(message, sizeof message - 1);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  interrupts = 0;
  first_signal = 0;
  struct sigaction action {};
  action.sa_handler = &on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &previous_sigint);
  ::sigaction(SIGTERM, &action, &previous_sigterm);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &previous_sigint, nullptr);
  ::sigaction(SIGTERM, &previous_sigterm, nullptr);
}

bool InterruptGuard::requested() { return interrupts.load() > 0; }

const char* InterruptGuard::signal_name() {
  switch (first_signal.load()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a test";
  }
}

void InterruptGuard::request_for_test() { interrupts = 1; }
void InterruptGuard::reset() {
  interrupts = 0;
  first_signal = 0;
}

}  // namespace libreyolo::core::trainer
