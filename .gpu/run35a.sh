# Cold (carry .devkit and .reference; export OUT DEADLINE=560). The thirty-fifth session: run34c's
# measurements (probe and Nsight Compute beside the build, whole ctest, the small convolutions' and
# aligned channels' cases, bench fused for both small-convolution names, end to end if the step
# gains, the census) on the code with two launches fewer per small convolution (the weight read
# in its stored layout by both passes, the weight gradient cast by its last block).
exec bash .gpu/run34c.sh
