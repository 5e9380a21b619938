# Cold (carry .devkit and .reference; export OUT DEADLINE=550): batch_norm_memsets_merged is in the
# default, and region graphs (RTMDet, the DETRs) now take the memsets off their chains too. The
# whole cuda ctest (the new region case among them), then for the region families the default
# against the default without it (bench fused fused_kernels=measured-batch_norm_memsets_merged:
# "speedup" below 1 means the default is faster), YOLOv9-t end to end with the default, and its
# batch-8 step (#21's fastest-step-within-1.03x-of-GPU-busy target).
source .gpu/common.sh
DEADLINE=${DEADLINE:-550}
stamp "start"
prepare_data
build_gpu
unit_cases '*batch_norm_memsets*' $OUT/batch_norm_memsets_case.txt
whole_ctest 170
without_memsets() {  # MODEL: bench fused, the default against the default without batch_norm_memsets_merged
  timeout 60 $H bench fused model=$1 $YOLO_COMMON batch=16 steps=20 warmup=10 fused_kernels=measured-batch_norm_memsets_merged > $OUT/without_memsets_$1.txt 2>&1
  stamp "without memsets $1 rc=$?: $(grep -E 'speedup|composed:|fused:' $OUT/without_memsets_$1.txt | cut -c1-330)"
  grep -E "memsets clear|zero-span" $OUT/without_memsets_$1.txt | head -4
}
fits 60 && without_memsets rtmdets
fits 45 && e2e_model yolo9t measured
fits 60 && without_memsets rtdetrr18
fits 60 && without_memsets dfinen
fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=8 steps=30 warmup=10 > $OUT/step_b8.txt 2>&1; stamp "batch 8 rc=$?: $(grep -E 'fastest|GPU busy' $OUT/step_b8.txt | cut -c1-400)"; }
stamp "end"
