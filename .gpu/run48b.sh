# Warm after .gpu/run47d.sh or run48a.sh (export OUT DEADLINE=...): if memset_kernel_nodes (with the fix of
# b2d0ce6) and batch_norm_memsets_leading held in YOLOv9-t's step, the end-to-end pairs they need
# before joining `measured` (YOLOv9-t twice each way, alternating), YOLOX-s's step and end to end, and YOLOv9-t's batch-8 step each way.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "run48b on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
[ -f $W/coco128x8/data.yaml ] || prepare_data
CANDIDATE=measured+batch_norm_memsets_leading+memset_kernel_nodes
e2e_model yolo9t measured $CANDIDATE measured $CANDIDATE
fits 45 && bench_fused $OUT/leading_kernel_nodes_yoloxs.txt yoloxs batch_norm_memsets_leading+memset_kernel_nodes
e2e_model yoloxs measured $CANDIDATE
for k in measured $CANDIDATE; do  # batch 8 (#21: fastest within 1.03x of GPU busy)
  fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=8 steps=30 warmup=10 fused_kernels=$k > $OUT/step_b8_${k//+/_}.txt 2>&1; stamp "batch 8 $k rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b8_${k//+/_}.txt | cut -c1-300)"; }
done
fits 35 && { [ -x /tmp/graph_probe ] || graph_probe; }  # if run48a did not reach it
stamp "end"
