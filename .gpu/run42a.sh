# Cold (carry .devkit and .reference; export OUT DEADLINE=540): batch_norm_memsets' open questions.
# The rewritten capture case (run41d's first version compared replays with eager steps, which part
# for its float16 network even without the option), the whole ctest, then which of YOLOX-s's
# BatchNorm calls PyTorch does not give cuDNN (op_callers: native against cuDNN BatchNorm, the
# default, eager) - the likeliest reason its gradients with batch_norm_memsets differed beyond
# noise - and YOLOX-s's and YOLOv9-t's step with it again, and YOLOv9-t's with the memsets merged
# into one kernel node (batch_norm_memsets_merged, built after run41d).
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
prepare_data
build_gpu
unit_cases '*batch_norm_memsets*' $OUT/batch_norm_memsets_case.txt
grep -E "MESSAGE|ERROR|values" $OUT/batch_norm_memsets_case.txt | head -12
whole_ctest 170
for op in native_batch_norm cudnn_batch_norm; do
  fits 45 || break
  timeout 45 $H bench step model=yoloxs $YOLO_COMMON batch=16 steps=5 warmup=3 op_callers=aten::$op > $OUT/bn_calls_$op.txt 2>&1
  stamp "op_callers $op rc=$?"; grep -A12 "who calls" $OUT/bn_calls_$op.txt | cut -c1-220
done
fits 60 && bench_fused $OUT/fused_bn_memsets_yoloxs.txt yoloxs batch_norm_memsets
fits 60 && bench_fused $OUT/fused_bn_memsets_yolo9t.txt yolo9t batch_norm_memsets
fits 60 && bench_fused $OUT/fused_bn_memsets_merged_yolo9t.txt yolo9t batch_norm_memsets_merged
grep -E "memsets clear|zero-span" $OUT/fused_bn_memsets_merged_yolo9t.txt | head -2
e2e_model yoloxs measured measured+batch_norm_memsets
stamp "end"
