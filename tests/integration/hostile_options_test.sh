#!/usr/bin/env bash
# Nothing lost, nothing silent (issue #20, docs/reliability.md): what a hostile or careless
# command line gets from `train`, one case per call, on the CPU with the example family on the
# bundled coco16. Every failure must be the project's message (what, why, what to do), never
# "unexpected failure ... This is a bug" or a LibTorch backtrace.
# Usage: hostile_options_test.sh CASE HOST SOURCE_DIR WORK_DIR
#   CASE: synonym_suggested | empty_value | cfg_folder | batch_capped | cpu_out_of_memory |
#         failed_start_leaves_no_folder | read_only_project
set -euo pipefail
case_name=$1; host=$2; src=$3; work=$4/$1
rm -rf "$work"; mkdir -p "$work"; cd "$work"
data=$src/datasets/coco16/data.yaml
common=(model=examplen workers=0 device=cpu seed=1)
runs=(data=$data project=$work/runs)  # where a case does not choose its own
fail() { echo "FAILED: $*" >&2; exit 1; }

# Runs train with "$@", expecting exit code 1; the output is in $log.
expect_error() {
  log=$work/train.log.txt
  set +e
  "$host" train "$@" > "$log" 2>&1
  local code=$?
  set -e
  [ "$code" -eq 1 ] || { cat "$log"; fail "exit code $code, expected 1"; }
  no_bug_report
}
no_bug_report() {
  ! grep -q "This is a bug\|unexpected failure\|frame #" "$log" || { cat "$log"; fail "reported as a bug, with a backtrace"; }
}
expect_line() { grep -q -- "$1" "$log" || { cat "$log"; fail "no line matching: $1"; }; }

case $case_name in
  synonym_suggested)
    expect_error "${common[@]}" "${runs[@]}" imgsz=64 batchsize=16
    expect_line "unknown option 'batchsize' in the command line: did you mean 'batch'?"
    expect_error "${common[@]}" "${runs[@]}" imgsz=64 bs=16
    expect_line "unknown option 'bs' in the command line: did you mean 'batch'?"
    echo "ok: batchsize= and bs= suggest batch"
    ;;
  empty_value)
    expect_error "${common[@]}" "${runs[@]}" imgsz=64 epochs=
    expect_line "option 'epochs' has an empty value in the command line: 'epochs=' is followed by nothing"
    expect_line "leave epochs out for the default (300)"
    printf 'epochs:\n' > empty.yaml
    expect_error "${common[@]}" "${runs[@]}" imgsz=64 cfg=empty.yaml
    expect_line "option 'epochs' has an empty value in cfg file empty.yaml"
    echo "ok: an empty value says so, on the command line and in a cfg file"
    ;;
  cfg_folder)
    mkdir options
    expect_error "${common[@]}" "${runs[@]}" imgsz=64 cfg=options
    expect_line "cfg file options is a folder: cfg= must name a YAML file of options, not a folder"
    echo "ok: cfg= a folder says it is a folder"
    ;;
  batch_capped)
    "$host" train "${common[@]}" "${runs[@]}" imgsz=64 epochs=1 batch=100000 name=big > run.log 2>&1 || { cat run.log; fail "train batch=100000"; }
    log=run.log
    expect_line "warning: batch=100000 is larger than the 16 images of the training split: training with batch=16"
    [ "$(grep -c "batch=100000 is larger" run.log)" -eq 1 ] || { cat run.log; fail "the warning is not said exactly once"; }
    echo "ok: batch=100000 on 16 images trains at batch=16 and says so once"
    ;;
  cpu_out_of_memory)
    # 2 GB of address space beyond the shared libraries the host maps holds the process but not
    # imgsz=2048's first activations (1 GiB each). The libraries count because a CUDA build maps
    # far more of them (libtorch_cuda, cuBLASLt, ...) before main() runs: a fixed 2 GB limit made it
    # fail to start there ("failed to map segment"), testing nothing.
    libs_kb=$(ldd "$host" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | xargs -r stat -L -c %s |
      awk '{s += $1} END {print int(s / 1024)}')
    log=$work/train.log.txt
    set +e
    (ulimit -v $((2000000 + libs_kb)); exec "$host" train "${common[@]}" "${runs[@]}" imgsz=2048 batch=16 epochs=1 name=oom) > "$log" 2>&1
    code=$?
    set -e
    [ "$code" -eq 1 ] || { cat "$log"; fail "exit code $code, expected 1"; }
    no_bug_report
    expect_line "error: out of memory on cpu at batch=16 imgsz=2048: .*can't allocate memory"
    expect_line "lower batch (e.g. batch=8, with nbs= to keep the nominal batch), lower imgsz, or give the process more memory"
    echo "ok: running out of CPU memory is an out-of-memory message, not a bug report"
    ;;
  failed_start_leaves_no_folder)
    expect_error "${common[@]}" project=$work/runs data=$work/missing.yaml imgsz=64 epochs=1 name=nodata
    [ ! -e runs/nodata ] || fail "a run that failed to start left runs/nodata behind"
    mkdir -p empty_data/images/train empty_data/images/val
    printf 'path: .\ntrain: images/train\nval: images/val\nnames: [a]\n' > empty_data/data.yaml
    expect_error "${common[@]}" project=$work/runs data=$work/empty_data/data.yaml imgsz=64 epochs=1 name=emptydata
    [ ! -e runs/emptydata ] || fail "a run whose dataset has no images left runs/emptydata behind"
    [ ! -e runs ] || { ls -R runs; fail "runs/ was created"; }
    # A run that starts writes its whole log, also what it said before the folder existed.
    "$host" train "${common[@]}" "${runs[@]}" imgsz=64 batch=4 epochs=1 name=ok > ok.log 2>&1 || { cat ok.log; fail "a good run"; }
    grep -q "data: 16 train, 8 val images" runs/ok/train.log || { cat runs/ok/train.log; fail "train.log lost the lines before the folder existed"; }
    echo "ok: a failed start leaves no run folder; a good run's train.log is complete"
    ;;
  read_only_project)
    mkdir locked && chmod 555 locked
    expect_error "${common[@]}" data=$data project=$work/locked/runs imgsz=64 epochs=1 name=x
    chmod 755 locked
    expect_line "cannot create the run folder $work/locked/runs/x: the folder it goes into is read-only"
    [ ! -e locked/runs ] || fail "something was created inside the read-only folder"
    echo "ok: a read-only project folder is a clear error"
    ;;
  *) fail "unknown case $case_name" ;;
esac
