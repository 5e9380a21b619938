#!/usr/bin/env bash
# Nothing lost, nothing silent (issue #20, docs/reliability.md): one case per call, on the CPU,
# with the example family on the bundled coco16.
# Usage: reliability_test.sh CASE HOST COMPARE_TOOL SOURCE_DIR WORK_DIR
#   CASE: resume_after_sigint | resume_after_sigterm | failed_save | run_folder_lock | broken_val_image
set -euo pipefail
case_name=$1; host=$2; compare=$3; src=$4; work=$5/$1
rm -rf "$work"; mkdir -p "$work"; cd "$work"
data=$src/datasets/coco16/data.yaml
# batch=2: 8 steps per epoch, so a signal sent after epoch 1's log line lands inside epoch 2.
common=(model=examplen data=$data imgsz=96 batch=2 workers=2 project=$work/runs seed=5 warmup_epochs=1 device=cpu
        save_period=0)
fail() { echo "FAILED: $*" >&2; exit 1; }

# Starts a run in the background; $pid is its process, $1 its log.
start_run() {
  local log=$1; shift
  "$host" train "$@" > "$log" 2>&1 &
  pid=$!
}
# Waits until the log has the line of a finished epoch N (or the run ended).
wait_for_epoch() {
  for _ in $(seq 3000); do
    grep -q "epoch $2/" "$1" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.02
  done
}
# results.csv without the timing columns: epoch, lr, losses, mAP.
schedule_and_losses() { cut -d, -f1,4- "$1"; }

# An interrupted (signal $1) then resumed 10-epoch run must equal the uninterrupted one: lr and
# losses of every epoch, and the final weights. The resume uses the command the run printed.
resume_case() {
  local signal=$1
  "$host" train "${common[@]}" epochs=10 name=straight > straight.log 2>&1 || { cat straight.log; fail "straight run"; }
  start_run stopped.log "${common[@]}" epochs=10 name=stopped
  wait_for_epoch stopped.log 1
  kill -"$signal" "$pid"
  set +e; wait "$pid"; code=$?; set -e
  [ "$code" -eq 130 ] || { cat stopped.log; fail "a run stopped by SIG$signal exited $code, expected 130"; }
  local stopped_in
  stopped_in=$(grep -o "interrupted (SIG$signal) during epoch [0-9]*" stopped.log | grep -o "[0-9]*$")
  [ -n "$stopped_in" ] || { cat stopped.log; fail "no interrupt message naming SIG$signal"; }
  local holds="holds epoch $((stopped_in - 1));"
  [ "$stopped_in" -gt 1 ] || holds="holds the starting weights;"
  grep -q "during epoch $stopped_in: .*last.pt $holds" stopped.log ||
    { cat stopped.log; fail "the message does not say last.pt $holds"; }
  local command
  command=$(grep -o "Resume with: .*" stopped.log | head -1 | sed 's/^Resume with: libreyolo-host //')
  [ -n "$command" ] || fail "no resume command printed"
  echo "stopped in epoch $stopped_in; printed: libreyolo-host $command"
  eval "\"$host\" $command" > resumed.log 2>&1 || { cat resumed.log; fail "the printed resume command failed"; }
  grep -q "resuming .* after epoch $((stopped_in - 1))" resumed.log || { cat resumed.log; fail "the resume started elsewhere"; }
  diff <(schedule_and_losses runs/straight/results.csv) <(schedule_and_losses runs/stopped/results.csv) ||
    fail "lr or losses per epoch differ between the straight and the interrupted-then-resumed run"
  "$compare" runs/straight/weights/last.pt runs/stopped/weights/last.pt 0 > compare.log 2>&1 ||
    { cat compare.log; fail "resumed weights differ from the straight run"; }
  echo "ok: SIG$signal in epoch $stopped_in + the printed resume == 10 epochs straight (lr, losses, weights)"
}

case $case_name in
  resume_after_sigint) resume_case INT ;;
  resume_after_sigterm) resume_case TERM ;;
  failed_save)
    # A file-size limit every checkpoint exceeds: no save can succeed. SIGXFSZ must not kill
    # the run, each failure is said, no temporary file is left, and the run ends with code 1.
    set +e
    (ulimit -f 64; exec "$host" train "${common[@]}" epochs=2 name=full) > full.log 2>&1
    code=$?
    set -e
    [ "$code" -eq 1 ] || { cat full.log; fail "a run whose saves all failed exited $code, expected 1"; }
    grep -q "Could not write .*last.pt.*File too large" full.log && grep -q "the latest save of weights/last.pt failed, so it was never written" full.log || { cat full.log; fail "no message about the failed save"; }
    grep -q "did not save everything it should have; on disk: no checkpoint" full.log || { cat full.log; fail "no summary of what is on disk"; }
    ! grep -q "results in" full.log || fail "a run whose saves failed reported its results as saved"
    ! ls runs/full/weights/ | grep -q "tmp-" || { ls -la runs/full/weights; fail "temporary files left behind"; }
    echo "ok: failed saves exit 1, say so, leave no temporary file"
    # A leftover temporary file of a killed save is removed when a run starts in the folder.
    touch runs/full/weights/last.pt.tmp-999999
    "$host" train "${common[@]}" epochs=1 name=full exist_ok=true > again.log 2>&1 || { cat again.log; fail "second run"; }
    [ ! -e runs/full/weights/last.pt.tmp-999999 ] || fail "the leftover temporary file is still there"
    grep -q "results in .*weights/last.pt (after epoch 1)" again.log || { cat again.log; fail "summary does not name last.pt"; }
    echo "ok: leftover temporary files are removed at start; the summary names what is on disk"
    ;;
  run_folder_lock)
    start_run first.log "${common[@]}" epochs=200 name=shared exist_ok=true
    first=$pid
    wait_for_epoch first.log 1
    set +e
    "$host" train "${common[@]}" epochs=1 name=shared exist_ok=true > second.log 2>&1
    code=$?
    set -e
    kill -INT "$first"; wait "$first" || true
    [ "$code" -eq 1 ] || { cat second.log; fail "a second run in a busy folder exited $code, expected 1"; }
    grep -q "is in use by another training run (pid $first)" second.log || { cat second.log; fail "no lock message with pid $first"; }
    echo "ok: a second run in a locked run folder is refused with the holder's pid"
    "$host" train "${common[@]}" epochs=1 name=shared exist_ok=true > third.log 2>&1 || { cat third.log; fail "lock not released"; }
    echo "ok: the lock goes with the run"
    ;;
  broken_val_image)
    # coco16 with one val image whose header reads but whose data does not decode.
    cp -r "$src/datasets/coco16" broken
    victim=$(ls broken/images/val | head -1)
    python3 - "broken/images/val/$victim" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
sos = data.find(b"\xff\xda")  # start of scan: keep every header segment, break the scan header
data[sos + 4:sos + 40] = b"\xff" * 36
open(path, "wb").write(bytes(data))
PY
    "$host" train model=examplen data=broken/data.yaml imgsz=96 batch=4 workers=2 epochs=1 device=cpu project=$work/runs \
      name=broken > train.log 2>&1 || { cat train.log; fail "training with a broken val image"; }
    grep -q "skipping a training image" train.log && fail "a val image was called a training image"
    grep -q "7 of 8 images evaluated; 1 could not be decoded and was left out.*$victim" train.log ||
      { cat train.log; fail "training's validation did not name and count the broken image"; }
    "$host" val model=runs/broken/weights/last.pt data=broken/data.yaml batch=4 workers=2 project=$work/val > val.log 2>&1 ||
      { cat val.log; fail "val"; }
    grep -q "^7 of 8 images evaluated; 1 could not be decoded.*$victim" val.log || { cat val.log; fail "val summary"; }
    images=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['images']))" val/exp/ground_truth.json)
    [ "$images" -eq 7 ] || fail "ground_truth.json has $images images, expected 7"
    echo "ok: a broken val image is left out of the evaluation, named and counted"
    ;;
  *) fail "unknown case $case_name" ;;
esac
