# Warm, right after run42a (export OUT DEADLINE=540): where YOLOX-s's gradients with
# batch_norm_memsets part from the default's. Eager (cuda_graph=false: our BatchNorm with its own
# workspaces, no graph edited) against captured (the surgery too), both against the default in
# one process each; then the same for YOLOv9-t eagerly, and YOLOX-s with the merged placement.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
[ -x $H ] || { prepare_data; build_gpu; }
[ -d $W/coco128x8 ] || prepare_data
EAGER="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=false"
eager_fused() {  # OUTFILE MODEL CANDIDATES: bench fused eagerly (60 s at most), stamped
  timeout 60 $H bench fused model=$2 $EAGER batch=16 steps=20 warmup=5 fused_kernels=measured+$3 > $1 2>&1
  stamp "eager fused $3 $2 rc=$?: $(grep -E 'speedup|composed:|fused:|gradient' $1 | cut -c1-420)"
}
eager_fused $OUT/eager_bn_memsets_yoloxs.txt yoloxs batch_norm_memsets
eager_fused $OUT/eager_bn_memsets_yolo9t.txt yolo9t batch_norm_memsets
fits 60 && bench_fused $OUT/fused_bn_memsets_merged_yoloxs.txt yoloxs batch_norm_memsets_merged
fits 60 && bench_fused $OUT/fused_bn_memsets_yoloxs_again.txt yoloxs batch_norm_memsets
fits 50 && e2e_model yolo9t measured measured+batch_norm_memsets_merged
stamp "end"
