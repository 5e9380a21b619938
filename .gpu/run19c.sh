# Nineteenth session, second call (no build of the project): issue #21's probe of cuDNN's
# BatchNorm + SWISH (SiLU) in one call each way (tests/tools/cudnn_bn_swish_probe.cu).
source .gpu/common.sh
stamp "start"
inc=$(dirname $(find / -name cudnn.h -not -path "/proc/*" 2>/dev/null | head -1))
lib=$(dirname $(find / -name "libcudnn.so*" -not -path "/proc/*" 2>/dev/null | head -1))
echo "cudnn.h in $inc, libcudnn in $lib" >> $OUT/timeline.txt
nvcc -O2 -std=c++17 -arch=sm_90 -I$inc -L$lib -Xlinker -rpath=$lib tests/tools/cudnn_bn_swish_probe.cu -lcudnn -o /tmp/probe 2>&1 | grep -v -i deprecat | head -20 > $OUT/probe_build.txt
timeout 120 /tmp/probe > $OUT/probe.txt 2>&1
stamp "probe rc=$?"
