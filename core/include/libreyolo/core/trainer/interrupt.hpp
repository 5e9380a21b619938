#pragma once
// Ctrl-C (SIGINT) or SIGTERM (how schedulers and `kill` stop a job) during training: the first
// one asks the loop to finish its current step, keep weights/last.pt at the last finished epoch
// and stop (exit code 130, as for Ctrl-C); a second one exits at once (128 + the signal).

namespace libreyolo::core::trainer {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handler for SIGINT and SIGTERM
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static bool requested();
  // The signal's name ("SIGINT", "SIGTERM") once requested; "a test" after request_for_test().
  static const char* signal_name();
  static void request_for_test();  // what the handler does on the first signal
  static void reset();
};

}  // namespace libreyolo::core::trainer
