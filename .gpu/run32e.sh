# The thirty-second session's last call (cold, about 290 device seconds left; carry .devkit and
# .reference; export OUT DEADLINE): only the host and the YOLOX plugin built, then
# aligned_channels (YOLOX's Focus input widened to sixteen channels) in YOLOX-s's step against the
# default, if the build leaves time. No ctest (no time for the test binary's build).
source .gpu/common.sh
DEADLINE=${DEADLINE:-240}
stamp "start"
prepare_data
scripts/gpu-build.sh libreyolo-host libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"; tail -1 $W/build.log
grep -E "error" $W/build.log | head -5
fits 60 && bench_fused $OUT/aligned_yoloxs.txt yoloxs aligned_channels
grep -iE "aligned|refus|error" $OUT/aligned_yoloxs.txt | head -5
stamp "end"
