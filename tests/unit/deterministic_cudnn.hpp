#pragma once
// For GPU cases that compare two runs bit for bit: cuDNN picks its algorithms by heuristics
// (not by timing, which differs run to run) and only deterministic ones, for the scope's life.
#include <ATen/Context.h>

class DeterministicCudnn {
 public:
  DeterministicCudnn() : previous_(at::globalContext().deterministicCuDNN()) {
    at::globalContext().setDeterministicCuDNN(true);
  }
  ~DeterministicCudnn() { at::globalContext().setDeterministicCuDNN(previous_); }
  DeterministicCudnn(const DeterministicCudnn&) = delete;
  DeterministicCudnn& operator=(const DeterministicCudnn&) = delete;

 private:
  bool previous_;
};
