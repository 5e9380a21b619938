# Cold, minimal (carry .devkit and .reference; export OUT DEADLINE=480): after run40a found the
# fused optimizer step refused in YOLOv9-t's step (a 1x1 weight's gradient strides) and its GPU
# case unequal: build, that case with its new diagnostics, then the step in both models' bench
# fused and end to end.
source .gpu/common.sh
DEADLINE=${DEADLINE:-480}
stamp "start"
prepare_data
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?"; grep -E "error" $W/build.log | head -10
stamp "built"
timeout 60 build-gpu/bin/libreyolo_unit_tests -tc='*fused optimizer step*' > $OUT/optimizer_step_case.txt 2>&1
stamp "optimizer step cases rc=$?"
grep -E "logged|elements differ|step [0-9]|test cases|assertions" $OUT/optimizer_step_case.txt | head -40
fits 60 && bench_fused $OUT/fused_optimizer_step_yolo9t.txt yolo9t optimizer_step
grep -E "optimizer step|fused_kernels: this step" $OUT/fused_optimizer_step_yolo9t.txt | head -3
fits 60 && bench_fused $OUT/fused_optimizer_step_yoloxs.txt yoloxs optimizer_step
grep -E "optimizer step|fused_kernels: this step" $OUT/fused_optimizer_step_yoloxs.txt | head -3
e2e_model yolo9t measured measured+optimizer_step
e2e_model yoloxs measured measured+optimizer_step
stamp "end"
