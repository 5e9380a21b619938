#!/usr/bin/env bash
# Sets up a Debian 12 machine and builds LibreYOLO Host (the `cpu` preset, into build/).
# Installs the apt packages it needs (with sudo when not root), then configures and builds.
# Safe to run again: apt skips what is installed, CMake and ninja rebuild what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libtorch-dev                            # LibTorch 1.13 (CPU) on Debian 12
  libopenblas0-pthread                    # its BLAS: Debian's default, the reference libblas3, makes CPU training ~5x slower
  libgloo-dev                             # headers of the Gloo backend LibTorch links (multi-process training on the CPU)
  libboost-dev libboost-program-options-dev
  libyaml-cpp-dev libspdlog-dev doctest-dev
  libjpeg-dev libpng-dev
  libcurl4-openssl-dev                    # downloads model=LibreYOLO9s.pt by name (resume, TLS, redirects); optional: CMake builds without it
  libopencv-core-dev libopencv-imgproc-dev  # predict's boxes and labels (cv::rectangle, cv::putText); not imgcodecs, which pulls GDAL
  chromium                                # headless check of the profiler's timeline.html (tests/integration)
  python3                                 # the layers check (tests/tools/check_layers.py)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=${LIBREYOLO_JOBS:-$(nproc)}
cmake --preset cpu
cmake --build --preset cpu -j "$jobs"
