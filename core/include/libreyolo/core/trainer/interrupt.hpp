#pragma once
// Ctrl-C during training: the first SIGINT asks the loop to finish its current step, save
// weights/last.pt and stop (exit code 130); a second one exits at once.

namespace libreyolo::core::trainer {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handler
  ~InterruptGuard();  // restores the previous one
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static bool requested();
  static void request_for_test();  // what the handler does on the first SIGINT
  static void reset();
};

}  // namespace libreyolo::core::trainer
