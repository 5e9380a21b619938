# Cold (carry .devkit and .reference; export OUT DEADLINE=540): the session's last call. The build at
# the new default (optimizer_step in measured), cuDNN's BatchNorm memsets probe (where they write,
# and what taking them off the chain is worth per call), batch_norm_memsets' unit cases alone, the
# whole ctest, then the step with batch_norm_memsets both ways and end to end.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
prepare_data
build_gpu
cudnn_tool tests/tools/cudnn_bn_memset_probe.cu bn_memset_probe 40
unit_cases '*batch_norm_memsets*,*BatchNorm workspaces*' $OUT/batch_norm_memsets_cases.txt
grep -E "memsets moved|ERROR|CHECK" $OUT/batch_norm_memsets_cases.txt | head -12
whole_ctest 170
fits 60 && bench_fused $OUT/fused_bn_memsets_yolo9t.txt yolo9t batch_norm_memsets
grep -E "memsets clear|batch_norm_memsets" $OUT/fused_bn_memsets_yolo9t.txt | head -3
fits 60 && bench_fused $OUT/fused_bn_memsets_shifted_yolo9t.txt yolo9t batch_norm_memsets_shifted
grep -E "memsets clear" $OUT/fused_bn_memsets_shifted_yolo9t.txt | head -2
fits 60 && bench_fused $OUT/fused_bn_memsets_yoloxs.txt yoloxs batch_norm_memsets
e2e_model yolo9t measured measured+batch_norm_memsets
stamp "end"
