# For the next session's first call (cold; carry .devkit and .reference; export OUT DEADLINE): the
# cuDNN convolution-fusion probe first (tests/tools/cudnn_conv_fusion_probe.cu: does cuDNN run a
# convolution with BatchNorm + SiLU applied to its input and the next BatchNorm's statistics
# gathered from its output, in one kernel, at the YOLOs' shapes?) and the convolutions' GPU time
# per shape for both YOLOs (tests/tools/pointwise_conv_probe.py), with the whole build and
# ctest between them (sdk/src/batch_norm_silu.cpp changed after run31d). run32b.sh follows, warm.
source .gpu/common.sh
DEADLINE=${DEADLINE:-540}
stamp "start"
fusion_probe
cold_start  # batch_norm_silu.cpp changed after the last whole ctest on a GPU (run31d)
for model in "yolo9 t" "yolox s"; do  # the convolutions' GPU time per shape (1x1s and the ten costliest others)
  fits 90 || break
  timeout 90 python3 tests/tools/pointwise_conv_probe.py $model --batch 16 > "$OUT/convolutions_${model/ /}.txt" 2>&1
  stamp "convolutions $model rc=$?"; grep -vE "^\s+x.*products" "$OUT/convolutions_${model/ /}.txt" | tail -14
done
stamp "end"
