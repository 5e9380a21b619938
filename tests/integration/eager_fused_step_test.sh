#!/usr/bin/env bash
# On a GPU: with the default fused_kernels (measured, which names eager_optimizer_step), an eager
# float16 step (cuda_graph=false, the train default) ends in the fused optimizer step's three
# kernels, as a recorded whole step does, and trains: the log says so once, says that
# cuda_graph=true would record the step, and never that a step fell back to the composed update;
# the epoch's loss is finite. Exits 77 (skipped) without a CUDA device (CI, a user's CPU machine).
# Usage: eager_fused_step_test.sh HOST SOURCE_DIR WORK_DIR
set -euo pipefail
host=$1; src=$2; work=$3
"$host" --version | grep -Eq '^CUDA devices +none' && { echo "skipped: no CUDA device"; exit 77; }
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

"$host" train model=yolo9t data=$src/datasets/coco16/data.yaml imgsz=160 batch=4 workers=2 epochs=1 device=0 seed=0 \
  cuda_graph=false project=$work/runs name=eager save_plots=false > eager.log 2>&1 || { cat eager.log; fail "train exited $?"; }
grep -q "fused_kernels: the optimizer step (unscale and inf check, SGD, weight copies, EMA, scale update) runs as three kernels" eager.log \
  || { cat eager.log; fail "the eager run did not take the fused optimizer step"; }
! grep -q "this step's optimizer update is composed" eager.log || { cat eager.log; fail "a step fell back to the composed update"; }
grep -q "cuda_graph=false: training runs eager; cuda_graph=true would record the step region" eager.log \
  || { cat eager.log; fail "no hint that the step could be recorded"; }
grep -Eq "epoch 1/1: box [0-9.]+ cls [0-9.]+ dfl [0-9.]+" eager.log || { cat eager.log; fail "no finite epoch losses"; }
echo "ok: eager steps end in the fused optimizer step"
