#!/usr/bin/env bash
# `predict` end to end on the CPU (issue #19 item 3; docs/cli.md, "predict options"): a
# one-epoch example-family checkpoint predicts the bundled coco16 val images.
# Usage: predict_test.sh CASE HOST IMAGE_CHECK SOURCE_DIR WORK_DIR HAS_OPENCV [WEIGHTS]
#   CASE: train_weights (the fixture: trains the checkpoint the other cases share) |
#         outputs_match_val (annotated images, labels/, predictions.json, against val's boxes) |
#         detr_matches_val (WEIGHTS: an RT-DETR checkpoint; its stretch + top-k path against val) |
#         bad_inputs (each refused input: a clear message, exit 1, no run folder; bad images skipped)
#   HAS_OPENCV: ON when the build draws (else save=true must be refused with what to install)
set -euo pipefail
case_name=$1; host=$2; check=$3; src=$4; base=$5; has_opencv=$6
data=$src/datasets/coco16/data.yaml
val_images=$src/datasets/coco16/images/val
weights=${7:-$base/train/w/weights/best.pt}
work=$base/$case_name
fail() { echo "FAILED: $*" >&2; exit 1; }

# Runs predict with "$@" into $log, expecting exit code $1.
run_predict() {
  local expected=$1; shift
  log=$work/predict.$((++runs)).log
  set +e
  "$host" predict "$@" > "$log" 2>&1
  local code=$?
  set -e
  [ "$code" -eq "$expected" ] || { cat "$log"; fail "predict $*: exit code $code, expected $expected"; }
  ! grep -q "This is a bug\|unexpected failure\|frame #" "$log" || { cat "$log"; fail "reported as a bug"; }
}
expect_line() { grep -q -- "$1" "$log" || { cat "$log"; fail "no line matching: $1"; }; }
runs=0

case $case_name in
  train_weights)
    rm -rf "$base/train"; mkdir -p "$base/train"
    "$host" train model=examplen data=$data imgsz=160 batch=8 workers=2 epochs=1 device=cpu seed=0 \
      project=$base/train name=w exist_ok=true > "$base/train/train.log" 2>&1 || { cat "$base/train/train.log"; fail "training"; }
    [ -s "$weights" ] || fail "no $weights"
    echo "ok: trained $weights"
    ;;

  outputs_match_val)
    rm -rf "$work"; mkdir -p "$work"; cd "$work"
    # conf 0.01: one epoch's scores stay low; max_det 300 per image, as val.
    opts=(model=$weights conf=0.01 iou=0.45 device=cpu project=$work/runs)
    save=true; [ "$has_opencv" = ON ] || save=false
    run_predict 0 "${opts[@]}" source=$val_images save=$save save_txt=true save_json=true name=match
    out=$work/runs/match
    expect_line "image 1/8 $val_images/000000000139.jpg: 320x213 [0-9]"
    expect_line "image 8/8 .*: [0-9]*x[0-9]* .*, [0-9.]* ms"
    expect_line "8 of 8 images predicted"
    expect_line "results saved to $out"
    for image in "$val_images"/*.jpg; do
      name=$(basename "$image" .jpg)
      [ -f "$out/labels/$name.txt" ] || fail "no labels/$name.txt"
      if [ "$has_opencv" = ON ]; then
        "$check" "$out/$name.jpg" "$image" 0.002 || fail "annotated $name.jpg"
      fi
    done
    [ "$(ls "$out/labels" | wc -l)" -eq 8 ] || fail "expected 8 label files"
    if [ "$has_opencv" = ON ]; then
      echo "ok: 8 annotated images (our decoder: source size, drawn on, not blank), 8 label files"
    else
      echo "ok: 8 label files (save=false: this build does not draw)"
    fi

    # The same weights through val, whose COCO JSON numbers the images in the folder's sorted order.
    "$host" val model=$weights data=$data conf=0.01 iou=0.45 device=cpu workers=0 project=$work/val > val.log 2>&1 ||
      { cat val.log; fail "val"; }
    python3 "$src/tests/integration/predict_compare.py" "$work/val/exp/predictions.json" "$out/predictions.json" \
      "$out/labels" || fail "predict's boxes differ from val's"

    # A glob and a class filter: only class 55 remains, exactly val's class-55 boxes (same count).
    run_predict 0 "${opts[@]}" "source=$val_images/*.jpg" classes=55 save=false save_txt=true name=match
    expect_line "results saved to $work/runs/match2"
    [ ! -e "$work/runs/match2/000000000139.jpg" ] || fail "save=false wrote an image"
    ! cat "$work/runs/match2/labels/"*.txt | grep -qv "^55 " || fail "classes=55 kept another class"
    filtered=$(cat "$work/runs/match2/labels/"*.txt | wc -l)
    expected=$(cat "$out/labels/"*.txt | grep -c "^55 " || true)
    [ "$filtered" -eq "$expected" ] && [ "$filtered" -gt 0 ] || fail "classes=55 kept $filtered boxes, expected $expected"
    echo "ok: a glob, classes=55 ($filtered boxes, as many as unfiltered), save=false, name -> match2"

    if [ "$has_opencv" = ON ]; then
      # Three boxes, not three hundred: the drawing changes a little of the image, not all of it,
      # and a PNG source gets a PNG (decodable as one) under its own name.
      "$check" "$val_images/000000000285.jpg" "$val_images/000000000285.jpg" 0 0 --png "$work/source.png" > /dev/null ||
        fail "converting a source image to PNG"
      run_predict 0 "${opts[@]}" source=$work/source.png max_det=3 name=few
      expect_line "image 1/1 $work/source.png: 293x320 "
      "$check" "$work/runs/few/source.png" "$work/source.png" 0.01 0.3 || fail "3 boxes drawn on source.png"
      [ "$(head -c 4 "$work/runs/few/source.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "source.png written as no PNG"
      echo "ok: 3 boxes on a PNG source change part of it; written as PNG"
    fi
    if [ "$has_opencv" != ON ]; then
      run_predict 1 "${opts[@]}" source=$val_images name=no_opencv
      expect_line "this build has no OpenCV (needed to draw boxes). install libopencv-core-dev and libopencv-imgproc-dev"
      [ ! -e "$work/runs/no_opencv" ] || fail "a refused save=true left a run folder"
      echo "ok: without OpenCV, save=true is refused with what to install"
    fi
    ;;

  detr_matches_val)
    rm -rf "$work"; mkdir -p "$work"; cd "$work"
    [ -s "$weights" ] || fail "no RT-DETR checkpoint at $weights (cli_train_rtdetrr18_one_epoch makes it)"
    # conf 0.001: the 300 top-scoring queries per image, as val keeps them.
    run_predict 0 model=$weights source=$val_images conf=0.001 device=cpu save=false save_txt=true save_json=true \
      project=$work/runs name=detr
    expect_line "image 8/8 .*: [0-9]*x[0-9]* 300 "
    "$host" val model=$weights data=$data conf=0.001 device=cpu workers=0 project=$work/val > val.log 2>&1 ||
      { cat val.log; fail "val"; }
    python3 "$src/tests/integration/predict_compare.py" "$work/val/exp/predictions.json" \
      "$work/runs/detr/predictions.json" "$work/runs/detr/labels" || fail "predict's RT-DETR boxes differ from val's"
    ;;

  bad_inputs)
    rm -rf "$work"; mkdir -p "$work/empty" "$work/mixed" "$work/broken"; cd "$work"
    project=$work/runs
    opts=(model=$weights device=cpu project=$project save=false)
    no_folder() { [ ! -e "$project" ] || { ls -R "$project"; fail "a refused start left $project behind"; }; }

    run_predict 1 "${opts[@]}"
    expect_line "predict needs a source: source= is not set"; no_folder
    run_predict 1 "${opts[@]}" source=$work/missing.jpg
    expect_line "source $work/missing.jpg does not exist"; no_folder
    run_predict 1 "${opts[@]}" source=$work/empty
    expect_line "source=$work/empty holds no image: the folder (subfolders included) has no .jpg"; no_folder
    run_predict 1 "${opts[@]}" "source=$work/empty/*.jpg"
    expect_line "matches no image: no file matches the pattern"; no_folder
    run_predict 1 model=examplen device=cpu project=$project source=$val_images
    expect_line "predict needs trained weights: model=examplen names a family, not a .pt file. pass model="; no_folder
    run_predict 1 "${opts[@]}" source=$val_images classes=0,80
    expect_line "classes=0,80 names class 80, which this model does not have: the model knows 80 classes, ids 0 to 79"
    no_folder
    run_predict 1 "${opts[@]}" source=$val_images conf=1.5
    expect_line "conf=1.5 is out of range"; no_folder
    echo "ok: no source, a missing file, an empty folder, an unmatched glob, a family name, classes=80, conf=1.5"

    # Unreadable images are skipped with a warning and counted; the others are predicted.
    cp "$val_images/000000000139.jpg" mixed/good.jpg
    head -c 3000 "$val_images/000000000285.jpg" > mixed/truncated.jpg
    echo "not an image" > mixed/text.jpg
    run_predict 0 "${opts[@]}" source=$work/mixed save_txt=true conf=0.01
    expect_line "image 1/3 $work/mixed/good.jpg: 320x213"
    expect_line "image 2/3 $work/mixed/text.jpg: skipped: it is not a JPEG or PNG file"
    expect_line "image 3/3 $work/mixed/truncated.jpg: skipped: it is truncated"
    expect_line "1 of 3 images predicted.*2 could not be read and were skipped"
    [ -f "$project/exp/labels/good.txt" ] && [ ! -e "$project/exp/labels/text.txt" ] || fail "labels of the mixed folder"
    echo "ok: 2 unreadable images of 3 skipped and counted"
    cp mixed/text.jpg mixed/truncated.jpg broken/
    run_predict 1 "${opts[@]}" source=$work/broken
    expect_line "0 of 2 images predicted"
    expect_line "no image could be predicted"
    echo "ok: a folder of unreadable images fails"
    ;;
  *) fail "unknown case $case_name" ;;
esac
