#!/usr/bin/env bash
# Hostile data (issue #20, docs/reliability.md): FIFOs, folders and huge files where inputs
# should be, data.yaml written wrong, a damaged disk image cache. One case per call, on the
# CPU, with the example family on copies of the bundled coco16.
# Usage: hostile_data_test.sh CASE HOST SOURCE_DIR WORK_DIR
#   CASE: fifo_model | fifo_data | fifo_label | big_label | duplicate_key | missing_train |
#         zero_boxes | path_outside | cache_pixels
set -euo pipefail
case_name=$1; host=$2; src=$3; work=$4/$1
rm -rf "$work"; mkdir -p "$work"; cd "$work"
common=(model=examplen imgsz=64 batch=4 workers=2 epochs=1 device=cpu project=$work/runs seed=5 save_period=0)
fail() { echo "FAILED: $*" >&2; exit 1; }
# Runs the host with a time limit: a FIFO that blocks shows as a timeout, not a hung test.
# Sets $code; the output goes to $1.
run_host() {
  local log=$1; shift
  set +e
  timeout 120 "$host" "$@" > "$log" 2>&1
  code=$?
  set -e
  [ "$code" -ne 124 ] || { cat "$log"; fail "the host was still running after 120 s (blocked?)"; }
}
expect_error() {  # LOG MESSAGE: the run failed with code 1 and said MESSAGE
  [ "$code" -eq 1 ] || { cat "$1"; fail "exit code $code, expected 1"; }
  grep -qF -- "$2" "$1" || { cat "$1"; fail "no message '$2'"; }
}
expect_success() {  # LOG MESSAGE
  [ "$code" -eq 0 ] || { cat "$1"; fail "exit code $code, expected 0"; }
  grep -qF -- "$2" "$1" || { cat "$1"; fail "no message '$2'"; }
}
copy_coco16() { cp -r "$src/datasets/coco16" "$1"; }

case $case_name in
  fifo_model)
    mkfifo weights.pt
    run_host val.log val model=weights.pt data="$src/datasets/coco16/data.yaml" device=cpu project=$work/val
    expect_error val.log "Cannot read checkpoint weights.pt: it is a FIFO (named pipe), not a regular file"
    echo "ok: val model= a FIFO is refused at once, naming what it is"
    ;;
  fifo_data)
    mkfifo data.yaml
    run_host train.log train "${common[@]}" data=./data.yaml
    expect_error train.log "Cannot read dataset file ./data.yaml: it is a FIFO (named pipe), not a regular file"
    run_host null.log train "${common[@]}" data=/dev/null
    expect_error null.log "Cannot read dataset file /dev/null: it is a character device, not a regular file"
    echo "ok: data= a FIFO or a device is named for what it is, not 'not found'"
    ;;
  fifo_label)
    copy_coco16 ds
    first=$(ls ds/labels/train | head -1); second=$(ls ds/labels/train | sed -n 2p)
    rm "ds/labels/train/$first" "ds/labels/train/$second"
    mkfifo "ds/labels/train/$first"; mkdir "ds/labels/train/$second"
    run_host train.log train "${common[@]}" data=ds/data.yaml
    expect_success train.log "images skipped because their label file could not be read: 2"
    grep -qF "$first (it is a FIFO (named pipe), not a regular file. " train.log || { cat train.log; fail "the FIFO label is not named"; }
    grep -qF "$second (it is a folder, not a regular file. " train.log || { cat train.log; fail "the folder label is not named"; }
    echo "ok: labels that are a FIFO or a folder are reported, not read as empty or waited for"
    ;;
  big_label)
    copy_coco16 ds
    victim=$(ls ds/labels/train | head -1)
    # 150,000 distinct rows (about 5 MB): over the cap, and it took the quadratic check ~4 s.
    awk 'BEGIN { for (i = 0; i < 150000; i++) printf "0 %.4f %.4f 0.001 0.001\n", 0.0005 + 0.0009 * (i % 1000), 0.0005 + 0.0009 * int(i / 1000) }' \
      > "ds/labels/train/$victim"
    run_host train.log train "${common[@]}" data=ds/data.yaml
    expect_success train.log "$victim (it has more than 100000 rows"
    echo "ok: a label file over the row cap is reported with why, and the run goes on"
    ;;
  duplicate_key)
    copy_coco16 ds
    printf 'train: images/train\nval: images/val\nnames: {0: person}\ntrain: images/val\n' > ds/dup.yaml
    run_host train.log train "${common[@]}" data=ds/dup.yaml
    expect_error train.log "the key 'train' appears twice (lines 1 and 4)"
    echo "ok: a duplicated data.yaml key is refused, naming both lines"
    ;;
  missing_train)
    copy_coco16 ds
    grep -v '^train:' ds/data.yaml > ds/no_train.yaml
    run_host train.log train "${common[@]}" data=ds/no_train.yaml
    expect_error train.log "data.yaml has no 'train:' key"
    echo "ok: a missing train: key says so"
    ;;
  zero_boxes)
    copy_coco16 ds
    rm -r ds/labels
    run_host train.log train "${common[@]}" data=ds/data.yaml
    expect_error train.log "Dataset split 'train' has no boxes to train on"
    echo "ok: a dataset without a single box is refused before training"
    ;;
  path_outside)
    # data.yaml in one folder, `path:` leading to another whose split is the root itself:
    # the scan cache once went beside that root (/usr/share.libreyolo.cache).
    copy_coco16 root
    mkdir yaml_dir
    { echo "path: $work/root"; echo "train: ."; echo "val: images/val"; sed -n '/^names:/,$p' root/data.yaml; } > yaml_dir/data.yaml
    run_host train.log train "${common[@]}" data=yaml_dir/data.yaml
    [ ! -e "$work/root.libreyolo.cache" ] || fail "a scan cache was written outside the dataset: $work/root.libreyolo.cache"
    expect_success train.log "leads outside its folder, to $work/root"
    ls root/.libreyolo-cache/train-*.libreyolo.cache > /dev/null || { find . -name '*.libreyolo*'; fail "no scan cache in the dataset's cache folder"; }
    echo "ok: derived caches stay inside the dataset; a path: outside the yaml's folder is said"
    ;;
  cache_pixels)
    copy_coco16 ds
    run_host first.log train "${common[@]}" data=ds/data.yaml cache=disk name=first
    expect_success first.log "caching 16 images"
    cache=$(ls ds/.libreyolo-cache/train*.libreyolo-images)
    # Random bytes over the start of the pixel block (the first image's pixels), in place.
    python3 - "$cache" <<'PY'
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(4096)
    f.write(os.urandom(20000))
PY
    run_host second.log train "${common[@]}" data=ds/data.yaml cache=disk name=second
    expect_success second.log "do not match their checksum"
    # The bytes cover the first few images: each is named, and only once.
    named_twice=$(grep -o "the cached pixels of [^ ]*" second.log | sort | uniq -d)
    [ -z "$named_twice" ] || { cat second.log; fail "an image was named more than once: $named_twice"; }
    run_host third.log train "${common[@]}" data=ds/data.yaml cache=disk name=third
    ! grep -q "do not match their checksum" third.log || { cat third.log; fail "the damaged image was not written back"; }
    echo "ok: changed bytes in the disk cache's pixels are named once, decoded again and repaired"
    ;;
  *) fail "unknown case $case_name" ;;
esac
