# Call D (12th session, last budget): host + four plugins only; profiles of YOLOv9-t's and
# YOLOX-s's captured steps (profile.json back: #21's kernel-class breakdown); then, as time
# allows, D-FINE-n end to end fused off then auto (call C ran auto first) and RT-DETR-r18's step
# fused off (call B's log was lost).
source .gpu/common.sh
stamp "start"
rm -rf $W/coco128; cp -r $R/coco128 $W/coco128; bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox libreyolo_family_dfine libreyolo_family_rtdetr > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -2 $W/build.log
stamp "built"
for m in "yolo9 t" "yolox s"; do
  set -- $m
  timeout 45 $H profile run $W/coco128x8/data.yaml --model $1 --size $2 --batch 16 workers=16 cache=ram device=0 cuda_graph=true project=/tmp/runs name=prof_$1$2 > $W/prof_$1$2.log 2>&1; stamp "profile $1$2 rc=$?: $(grep -m1 -i 'verdict\|bound' $W/prof_$1$2.log | cut -c1-200)"
  f=$(find /tmp/runs/prof_$1$2* -name profile.json | head -1); [ -n "$f" ] && gzip -c "$f" > $OUT/profile_$1$2.json.gz
done
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs"
for fk in off auto; do
  [ $SECONDS -lt 270 ] || break
  timeout 55 $H bench train model=dfinen $common cuda_graph=true epochs=2 eval_interval=2 fused_kernels=$fk name=d_dfine_$fk > $W/d_dfine_$fk.log 2>&1
  stamp "e2e dfine $fk: $(grep 'bench train:' $W/d_dfine_$fk.log)"
done
[ $SECONDS -lt 320 ] && { timeout 35 $H bench step model=rtdetrr18 $common cuda_graph=true steps=20 fused_kernels=off > $W/step_rtdetr_off.log 2>&1; stamp "step rtdetr off: $(grep 'bench step:' $W/step_rtdetr_off.log | cut -c1-420)"; }
stamp "end"
