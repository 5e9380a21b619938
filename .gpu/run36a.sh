# Warm, after run36b (export OUT DEADLINE=540; COPIES=8 by default). Two questions in one call:
# 1. small_convolutions' learning check with two more seeds (2 and 3; run35b's 0 and 1 came out
#    lower with it): YOLOv9-t memorisation, 200 epochs, four runs side by side, the committed code.
#    tests/tools/learning_pairs.py then reads this call's logs beside run35b's.
# 2. Then, if the call has time: the weight gradient's sums spread over COPIES copies
#    (kGradReplicas, 1 in the committed launchers) in YOLOv9-t's step, set in this call's copy of
#    the tree only, rebuilt (one .cu and the link), `bench fused measured+small_convolutions`.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
COPIES=${COPIES:-8}
K=sdk/src/cuda/small_conv3x3_kernels.cu
stamp "start"
memorise_pairs yolo9t 200 small_convolutions 2 3
if fits 150; then
  sed -i "s/^constexpr int kGradReplicas = 1;/constexpr int kGradReplicas = $COPIES;/" $K
  stamp "copies: $(grep -n '^constexpr int kGradReplicas' $K)"
  scripts/gpu-build.sh libreyolo-host > $W/build_copies.log 2>&1; stamp "rebuilt rc=$?"
  fits 65 && bench_fused $OUT/small_copies_yolo9t.txt yolo9t small_convolutions
fi
stamp "end"
