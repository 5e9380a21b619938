# Twenty-fifth session, warm after run25d.sh: end to end with and without dense_slices (YOLOv9-t),
# the default first and last so that drift shows.
source .gpu/common.sh
stamp "start"
common="data=$W/coco128x8/data.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true epochs=3 eval_interval=3"
for fused in measured measured+dense_slices measured; do
  timeout 80 $H bench train model=yolo9t $common name=e2e_${fused//+/_} fused_kernels=$fused > $W/e.log 2>&1
  stamp "e2e yolo9t $fused rc=$?: $(grep -E 'bench train:' $W/e.log | cut -c1-300)"; cat $W/e.log >> $OUT/train.log
done
stamp "end"
