# Cold (carry .devkit and .reference; export OUT DEADLINE=560). The small convolutions' probe and
# Nsight Compute beside the build again: the probe's timed runs now queue behind a kernel that
# holds the stream, so the build's CPU load (which made run35a's per-call times, means of
# back-to-back launches of 6-27 us kernels, incomparable) no longer sets them. Then the whole
# ctest, and small_convolutions in YOLOv9-t's step, end to end if the step gains. The kernels as
# the thirty-fifth session left them, not yet run: the forward without the band walk (run35a's
# 16-channel forward took 16 us in Nsight Compute against 10.1 the session before), the weight
# gradient's last block loading before it stores, and the sweep's copies of the weight gradient's
# sums (1 or 8; if 8 wins at YOLOv9-t's shapes, kGradReplicas is the lever to try in the step).
source .gpu/common.sh
DEADLINE=${DEADLINE:-560}
stamp "start"
(small_conv_probe 20 > $W/probe_summary.txt 2>&1; ncu_small_conv > $W/ncu_summary.txt 2>&1) &
cold_start
wait; head -40 $OUT/small_conv_probe.txt; cat $W/ncu_summary.txt | head -40
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
if grep -qE "speedup 1\.0[0-9]*[1-9]" $OUT/small_yolo9t.txt 2>/dev/null; then
  e2e_yolo9t measured measured+small_convolutions measured measured+small_convolutions
fi
stamp "end"
