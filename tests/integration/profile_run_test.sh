#!/usr/bin/env bash
# The training profiler end to end on CPU: `profile run` on the bundled coco16 writes the four
# artifacts and stops; the profile subcommands read profile.json back (also a copy elsewhere);
# --repeat 2 writes prof_1, prof_2 and profile_repeat.json; train profile=true reports and
# trains on.
# Usage: profile_run_test.sh HOST SOURCE_DIR WORK_DIR
set -euo pipefail
host=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
data=$src/datasets/coco16/data.yaml
# coco16 at batch 4: 4 steps an epoch, so the 1 + 4 step window crosses an epoch boundary.
common=(--model example --size n --batch 4 imgsz=160 workers=2 device=cpu profile_skip=1 profile_steps=4
        project=$work/runs)
fail() { echo "FAILED: $*" >&2; exit 1; }

# 1. One window: four artifacts, a report without a verdict (no accelerator), then it stops.
"$host" profile run "$data" "${common[@]}" name=single > single.log 2>&1 || { cat single.log; fail "profile run exited $?"; }
prof=$work/runs/single/prof
for f in timeline.html profile_trace.json profile_summary.json profile.json; do
  [ -s "$prof/$f" ] || { cat single.log; fail "missing $prof/$f"; }
done
grep -q "verdict: none: no accelerator is present" single.log || { cat single.log; fail "no CPU verdict line"; }
grep -q "window: 4 steps after 1 skipped" single.log || fail "the report does not describe the window"
[ ! -e "$work/runs/single/weights/best.pt" ] || fail "profile run validated instead of stopping"
grep -q '"format": "libreyolo-profile"' "$prof/profile.json" || fail "profile.json has no format tag"
grep -q '"cat": "phase"' "$prof/profile_trace.json" || fail "the trace has no phase events"
grep -q 'data-rendered' "$prof/timeline.html" || fail "timeline.html has no renderer"
# A CPU run has no device memory: profile.json and the page's data say null, not the report's -1.
for f in profile.json profile_summary.json timeline.html; do
  ! grep -nE '"(reserved_gb|device_total_gb|reserved_fraction)": -1' "$prof/$f" || fail "$f shows an internal -1 (above)"
done
grep -q '"device_total_gb": null' "$prof/profile.json" || fail "profile.json does not say the CPU run has no device memory"
echo "ok: profile run wrote $(ls "$prof" | tr '\n' ' ')"

# 2. The subcommands read profile.json back, also from a copy in another folder.
"$host" profile summary "$prof/profile.json" > summary.txt || fail "profile summary"
grep -q "window: 4 steps after 1 skipped: 2 unsynchronised" summary.txt || { cat summary.txt; fail "summary"; }
grep -q "verdict: none" summary.txt || fail "summary has no verdict line"
"$host" profile phases "$prof/profile.json" > phases.txt || fail "profile phases"
for phase in data_wait h2d forward loss backward optimizer; do
  grep -Eq "^  $phase +[0-9.]+" phases.txt || { cat phases.txt; fail "phases lacks $phase"; }
done
"$host" profile kernels "$work/runs/single" --top 5 > kernels.txt || fail "profile kernels"
grep -q "kernels: none (no accelerator)" kernels.txt || { cat kernels.txt; fail "kernels on CPU"; }
mkdir -p elsewhere && cp "$prof/profile.json" elsewhere/
"$host" profile summary elsewhere/profile.json | diff - summary.txt || fail "a copied profile.json reads differently"
if "$host" profile summary "$prof/profile_summary.json" > wrong.txt 2>&1; then fail "read a summary as a profile"; fi
grep -q "is not a profile" wrong.txt || { cat wrong.txt; fail "no clear message for a wrong file"; }
echo "ok: profile summary|phases|kernels read profile.json back"

# 3. --repeat 2: prof_1, prof_2 and the aggregate in one run folder.
"$host" profile run "$data" "${common[@]}" name=repeat --repeat 2 > repeat.log 2>&1 || { cat repeat.log; fail "repeat"; }
run=$work/runs/repeat
for f in prof_1/profile.json prof_2/timeline.html profile_repeat.json; do [ -s "$run/$f" ] || fail "missing $run/$f"; done
[ ! -e "$work/runs/repeat2" ] || fail "the second repeat made its own run folder"
grep -q '"runs": 2' "$run/profile_repeat.json" || fail "profile_repeat.json does not count 2 runs"
grep -q '"none": 2' "$run/profile_repeat.json" || fail "profile_repeat.json verdict counts"
grep -Eq "2 runs: step [0-9.]+ \+- [0-9.]+ ms" repeat.log || { cat repeat.log; fail "no repeat summary"; }
echo "ok: --repeat 2 ($(grep -o '2 runs: step [^(]*' repeat.log))"

# 4. train profile=true: the report comes once, then training goes on to the last epoch.
"$host" train model=examplen data="$data" imgsz=160 batch=4 workers=2 device=cpu epochs=3 eval_interval=3 \
  profile=true profile_skip=2 profile_steps=2 project="$work/runs" name=train > train.log 2>&1 ||
  { cat train.log; fail "train profile=true"; }
[ -s "$work/runs/train/prof/profile.json" ] || fail "train profile=true wrote no profile"
[ "$(grep -c "verdict: none: no accelerator" train.log)" -eq 1 ] || { cat train.log; fail "expected one report"; }
grep -q "epoch 3/3" train.log || fail "training did not go on after the report"
echo "ok: train profile=true reports once and trains on"

# 5. Bad input fails with a message.
if "$host" profile run "$data" --model example --size n --weights x.pt > both.log 2>&1; then fail "accepted --weights and --model"; fi
grep -q "both --weights and --model" both.log || { cat both.log; fail "no message for --weights with --model"; }
if "$host" train model=examplen data="$data" profile_steps=1 > steps.log 2>&1; then fail "accepted profile_steps=1"; fi
grep -q "profile_steps=1 is out of range" steps.log || { cat steps.log; fail "no range message"; }
echo "profile_run_test: all passed"
