# Warm, right after run41a (export OUT DEADLINE=...): cuDNN's two training BatchNorm modes inside a
# graph at YOLOv9-t's shapes (tests/tools/cudnn_bn_mode_probe.cu: does SPATIAL avoid the memset
# before every call, and at what cost?) and in YOLOv9-t's step (cudnn_spatial_batch_norm; its GPU
# unit cases ran in run41a's ctest), YOLOv9-t's census with the fused optimizer step, then
# prediction_rows' learning check (memorisation pairs, seeds 0 and 1) as far as the deadline allows.
source .gpu/common.sh
DEADLINE=${DEADLINE:-480}
stamp "start"
prepare_data
cudnn_tool tests/tools/cudnn_bn_mode_probe.cu bn_mode_probe 20
fits 60 && bench_fused $OUT/fused_spatial_bn_yolo9t.txt yolo9t cudnn_spatial_batch_norm
fits 70 && census yolo9 t measured+optimizer_step
grep -E "update_kernel|check_kernel|finish_kernel|multi_tensor|fused_sgd|_amp_" $OUT/kernels_yolo9t.txt 2>/dev/null | cut -c1-160
memorise_pairs yolo9t 200 prediction_rows 0 1
stamp "end"
