#!/usr/bin/env bash
# The README's test command (and CI's): set up, build, run every test, then prove the SDK
# works for a third party: install, build examples/minimal_family against the *installed*
# SDK, and check that the installed host loads it.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh

ctest --preset cpu -j "${LIBREYOLO_JOBS:-$(nproc)}"

prefix=$(mktemp -d /tmp/libreyolo-install.XXXXXX)
trap 'rm -rf "$prefix" build-example' EXIT
cmake --install build --prefix "$prefix" >/dev/null
cmake -S examples/minimal_family -B build-example -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
cmake --build build-example
cmake --install build-example --prefix "$prefix" >/dev/null
listing=$(env -u LIBREYOLO_PLUGIN_PATH "$prefix/bin/libreyolo-host" families)
echo "$listing"
if ! grep -Eq '^example +n,s +detect .* libreyolo_family_example.so$' <<<"$listing"; then
  echo "FAILED: the installed host does not list the out-of-tree example family" >&2
  exit 1
fi
echo "out-of-tree example family: built against the installed SDK and loaded by the installed host"
echo "test.sh: all passed in $(( $(date +%s) - start )) s"
