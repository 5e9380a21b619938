# Second call of the thirty-second session (warm after run32a.sh; builds what is missing if not):
# what the thirty-first session could not fit for batch_norm_silu_large (in the default since
# 2e340c3): YOLOv9-t's memorisation check, and YOLOX-s end to end with it and without.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
[ -d $W/coco128x8 ] || prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"
fits 150 && memorise_yolo9t
# The default before batch_norm_silu_large joined it (its other kernels, named one by one).
OLD=avg_pool_2x2+max_pool_same+weight_casts+task_aligned_metric+task_aligned_selection+simota_cost+simota_selection+weight_grad_stream+block_tails+dense_slices+box_dfl_loss+class_bce+half_upsample
e2e_model yoloxs measured $OLD measured $OLD
stamp "end"
