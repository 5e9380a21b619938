# Warm, right after run42a (export OUT DEADLINE=300). run42a: YOLOX-s's gradients with
# batch_norm_memsets now as the default's (median 0), the merged placement YOLOv9-t's step 1.098x.
# So: the merged placement in YOLOX-s's step, and both models end to end with it.
source .gpu/common.sh
DEADLINE=${DEADLINE:-300}
stamp "start"
[ -x $H ] || { prepare_data; build_gpu; }
[ -d $W/coco128x8 ] || prepare_data
bench_fused $OUT/fused_bn_memsets_merged_yoloxs.txt yoloxs batch_norm_memsets_merged
e2e_model yolo9t measured measured+batch_norm_memsets_merged measured measured+batch_norm_memsets_merged
e2e_model yoloxs measured+batch_norm_memsets_merged
stamp "end"
