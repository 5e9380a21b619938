# Fourteenth session, call A: cold build (the vectorised BatchNorm + SiLU kernels' first compile
# against CUDA LibTorch; the whole-step graph's first), its unit cases and check tool, the whole
# ctest, bench capture of YOLOv9-t (eager vs the whole-step graph), then YOLOv9-t's and
# YOLOX-s's captured step with fused_kernels=off and auto (alternating), and the two profiles the
# measured half of the roofline needs (tests/tools/roofline.py --profile).
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128; ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -3 $W/build.log; grep -E "error|FAILED" $W/build.log | head -20
stamp "built"
F=$OUT/fused.log
timeout 120 build-gpu/bin/libreyolo_unit_tests -tc='*fused*,*deformable*,*batch_norm_silu*,*BatchNorm + SiLU*' > $F 2>&1; echo "unit rc=$?" >> $F; tail -4 $F
timeout 60 build-gpu/bin/batch_norm_silu_check >> $F 2>&1; echo "check rc=$?" >> $F; tail -14 $F
stamp "fused done"
(cd build-gpu && timeout 170 ctest -j8 --timeout 150 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log); tail -6 $OUT/ctest.log
stamp "ctest done"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
timeout 60 $H bench capture model=yolo9t $common steps=24 warmup=10 > $OUT/capture_yolo9t.log 2>&1; stamp "capture yolo9t rc=$? $(grep -E 'bench capture|bitwise|trajector' $OUT/capture_yolo9t.log | head -3 | cut -c1-300)"
for run in "yolo9t off" "yolo9t auto" "yoloxs off" "yoloxs auto" "yolo9t off" "yolo9t auto"; do
  set -- $run; [ $SECONDS -lt 470 ] || break
  timeout 40 $H bench step model=$1 $common steps=100 warmup=20 fused_kernels=$2 > $W/s.log 2>&1
  stamp "step $1 $2: $(grep 'bench step:' $W/s.log | cut -c1-400)"; cat $W/s.log >> $OUT/steps.log
done
for m in "yolo9 t" "yolox s"; do
  set -- $m; [ $SECONDS -lt 540 ] || break
  timeout 30 $H profile run $W/coco128x8/data.yaml --model $1 --size $2 --batch 16 workers=16 cache=ram device=0 cuda_graph=true project=/tmp/runs name=prof_$1$2 > $W/prof.log 2>&1; stamp "profile $1$2 rc=$? $(tail -2 $W/prof.log)"
  f=$(find /tmp/runs/prof_$1$2* -name profile.json | head -1); [ -n "$f" ] && gzip -c "$f" > $OUT/profile_$1$2.json.gz
done
stamp "end"
