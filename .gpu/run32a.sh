# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# cuDNN convolution-fusion probe first (tests/tools/cudnn_conv_fusion_probe.cu: does cuDNN run a
# convolution with BatchNorm + SiLU applied to its input and the next BatchNorm's statistics
# gathered from its output, in one kernel, at the YOLOs' shapes?) and the convolutions' GPU time
# per shape for both YOLOs (tests/tools/pointwise_conv_probe.py), then only the host and the YOLO
# plugins built, and what the thirty-first session could not fit for batch_norm_silu_large (in the
# default since 2e340c3): YOLOv9-t's memorisation check and YOLOX-s end to end with it and
# without. Add the whole ctest (cold_start) if code changed since the last one that passed.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
inc=$(dirname $(find / -name cudnn.h -not -path "/proc/*" 2>/dev/null | head -1))
lib=$(dirname $(find / -name "libcudnn.so*" -not -path "/proc/*" 2>/dev/null | head -1))
nvcc -O2 -std=c++17 -arch=sm_90 -I$inc -L$lib -Xlinker -rpath=$lib tests/tools/cudnn_conv_fusion_probe.cu -lcudnn \
  -o /tmp/fusion_probe > $OUT/fusion_probe_build.txt 2>&1
timeout 120 /tmp/fusion_probe > $OUT/fusion_probe.txt 2>&1
stamp "fusion probe rc=$? (cudnn.h in $inc, libcudnn in $lib)"; cat $OUT/fusion_probe.txt | head -60
for model in "yolo9 t" "yolox s"; do  # the convolutions' GPU time per shape (1x1s and the ten costliest others)
  timeout 90 python3 tests/tools/pointwise_conv_probe.py $model --batch 16 > "$OUT/convolutions_${model/ /}.txt" 2>&1
  stamp "convolutions $model rc=$?"; grep -vE "^\s+x.*products" "$OUT/convolutions_${model/ /}.txt" | tail -14
done
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"
fits 150 && memorise_yolo9t
# The default before batch_norm_silu_large joined it (its other kernels, named one by one).
OLD=avg_pool_2x2+max_pool_same+weight_casts+task_aligned_metric+task_aligned_selection+simota_cost+simota_selection+weight_grad_stream+block_tails+dense_slices+box_dfl_loss+class_bce+half_upsample
e2e_model yoloxs measured $OLD measured
stamp "end"
