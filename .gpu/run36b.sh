# Cold, lean (carry .devkit and .reference; export OUT DEADLINE=430): run35c without its end-to-end
# pair, for a session whose device starts were refused for an hour. The small convolutions' probe
# and Nsight Compute beside the build (the probe's timed runs queue behind a kernel that holds the
# stream, so the build's CPU load no longer sets them), the whole ctest, and
# measured+small_convolutions in YOLOv9-t's step: the kernels as the thirty-fifth session left
# them, not yet run (forward without the band walk, the weight gradient's last block loading
# before it stores, the sweep's one or eight copies of the weight gradient's sums).
source .gpu/common.sh
DEADLINE=${DEADLINE:-430}
stamp "start"
(small_conv_probe 20 > $W/probe_summary.txt 2>&1; ncu_small_conv > $W/ncu_summary.txt 2>&1) &
cold_start
wait; head -40 $OUT/small_conv_probe.txt; head -40 $W/ncu_summary.txt
fits 60 && bench_fused $OUT/small_yolo9t.txt yolo9t small_convolutions
stamp "end"
