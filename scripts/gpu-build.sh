#!/usr/bin/env bash
# Builds the `cuda` preset on the GPU machine (Ubuntu 24.04, PyTorch 2.11's LibTorch, CUDA 13),
# as docs/gpu-machine.md describes: the carried .devkit supplies Boost.Program_options.
# Usage (from the project root, on the GPU machine): scripts/gpu-build.sh [ninja targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-gpu/build.ninja ] || [ ! -d /tmp/devkit/include/boost ]; then
  bash .devkit/configure.sh build-gpu -DLIBREYOLO_REQUIRE_CUDA=ON
  cmake --preset cuda  # same cache as the preset declares; keeps the devkit prefix path
fi
ninja -C build-gpu -j"$(nproc)" "$@"
