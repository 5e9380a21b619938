# Warm, after run35c (export OUT DEADLINE=560; COPIES=8 by default). Two questions in one call:
# 1. The weight gradient's sums spread over COPIES copies (kGradReplicas, 1 in the committed
#    launchers) in YOLOv9-t's step: set in this call's copy of the tree only, rebuilt (one .cu
#    and the link), `bench fused measured+small_convolutions` again; put back to 1 and rebuilt
#    after, so the learning check below runs the committed code.
# 2. small_convolutions' learning check with two more seeds (2 and 3; run35b's 0 and 1 came out
#    lower with it): YOLOv9-t memorisation, 200 epochs, four runs side by side.
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
COPIES=${COPIES:-8}
K=sdk/src/cuda/small_conv3x3_kernels.cu
stamp "start"
sed -i "s/^constexpr int kGradReplicas = 1;/constexpr int kGradReplicas = $COPIES;/" $K
stamp "copies: $(grep -n '^constexpr int kGradReplicas' $K)"
scripts/gpu-build.sh libreyolo-host > $W/build_copies.log 2>&1; stamp "rebuilt rc=$?"
fits 90 && bench_fused $OUT/small_copies_yolo9t.txt yolo9t small_convolutions
sed -i "s/^constexpr int kGradReplicas = $COPIES;/constexpr int kGradReplicas = 1;/" $K
scripts/gpu-build.sh libreyolo-host > $W/build_back.log 2>&1; stamp "rebuilt at one copy rc=$? ($(grep -n '^constexpr int kGradReplicas' $K))"
fits 260 && memorise_pairs yolo9t 200 small_convolutions 2 3
stamp "end"
