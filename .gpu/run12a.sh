# Call 1 (12th session): cold build, the unit binary's fused cases, the whole ctest.
source .gpu/common.sh
stamp "start $(nvidia-smi --query-gpu=name,memory.used --format=csv,noheader)"
scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log
tail -5 $W/build.log; cp $W/build.log $OUT/build.log
stamp "built"
timeout 60 build-gpu/bin/libreyolo_unit_tests -tc='*fused*,*deformable*' > $OUT/unit_fused.log 2>&1; echo "rc=$?" >> $OUT/unit_fused.log
tail -8 $OUT/unit_fused.log
stamp "unit fused done"
(cd build-gpu && timeout $((585-SECONDS)) ctest -j8 --timeout 180 --output-on-failure > $W/ctest.log 2>&1; echo "ctest rc=$?" >> $W/ctest.log)
tail -30 $W/ctest.log; cp $W/ctest.log $OUT/ctest.log
stamp "ctest done"
