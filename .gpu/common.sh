# Sourced by the call scripts: paths and helpers on the GPU machine.
set -u
ROOT=$PWD
R=$ROOT/.reference
H=$ROOT/build-gpu/bin/libreyolo-host
export PYTHONPATH=$R PYTHONUNBUFFERED=1
W=/tmp/work; mkdir -p $W /tmp/runs /tmp/lib
stamp() { echo "[$(date +%T) t=${SECONDS}s] $*" | tee -a $OUT/timeline.txt; }
self_yaml() {  # COCO128's train images as both splits (the learning comparisons' setting)
  cat > $W/coco128_self.yaml <<Y
path: $R/coco128
train: images/train2017
val: images/train2017
$(sed -n '/^names:/,$p' $R/coco128/data.yaml)
Y
}
lib_train() {  # NAME FAMILY SIZE [k=v...]: LibreYOLO's trainer, detached, log in /tmp/lib/NAME.log
  local name=$1; shift
  mkdir -p /tmp/lib/$name
  setsid nohup python3 tests/python/libreyolo_no_download.py tests/python/libreyolo_reference_train.py \
    /tmp/lib/$name "$1" "$2" $R/coco128 "${@:3}" > /tmp/lib/$name.log 2>&1 < /dev/null &
  echo $! > /tmp/lib/$name.pid
}
our_train() {  # NAME [k=v...]: our trainer, detached, log in /tmp/runs/NAME.log
  local name=$1; shift
  setsid nohup $H train project=/tmp/runs name=$name "$@" > /tmp/runs/$name.log 2>&1 < /dev/null &
  echo $! > /tmp/runs/$name.pid
}
lib_trainbench() {  # OURS FAMILY SIZE: LibreYOLO's trainer, 2 epochs at batch 16 (its second timed), stamped
  local ours=$1 family=$2 size=$3
  rm -rf /tmp/anchor_ds  # a folder a previous LibreYOLO run leaves, which stops the next one
  (cd $W && COCO128=$W/coco128 EPOCHS=2 WORKERS=16 timeout 100 python3 $ROOT/tests/python/libreyolo_no_download.py $R/libreyolo_trainbench.py $W/lib_$ours $family:$size:16 > $W/lib_$ours.log 2>&1)
  stamp "LibreYOLO $ours: $(tail -1 $W/lib_$ours.log | cut -c1-300)"; cat $W/lib_$ours.log >> $OUT/reference.log
}
alive() { [ -f "$1" ] && kill -0 "$(cat $1)" 2>/dev/null; }
prepare_data() {  # COCO128 (val -> train: .reference drops val2017 for size) and its x8 repeat
  rm -rf $W/coco128; cp -r $R/coco128 $W/coco128
  ln -sfn train2017 $W/coco128/images/val2017; ln -sfn train2017 $W/coco128/labels/val2017
  bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x8 8 > /dev/null
}
cold_start() {  # the data; build; whole ctest
  prepare_data
  scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log; tail -1 $W/build.log
  cp build-gpu/.ninja_log $OUT/ninja_log.txt 2>/dev/null
  grep -E "error|invalid-pch" $W/build.log | head -20
  stamp "built"
  (cd build-gpu && timeout 150 ctest -j8 --timeout 140 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
  grep -E "tests passed|tests failed|ctest rc|Failed|ERROR|values:" $OUT/ctest.log | head -20
  stamp "ctest done"
}
build_gpu() {  # the build alone (no ctest), stamped; ninja's log of step times comes back (where the build's minutes go)
  scripts/gpu-build.sh > $W/build.log 2>&1; echo "build rc=$?"; grep -E "error" $W/build.log | head -10
  cp build-gpu/.ninja_log $OUT/ninja_log.txt 2>/dev/null
  stamp "built"
}
unit_cases() {  # PATTERN FILE: the unit binary's cases matching PATTERN alone (60 s at most), their failures summarised
  timeout 60 build-gpu/bin/libreyolo_unit_tests -tc="$1" > $2 2>&1
  stamp "unit cases $1 rc=$?"
  grep -E "logged|elements differ|test cases|assertions" $2 | head -20
}
whole_ctest() {  # SECONDS: the whole cuda ctest in at most SECONDS, summarised
  (cd build-gpu && timeout $1 ctest -j8 --timeout $(($1 - 10)) --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
  grep -E "tests passed|tests failed|ctest rc|Failed|\[doctest\] test cases" $OUT/ctest.log | head -12
  stamp "ctest done"
}
fits() { [ $((SECONDS + $1)) -lt ${DEADLINE:-560} ]; }  # SECONDS: will a step of $1 s end before the call's DEADLINE?
YOLO_COMMON="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=true"
bench_fused() {  # OUTFILE MODEL CANDIDATES: bench fused measured+CANDIDATES at batch 16 (60 s at most), stamped
  local file=$1 model=$2 candidates=$3
  timeout 60 $H bench fused model=$model $YOLO_COMMON batch=16 steps=30 warmup=10 fused_kernels=measured+$candidates > $file 2>&1
  stamp "fused $candidates $model rc=$?: $(grep -E 'speedup|composed:|fused:' $file | cut -c1-420)"
}
EAGER_COMMON="data=$W/coco128x8/data.yaml imgsz=640 workers=16 cache=ram device=0 project=/tmp/runs cuda_graph=false"
eager_fused() {  # MODEL CANDIDATES: bench fused measured+CANDIDATES with eager steps (the train default), 45 s at most, stamped
  local model=$1 candidates=$2 file=$OUT/eager_${2//+/_}_$1.txt
  timeout 45 $H bench fused model=$model $EAGER_COMMON batch=16 steps=20 warmup=5 fused_kernels=measured+$candidates > $file 2>&1
  stamp "eager $candidates $model rc=$?: $(grep -E 'speedup|composed:|fused:' $file | cut -c1-330)"
}
bn_check() {  # batch_norm_silu_check (per-layer times, GPU share alone) into $OUT/bn_check.txt, summarised
  timeout 60 build-gpu/bin/batch_norm_silu_check > $OUT/bn_check.txt 2>&1
  stamp "batch_norm_silu_check rc=$?"; grep -E "^16x|runs" $OUT/bn_check.txt | sed 's/; relative differences.*(ok)/ ok/' | cut -c1-200
}
step_yolo9t() {  # BATCH: YOLOv9-t's captured default step (40 s at most), stamped
  fits 40 && { timeout 40 $H bench step model=yolo9t $YOLO_COMMON batch=$1 steps=30 warmup=10 > $OUT/step_b$1.txt 2>&1; stamp "batch $1 rc=$?: $(grep -E 'fastest|GPU busy|host' $OUT/step_b$1.txt | cut -c1-300)"; }
}
eager_ab_yoloxs() {  # YOLOX-s's eager step with the default (eager_optimizer_step in it) against without, one process (50 s at most), stamped
  fits 50 && { timeout 50 $H bench fused model=yoloxs $EAGER_COMMON batch=16 steps=8 warmup=3 fused_kernels=measured-eager_optimizer_step > $OUT/x_eager_step.txt 2>&1; stamp "yoloxs eager measured (with) vs measured-eager_optimizer_step rc=$?: $(grep -E 'composed:|fused: |speedup' $OUT/x_eager_step.txt | cut -c1-330)"; }
}
e2e_yolo9t() { e2e_model yolo9t "$@"; }  # SETTINGS...: YOLOv9-t end to end once per fused_kernels setting
memorise_yolo9t() {  # [k=v...]: YOLOv9-t memorisation (COCO128's train images as both splits, augmentation off, 200 epochs), stamped
  ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
  self_yaml
  timeout 150 $H train model=yolo9t data=$W/coco128_self.yaml imgsz=640 batch=16 workers=16 cache=ram device=0 seed=0 \
    cuda_graph=true project=/tmp/runs epochs=200 eval_interval=20 no_aug_epochs=200 hsv_prob=0 flip_prob=0 name=memorise "$@" > $W/m.log 2>&1
  stamp "memorisation rc=$?: $(grep -E 'mAP50' $W/m.log | tail -2 | tr '\n' ' ' | cut -c1-300)"
  cp $W/m.log $OUT/memorise.log
}
e2e_model() {  # MODEL SETTINGS...: end to end (bench train, 3 epochs) once per fused_kernels setting, stamped
  local model=$1 n=0 fused; shift
  for fused in "$@"; do
    n=$((n + 1)); fits 45 || break
    timeout 45 $H bench train model=$model $YOLO_COMMON batch=16 epochs=3 eval_interval=3 name=${model}_$n fused_kernels=$fused > $OUT/${model}_$n.log 2>&1
    stamp "ours $model $fused rc=$?: $(grep -E 'bench train:' $OUT/${model}_$n.log | cut -c1-160)"
  done
}
cudnn_tool() {  # SOURCE NAME [LINES]: a stand-alone probe built against the machine's cuDNN and run (90 s at most), stamped
  local source=$1 name=$2 inc so lib
  inc=$(dirname $(find /usr /opt -name cudnn.h 2>/dev/null | head -1))
  so=$(find /usr /opt -name "libcudnn.so*" 2>/dev/null | grep -E "/libcudnn\.so(\.[0-9]+)?$" | head -1)  # a wheel ships only libcudnn.so.9
  lib=$(dirname $so)
  nvcc -O3 -std=c++17 -arch=sm_90 -I$inc -L$lib -Xlinker -rpath=$lib $source -l:$(basename $so) \
    -o /tmp/$name > $OUT/${name}_build.txt 2>&1
  # cuDNN's runtime-fusion engines compile with NVRTC at run time: where is it, can the loader find it?
  local nvrtc=$(find /usr /opt -name "libnvrtc.so*" 2>/dev/null | head -3 | tr '\n' ' ')
  [ -n "$nvrtc" ] && export LD_LIBRARY_PATH=$(dirname ${nvrtc%% *})${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG=$W/${name}_cudnn_log.txt timeout 90 /tmp/$name > $OUT/$name.txt 2>&1
  stamp "$name rc=$? (cudnn.h in $inc, $so; NVRTC: ${nvrtc:-none found})"; grep -E "error" $OUT/${name}_build.txt | head -5
  head -${3:-60} $OUT/$name.txt
  head -c 3000000 $W/${name}_cudnn_log.txt > $OUT/${name}_cudnn_log.txt 2>/dev/null  # cuDNN's warnings and errors
}
graph_probe() {  # tests/tools/graph_launch_probe.cu: a graph launch's host time by the graph's shape (30 s at most), stamped
  nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/graph_launch_probe.cu -o /tmp/graph_probe > $OUT/graph_probe_build.txt 2>&1
  timeout 30 /tmp/graph_probe > $OUT/graph_probe.txt 2>&1
  stamp "graph_probe rc=$?"; cat $OUT/graph_probe.txt
}
fill_check() {  # tests/tools/fill_node_check.cu: memset_kernel_nodes' fill kernel against the driver's memsets (30 s at most), stamped
  nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/fill_node_check.cu -lcuda -o /tmp/fill_check > $OUT/fill_check_build.txt 2>&1
  timeout 30 /tmp/fill_check > $OUT/fill_check.txt 2>&1
  stamp "fill_check rc=$?: $(tail -1 $OUT/fill_check.txt)"; head -5 $OUT/fill_check.txt
}
fusion_probe() { cudnn_tool tests/tools/cudnn_conv_fusion_probe.cu fusion_probe "$@"; }
small_conv_probe() { cudnn_tool tests/tools/small_conv_probe.cu small_conv_probe "$@"; }
ncu_small_conv() {  # after small_conv_probe: Nsight Compute on our two kernels' first launches at three shapes (speed of light, occupancy, warp states), 120 s at most
  local ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1) kernel
  if [ -z "$ncu" ]; then stamp "ncu: not on this machine"; return; fi
  : > $OUT/ncu_small_conv.txt
  local shape
  for shape in 16x80 24x40 32x20; do  # the probe's shapes by name: one ahead of cuDNN, two behind
    for kernel in conv3x3_forward conv3x3_weight_grad; do  # each its own count: a shared one went to the forwards only
      timeout 20 $ncu --kernel-name regex:"$kernel" --launch-count 2 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats /tmp/small_conv_probe $shape >> $OUT/ncu_small_conv.txt 2>&1
      stamp "ncu $shape $kernel rc=$?"
    done
  done
  grep -E "conv3x3_|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Warp Cycles Per Issued|Stall|ERR_" $OUT/ncu_small_conv.txt | cut -c1-160 | head -40
}
wait_runs() {  # until every run started by our_train (/tmp/runs/*.pid) has ended, or the DEADLINE nears
  local n f
  while fits 5; do
    n=0; for f in /tmp/runs/*.pid; do alive $f && n=$((n+1)); done
    [ $n -eq 0 ] && break; sleep 1
  done
}
memorisation_report() {  # RUN...: each run's mAP50 and mAP50-95 at every validation, stamped; its log to $OUT
  local run
  for run in "$@"; do
    stamp "$run: $(grep -E '^epoch .*mAP50' /tmp/runs/$run.log | sed -E 's/^epoch ([0-9]+)\/.*mAP50 ([0-9.]+) mAP50-95 ([0-9.]+).*/\1: \2 \3/' | tr '\n' ' ')"
    cp /tmp/runs/$run.log $OUT/memorise_$run.log
  done
}
memorise_runs() {  # MODEL EPOCHS PLAIN_FUSED NAME NAME_FUSED SEED...: memorisation pairs per seed (plain_S with PLAIN_FUSED, NAME_S with NAME_FUSED), all side by side (workers=4 each), reported
  local model=$1 epochs=$2 plain=$3 name=$4 fused=$5 seed runs=(); shift 5
  ln -sfn train2017 $R/coco128/images/val2017; ln -sfn train2017 $R/coco128/labels/val2017
  self_yaml
  local c="data=$W/coco128_self.yaml imgsz=640 batch=16 workers=4 cache=ram device=0 epochs=$epochs eval_interval=$((epochs / 10)) no_aug_epochs=$epochs hsv_prob=0 flip_prob=0 cuda_graph=true"
  rm -f /tmp/runs/*.pid
  for seed in "$@"; do
    our_train plain_$seed model=$model $c seed=$seed fused_kernels=$plain
    our_train ${name}_$seed model=$model $c seed=$seed fused_kernels=$fused
    runs+=(plain_$seed ${name}_$seed)
  done
  wait_runs
  memorisation_report "${runs[@]}"
}
memorise_pairs() { local m=$1 e=$2 k=$3; shift 3; memorise_runs $m $e measured $k measured+$k "$@"; }  # MODEL EPOCHS CANDIDATE SEED...: with and without measured+CANDIDATE
memorise_yoloxs_pairs() { memorise_pairs yoloxs "$@"; }  # EPOCHS CANDIDATE SEED...
memorise_without() { local m=$1 e=$2 k=$3; shift 3; memorise_runs $m $e measured-$k $k measured "$@"; }  # MODEL EPOCHS KERNEL SEED...: a kernel already in the default (plain = measured-KERNEL)
census() {  # FAMILY SIZE FUSED: the captured step's kernels by name and the roofline's classes (profile run, 60 s at most), stamped
  local family=$1 size=$2 fused=$3 f
  timeout 60 $H profile run $W/coco128x8/data.yaml --model $family --size $size --batch 16 workers=16 cache=ram device=0 cuda_graph=true fused_kernels=$fused project=/tmp/runs name=census_$family$size > $W/prof.log 2>&1
  stamp "profile $family$size $fused rc=$? $(tail -2 $W/prof.log | cut -c1-300)"
  f=$(find /tmp/runs/census_$family$size* -name profile.json | head -1)
  [ -n "$f" ] || return 0
  gzip -c "$f" > $OUT/profile_$family$size.json.gz
  [ -n "${CENSUS_TRACE:-}" ] && gzip -c "$(dirname $f)/profile_trace.json" > $OUT/trace_$family$size.json.gz  # every event, in order (what each memset precedes)
  $H profile kernels "$f" --top 200 > $OUT/kernels_$family$size.txt 2>&1
  timeout 60 python3 tests/tools/roofline.py --libreyolo $R/libreyolo --family $family --size $size --profile "$f" --markdown > $OUT/roofline_$family$size.md 2>&1
  tail -14 $OUT/roofline_$family$size.md
}
