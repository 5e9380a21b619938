#!/usr/bin/env bash
# Opens timeline.html pages in headless Chromium (Debian's `chromium`, installed by
# scripts/setup.sh): each must run its script to the end (<body data-rendered="ok">, no
# data-error, no console error) and its screenshot must not be blank. Pages: the CPU profile
# that profile_run_test.sh wrote, and two synthetic GPU windows (kernels drawn one by one, and
# merged past the drawing cap). Exits 77 (ctest: skipped) when no Chromium is installed.
# Usage: profile_timeline_chromium.sh CPU_TIMELINE_HTML SAMPLE_TIMELINE_TOOL PNG_CHECK_TOOL WORK_DIR
set -euo pipefail
cpu_page=$1; sample=$2; png_check=$3; work=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77; fi
fail() { echo "FAILED: $*" >&2; exit 1; }
[ -s "$cpu_page" ] || fail "no $cpu_page (profile_run_end_to_end writes it)"
rm -rf "$work"; mkdir -p "$work"
"$sample" "$work/gpu_timeline.html" 200 || fail "sample_timeline"
"$sample" "$work/gpu_merged_timeline.html" 2000 || fail "sample_timeline (merged)"
# Root in CI: Chromium's sandbox needs user namespaces, which containers often lack.
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run
       --user-data-dir="$work/chromium-profile" --window-size=1300,1400)

check_page() {
  local page=$1 name=$2
  timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$page" \
    > "$work/$name.dom" 2> "$work/$name.log" || { cat "$work/$name.log"; fail "$name: chromium --dump-dom failed"; }
  # The attributes on <body> (the script's own text mentions both names, so match the tag).
  if grep -q '<body[^>]*data-error=' "$work/$name.dom"; then
    grep -o 'data-error="[^"]*"' "$work/$name.dom"; fail "$name: the page reported a script error"
  fi
  grep -q '<body[^>]*data-rendered="ok"' "$work/$name.dom" || { tail -20 "$work/$name.log"; fail "$name: the script did not finish"; }
  # The page never logs: any console message (an uncaught error included) is a failure.
  if grep -q ':CONSOLE' "$work/$name.log"; then
    grep ':CONSOLE' "$work/$name.log"; fail "$name: console messages"
  fi
  grep -q '<svg id="window"' "$work/$name.dom" || fail "$name: no window timeline drawn"
  timeout 120 "$browser" "${flags[@]}" --screenshot="$work/$name.png" "file://$page" > /dev/null 2>&1 ||
    fail "$name: chromium --screenshot failed"
  "$png_check" "$work/$name.png" 16 || fail "$name: blank screenshot"
  echo "ok: $name renders ($(grep -o '<rect' "$work/$name.dom" | wc -l) rects drawn)"
}

check_page "$cpu_page" cpu_timeline
check_page "$work/gpu_timeline.html" gpu_timeline
check_page "$work/gpu_merged_timeline.html" gpu_merged_timeline
grep -q 'merged busy blocks' "$work/gpu_merged_timeline.dom" || fail "the merged page does not say it merged"
grep -q 'of it beside other kernels' "$work/gpu_timeline.dom" || fail "the GPU page does not show the NCCL overlap"
grep -q 'fill="#e07b39"' "$work/gpu_timeline.dom" || fail "the GPU page drew no NCCL kernel in orange"
echo "profile_timeline_chromium: all passed"
