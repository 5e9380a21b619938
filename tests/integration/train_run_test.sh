#!/usr/bin/env bash
# End to end on CPU: train the example family for 2 epochs on the bundled coco16 through the
# CLI, check the run folder, then resume equivalence, divergence and Ctrl-C behaviour.
# Usage: train_run_test.sh HOST COMPARE_TOOL SOURCE_DIR WORK_DIR FIXTURE_FAMILY_DIR HAS_OPENCV PICTURE_CHECK
# HAS_OPENCV (CMake's LIBREYOLO_HAS_OPENCV): without OpenCV the plots are not drawn, and the run
# must say so instead (the GPU machine's image has no OpenCV C++ package).
# PICTURE_CHECK (picture_check.cpp): a picture is its format, of its size, and not blank.
set -euo pipefail
host=$1; compare=$2; src=$3; work=$4; fixture_families=$5; has_opencv=$6; picture_check=$7
rm -rf "$work"; mkdir -p "$work"; cd "$work"
data=$src/datasets/coco16/data.yaml
# device=cpu: bitwise-reproducible kernels, so resume equivalence can be exact (cuDNN is not).
common=(model=examplen data=$data imgsz=160 batch=8 workers=2 project=$work/runs seed=3 warmup_epochs=1 eval_interval=1
        device=cpu)
fail() { echo "FAILED: $*" >&2; exit 1; }
drawing() { [[ "$has_opencv" =~ ^(ON|TRUE|1|YES)$ ]]; }
# The pictures of a validation and their sizes: the curves and the matrix are fixed-size; the
# batch is coco16's 8 val images at imgsz=160 in a 3 x 3 grid (run_plots.hpp).
# The curves may be 99% background: this run's toy model scores 0, so its curve lies on the axis.
validation_pictures="PR_curve.png:900:600:99 F1_curve.png:900:600:99 confusion_matrix_normalized.png:1200:900:97 val_batch0_pred.jpg:480:480:97"
# Every validation picture in folder $1 is real (with OpenCV), or none is there and $2 (a log)
# says why (without).
check_validation_pictures() {
  local folder=$1 log=$2 entry name
  for entry in $validation_pictures; do
    IFS=: read -r name width height share <<< "$entry"
    if drawing; then
      "$picture_check" "$folder/$name" "$width" "$height" 16 "$share" || fail "$folder/$name is not the picture it should be"
    else
      [ ! -e "$folder/$name" ] || fail "a build without OpenCV wrote $folder/$name"
    fi
  done
  drawing || grep -q "plots: this build has no OpenCV.*PR_curve.png" "$log" || { cat "$log"; fail "$log does not say why there are no validation pictures"; }
}
no_validation_pictures() {
  local entry
  for entry in $validation_pictures; do [ ! -e "$1/${entry%%:*}" ] || fail "plots=false still wrote $1/${entry%%:*}"; done
}

# 1. Two epochs: run folder, results.csv rows, checkpoints.
"$host" train "${common[@]}" epochs=2 save_period=1 name=straight > straight.log 2>&1 || { cat straight.log; fail "training exited $?"; }
run=$work/runs/straight
for f in args.yaml results.csv metrics.jsonl train.log weights/last.pt weights/best.pt; do
  [ -s "$run/$f" ] || fail "missing $run/$f"
done
if drawing; then
  [ -s "$run/results.png" ] || fail "missing $run/results.png"
  "$picture_check" "$run/labels.jpg" 800 800 || fail "labels.jpg"
  "$picture_check" "$run/train_batch0.jpg" 480 480 || fail "train_batch0.jpg"  # 8 images of 160 px, 3 x 3
else
  grep -q "plots: this build has no OpenCV" "$run/train.log" || fail "a build without OpenCV drew no plots and did not say so"
  echo "ok: this build has no OpenCV: no plots, and train.log says so"
fi
check_validation_pictures "$run" "$run/train.log"
echo "ok: the run's validation pictures ($(drawing && echo "PR, F1, confusion matrix, val batch" || echo "none: no OpenCV, and said so"))"
rows=$(($(wc -l < "$run/results.csv") - 1))
[ "$rows" -eq 2 ] || fail "results.csv has $rows epoch rows, expected 2"
header=$(head -1 "$run/results.csv")
for column in epoch time train/loss validated is_best best_epoch "metrics/precision(B)" "metrics/recall(B)" \
              "metrics/mAP50(B)" "metrics/mAP50-95(B)" metrics/mAP50-95 lr/group0; do
  [[ ",$header," == *",$column,"* ]] || fail "results.csv has no column $column (LibreYOLO's name): $header"
done
# Plain decimals: no 1e-05 in any row.
! tail -n +2 "$run/results.csv" | sed 's/metrics\/mAP50-95//g' | grep -q '[eE]' || fail "results.csv has a number in exponent notation"
echo "ok: 2 epochs, results.csv has 2 rows under LibreYOLO's column names, last.pt and best.pt written"

# summary.json, LibreYOLO's end-of-run summary: it parses, and holds this run's epochs and the
# best mAP50-95 results.csv recorded (the first epoch with the highest value).
python3 - "$run" <<'PY' || fail "summary.json does not describe the run"
import csv, json, os, sys
run = sys.argv[1]
s = json.load(open(os.path.join(run, "summary.json")))
rows = list(csv.DictReader(open(os.path.join(run, "results.csv"))))
maps = [float(r["metrics/mAP50-95"]) for r in rows]
best = maps.index(max(maps))
checks = {
    "total_epochs": (s["total_epochs"], 2), "completed_epochs": (s["completed_epochs"], 2),
    "invocation_completed_epochs": (s["invocation_completed_epochs"], 2), "logged_epochs": (s["logged_epochs"], [1, 2]),
    "best_epoch": (s["best_epoch"], best + 1), "best_metric": (s["best_metric"], maps[best]),
    "results.best_epoch": (s["results"]["best_epoch"], best + 1), "model": (s["model_family"] + s["model_size"], "examplen"),
    "checkpoints.best": (s["checkpoints"]["best"], os.path.join(run, "weights", "best.pt")),
    "checkpoints.last": (s["checkpoints"]["last"], os.path.join(run, "weights", "last.pt")),
    "epoch_metrics": (len(s["results"]["epoch_metrics"]), 2), "results_scope": (s["results_scope"], "current_invocation"),
}
wrong = {k: v for k, v in checks.items() if v[0] != v[1]}
if wrong or abs(s["final_loss"] - float(rows[-1]["train/loss"])) > 1e-9 or s["total_seconds"] <= 0:
    sys.exit(f"summary.json: {wrong or s}")
PY
echo "ok: summary.json parses and holds 2 epochs, the best epoch and metric of results.csv"

# val=false (LibreYOLO's): no validation at all, so no metrics and no best.pt.
"$host" train "${common[@]}" epochs=1 val=false name=noval > noval.log 2>&1 || { cat noval.log; fail "val=false run"; }
[ ! -e "$work/runs/noval/weights/best.pt" ] || fail "val=false wrote best.pt"
grep -q "val=false: no validation" noval.log || { cat noval.log; fail "val=false was not announced"; }
# No internal -1 reaches the user where a run without validation has no best epoch or metric:
# the console, train.log, results.csv, metrics.jsonl, args.yaml and summary.json say "none" in
# their own way (empty cell, null, words) instead. Paths are blanked first (they are not values).
leaked_minus_one() { sed "s|$work|WORK|g" "$@" | grep -nE '(^|[^0-9A-Za-z_.])-1(\.0*)?([^0-9.]|$)'; }
for f in noval.log runs/noval/train.log runs/noval/results.csv runs/noval/metrics.jsonl runs/noval/args.yaml \
         runs/noval/summary.json; do
  [ -s "$f" ] || fail "val=false run has no $f"
  ! leaked_minus_one "$f" || fail "$f shows an internal -1 (above)"
done
grep -q "done: .*(val=false: not validated)" noval.log || { tail -3 noval.log; fail "the last line does not say why there is no mAP"; }
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["best_epoch"] is not None or s["best_metric"] is not None)' \
  runs/noval/summary.json || fail "summary.json of a run without validation has a best epoch or metric"
# bench step on the CPU measures no device memory or kernels: left out of the line, null in JSON.
"$host" bench step model=examplen data=$data imgsz=160 batch=4 workers=2 steps=2 warmup=1 device=cpu \
  json=$work/bench_step.json > bench_step.log 2>&1 || { cat bench_step.log; fail "bench step"; }
for f in bench_step.log bench_step.json; do ! leaked_minus_one "$f" || fail "$f shows an internal -1 (above)"; done
# The back-to-back steps ran and were timed (a positive number of ms per step).
grep -Eq '"back_to_back_ms": *[0-9]*\.?[0-9]*[1-9]' $work/bench_step.json || { cat $work/bench_step.json; fail "bench step has no back-to-back time"; }
grep -q "back to back" bench_step.log || fail "bench step's line does not give the back-to-back time"
echo "ok: a run without validation and a CPU bench step show no internal -1"
# pretrained=false with a .pt is refused: LibreYOLO would fine-tune anyway.
if "$host" train "${common[@]:1}" model=$run/weights/last.pt epochs=1 pretrained=false name=nopre > nopre.log 2>&1; then
  fail "pretrained=false with a .pt trained"
fi
grep -q "pretrained=false with model=" nopre.log || { cat nopre.log; fail "pretrained=false was not explained"; }
[ ! -e "$work/runs/nopre" ] || fail "a refused pretrained=false left a run folder"
echo "ok: val=false trains without validation; pretrained=false with a .pt is refused"

# best.pt loads back and validates through `val`, which writes COCO JSON for other tools.
"$host" val model=$run/weights/best.pt data=$data batch=8 workers=2 project=$work/val > val.log 2>&1 ||
  { cat val.log; fail "val of best.pt"; }
grep -q "mAP50-95" val.log || fail "val printed no mAP"
[ -s "$work/val/exp/predictions.json" ] && [ -s "$work/val/exp/ground_truth.json" ] || fail "val wrote no COCO JSON"
echo "ok: best.pt validates with val ($(grep -o 'mAP50 [0-9.e-]*  mAP50-95 [0-9.e-]*' val.log))"
check_validation_pictures "$work/val/exp" "$work/val/exp/val.log"
"$host" val model=$run/weights/best.pt data=$data batch=8 workers=2 project=$work/val plots=false > val_noplots.log 2>&1 ||
  { cat val_noplots.log; fail "val plots=false"; }
[ -s "$work/val/exp2/predictions.json" ] || fail "val plots=false wrote no predictions.json in val/exp2"
no_validation_pictures "$work/val/exp2"
echo "ok: val draws its pictures into its run folder, plots=false none"

# A run can start from a checkpoint: model=best.pt names the family and size itself.
"$host" train model=$run/weights/best.pt data=$data imgsz=160 batch=8 workers=2 project=$work/runs name=finetune \
  epochs=1 device=cpu > finetune.log 2>&1 || { cat finetune.log; fail "training from best.pt"; }
grep -q "starting from .*best.pt" finetune.log || fail "fine-tuning did not say which weights it started from"
echo "ok: model=best.pt starts a new run from those weights"

# freeze=1 (LibreYOLO's): examplen's freeze groups are its top-level modules, backbone and head.
# From the straight run's weights, the frozen backbone (BatchNorm statistics included, EMA on)
# leaves one epoch bit for bit as it came in; the head trains.
frozen=(model=$run/weights/last.pt data=$data imgsz=160 batch=8 workers=2 project=$work/runs epochs=1 device=cpu)
"$host" train "${frozen[@]}" name=frozen freeze=1 > frozen.log 2>&1 || { cat frozen.log; fail "freeze=1 training"; }
grep -q "freeze=1: 1 of 2 freeze groups (backbone); [0-9]* parameter tensors" frozen.log ||
  { cat frozen.log; fail "freeze=1 did not say what it froze"; }
"$compare" "$run/weights/last.pt" "$work/runs/frozen/weights/last.pt" 0 backbone. > frozen_compare.log 2>&1 ||
  { cat frozen_compare.log; fail "freeze=1 changed the frozen backbone"; }
if "$compare" "$run/weights/last.pt" "$work/runs/frozen/weights/last.pt" 0 head. > head_compare.log 2>&1; then
  cat head_compare.log; fail "freeze=1 froze the head too"
fi
echo "ok: freeze=1 keeps the backbone bit-identical ($(cat frozen_compare.log)), the head trains"
# Refused before any folder exists, each naming the groups: a count past them, all of them, a typo.
for bad in "freeze=5:asks for the first 5 freeze groups, but examplen has 2" "freeze=2:would leave examplen nothing to train" \
           "freeze=bakbone:matches no parameter of examplen"; do
  option=${bad%%:*}; message=${bad#*:}
  if "$host" train "${frozen[@]}" name=badfreeze "$option" > badfreeze.log 2>&1; then fail "$option trained"; fi
  grep -q "$message" badfreeze.log || { cat badfreeze.log; fail "$option: expected '$message'"; }
  grep -q "0 backbone, 1 head" badfreeze.log || { cat badfreeze.log; fail "$option: the refusal does not list the groups"; }
  [ ! -e "$work/runs/badfreeze" ] || fail "a refused $option left a run folder"
done
echo "ok: freeze=5, freeze=2 and freeze=bakbone are refused with the groups listed"

# 1b. Without project=, in a folder where nothing exists yet: val's default runs/val/exp is
# created in the working folder (a relative path none of whose parts exist once read as read-only).
mkdir -p "$work/fresh"
(cd "$work/fresh" && "$host" val model="$run/weights/best.pt" data=$data imgsz=160 batch=8 workers=2 device=cpu plots=false > val.log 2>&1) ||
  { cat "$work/fresh/val.log"; fail "val without project= in a fresh folder"; }
[ -s "$work/fresh/runs/val/exp/predictions.json" ] || { cat "$work/fresh/val.log"; fail "no runs/val/exp/predictions.json in the working folder"; }
[ ! -e "$work/fresh/runs/val/exp/weights" ] || fail "val made a weights folder (it writes no weights)"
echo "ok: val without project= writes runs/val/exp in a fresh working folder, without a weights folder"

# 2. A second run with the same name goes to straight2. It also asks for CUDA graphs, which a
# CPU run cannot use: one log line, then eager training.
"$host" train "${common[@]}" epochs=1 name=straight cuda_graph=true save_plots=false > second.log 2>&1 || fail "second run"
[ -d "$work/runs/straight2" ] || fail "no straight2 run folder"
for f in results.png labels.jpg train_batch0.jpg; do
  [ ! -e "$work/runs/straight2/$f" ] || fail "save_plots=false still wrote $f"
done
no_validation_pictures "$work/runs/straight2"
echo "ok: name collision -> straight2"
[ "$(grep -c 'cuda_graph=true has no effect' second.log)" -eq 1 ] || { cat second.log; fail "cuda_graph on CPU: expected one log line"; }
echo "ok: cuda_graph=true on CPU trains eager ($(grep -o 'cuda_graph=true has no effect: [^;]*' second.log))"

# 3. Resume: the straight run's epoch-1 checkpoint is exactly what its last.pt held after
# epoch 1. Resuming a copy of it (with the run's args.yaml, where a resume takes its options
# from) for the second epoch must give the straight run's weights.
mkdir -p "$work/runs/part/weights"
cp "$run/weights/epoch1.pt" "$work/runs/part/weights/last.pt"
cp "$run/args.yaml" "$work/runs/part/args.yaml"
# A different epochs= is refused, listing the difference, and leaves the run as it was.
before=$(cksum < "$work/runs/part/weights/last.pt")
if "$host" train resume=$work/runs/part/weights/last.pt epochs=5 lr0=0.5 > refused.log 2>&1; then
  cat refused.log; fail "a resume with epochs=5 lr0=0.5 (the run has 2 and 0.01) was not refused"
fi
grep -q "cannot resume $work/runs/part with different options: epochs=5 (the run has 2); lr0=0.5 (the run has 0.01)" refused.log ||
  { cat refused.log; fail "the refusal does not list both differences"; }
grep -q "start a new run from its weights with model=$work/runs/part/weights/last.pt" refused.log ||
  { cat refused.log; fail "the refusal does not say how to train on with other options"; }
[ "$(cksum < "$work/runs/part/weights/last.pt")" = "$before" ] || fail "a refused resume changed last.pt"
[ "$(wc -l < "$work/runs/part/args.yaml")" -gt 10 ] || fail "a refused resume changed args.yaml"
echo "ok: resume with changed options refused, naming each ($(grep -o 'epochs=5 [^;]*' refused.log))"
# The original command again (same options) continues; workers may change and is logged. The
# model and data come from args.yaml: none of them is repeated.
"$host" train "${common[@]/workers=2/workers=1}" epochs=2 save_period=1 name=part resume=true > resume.log 2>&1 ||
  { cat resume.log; fail "resume"; }
grep -q "resuming .* after epoch 1" resume.log || { cat resume.log; fail "resume did not say it resumed after epoch 1"; }
grep -q "resume: workers=1 (the run has 2)" resume.log || { cat resume.log; fail "the accepted workers change was not logged"; }
"$compare" "$run/weights/last.pt" "$work/runs/part/weights/last.pt" 1e-6 > compare.log 2>&1 ||
  { cat compare.log; fail "resumed weights differ from the straight run"; }
echo "ok: 1 epoch + resume 1 (workers 2 -> 1) == 2 epochs straight ($(tail -1 compare.log))"
# The best epoch went through last.pt (LibreYOLO's best_epoch: 1-based, 0 for none) and came
# back the same: the resumed epoch-2 row names the straight run's best epoch and metric.
best_cells() { python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[-1]; print(r["epoch"], r["is_best"], r["best_epoch"], r["best_metric"])' "$1"; }
[ "$(best_cells "$work/runs/part/results.csv")" = "$(best_cells "$run/results.csv")" ] ||
  fail "resumed best epoch $(best_cells "$work/runs/part/results.csv") differs from the straight run's $(best_cells "$run/results.csv")"
# resume=true without name= continues the project's latest run (part: its last.pt is newest).
if "$host" train resume=true project=$work/runs epochs=9 > latest.log 2>&1; then cat latest.log; fail "epochs=9 not refused"; fi
grep -q "cannot resume $work/runs/part with different options: epochs=9" latest.log ||
  { cat latest.log; fail "resume=true did not pick the latest run"; }
echo "ok: resume=true without name= picks the latest run of project="
# The part run has now trained both its epochs: resuming it again says there is nothing to resume
# and how to train longer, and leaves its weights as they were.
before=$(cksum < "$work/runs/part/weights/last.pt")
"$host" train resume=$work/runs/part/weights/last.pt > finished.log 2>&1 || { cat finished.log; fail "resume of a finished run"; }
grep -q "already trained all its 2 epochs: nothing to resume. To train longer, start a new run from its weights: model=$work/runs/part/weights/last.pt" finished.log ||
  { cat finished.log; fail "resuming a finished run did not say so"; }
[ "$(cksum < "$work/runs/part/weights/last.pt")" = "$before" ] || fail "resuming a finished run changed last.pt"
echo "ok: resuming a finished run says there is nothing to resume"

# 4. Divergence: a test family whose loss turns NaN after two steps. Each such step is
# skipped with a warning; several in a row stop the run with a clear message.
if "$host" train model=divergingn data=$data imgsz=160 batch=4 workers=2 project=$work/runs name=diverge \
     epochs=3 device=cpu --plugin-dir "$fixture_families" > diverge.log 2>&1; then
  fail "a diverging run exited 0"
fi
grep -q "step skipped" diverge.log || { cat diverge.log; fail "no skipped-step warning"; }
grep -q "training diverged" diverge.log || { cat diverge.log; fail "no divergence message"; }
echo "ok: non-finite steps are skipped, then the run stops with a message"

# 5. Ctrl-C: the first SIGINT finishes the step, saves last.pt, exits 130 and says how to resume.
"$host" train "${common[@]}" epochs=200 name=interrupted > interrupt.log 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "epoch 1/200" interrupt.log 2>/dev/null && break; sleep 0.2; done
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[ "$code" -eq 130 ] || { cat interrupt.log; fail "interrupted run exited $code, expected 130"; }
[ -s "$work/runs/interrupted/weights/last.pt" ] || fail "no last.pt after interrupt"
grep -q "Resume with: libreyolo-host train resume=$work/runs/interrupted/weights/last.pt" interrupt.log ||
  { cat interrupt.log; fail "no resume hint naming the run's last.pt"; }
[ ! -e "$work/runs/interrupted/summary.json" ] || fail "an interrupted run wrote summary.json (LibreYOLO writes none)"
echo "ok: Ctrl-C saves last.pt and exits 130, and writes no summary.json"

# 6. SIGKILL cannot be handled: train.log must hold every line written up to then.
"$host" train "${common[@]}" epochs=200 name=killed > killed.log 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "epoch 1/200" killed.log 2>/dev/null && break; sleep 0.2; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
for line in "run folder: " "model examplen: [0-9.]*M parameters" "training from scratch"; do
  grep -q "$line" "$work/runs/killed/train.log" || { cat "$work/runs/killed/train.log"; fail "train.log lost '$line' to SIGKILL"; }
done
echo "ok: a SIGKILLed run's train.log holds its lines"
echo "train_run_test: all passed"
