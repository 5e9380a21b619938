# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): after
# the twenty-ninth session found YOLOv9-t training end to end 17% faster with PyTorch's BatchNorm
# (native_batch_norm: 931-943 against 796-806 images/s on an H100) while its synchronised step was
# only 1.008x faster. Builds only the host and the YOLO plugins (the whole ctest ran at run29a;
# run28a.sh for a whole ctest), then, each step only if it fits the DEADLINE:
#   1. tests/tools/graph_launch_probe.cu: does relaunching a running graph block the host, with
#      memset or cooperative kernel nodes, and do two executable copies avoid it?
#   2. bench fused, whose steps now also run back to back: native_batch_norm and
#      alternate_step_graphs (two copies of each step graph in turn) against the default;
#   3. YOLOv9-t end to end with the epoch clock that now waits for the device: the default, both
#      candidates, the default again;
#   4. profile run (unsynchronised steps' host phases) of the default and native_batch_norm;
#   5. LibreYOLO's trainer beside them.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"
grep -E "error" $W/build.log | head -10
nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/graph_launch_probe.cu -o /tmp/graph_probe > $W/probe_build.log 2>&1 \
  && /tmp/graph_probe > $OUT/graph_probe.txt 2>&1; stamp "graph launch probe: $(cat $OUT/graph_probe.txt $W/probe_build.log | tr '\n' ' ' | cut -c1-1200)"
common=$YOLO_COMMON
for candidate in native_batch_norm alternate_step_graphs; do
  fits 60 || break
  bench_fused $OUT/fused_$candidate.txt yolo9t $candidate
done
n=0
for fused in measured measured+native_batch_norm measured+alternate_step_graphs measured; do
  n=$((n + 1)); fits 40 || break
  timeout 40 $H bench train model=yolo9t $common batch=16 epochs=3 eval_interval=3 name=e2e_$n fused_kernels=$fused > $OUT/e2e_$n.log 2>&1
  stamp "ours yolo9t $fused rc=$?: $(grep -E 'bench train:' $OUT/e2e_$n.log | cut -c1-120)"
done
for fused in measured measured+native_batch_norm; do
  n=$((n + 1)); fits 60 || break
  timeout 60 $H profile run $W/coco128x8/data.yaml --model yolo9 --size t --batch 16 workers=16 cache=ram device=0 cuda_graph=true fused_kernels=$fused project=/tmp/runs name=prof_$n > $OUT/profile_$n.log 2>&1
  stamp "profile yolo9t $fused rc=$?: $(grep -E '^  (forward|step time|GPU busy)|^verdict:' $OUT/profile_$n.log | tr -s ' ' | tr '\n' ' ' | cut -c1-400)"
done
fits 90 && lib_trainbench yolo9t yolo9 t
stamp "end"
