# Issue #22's first call on a multi-GPU kind (cold; kind nvidia-h100-x2 or larger, carry .devkit and
# .reference; export OUT DEADLINE=565). Written in the twenty-sixth session, split in three in the
# forty-sixth (the build, the ctest and the commands do not fit one 600 s call); not yet run.
# Here: the build, `train model=yolo9s device=0,1 batch=128` spawned by the host (one run folder,
# rank 0's checkpoint loaded strictly into LibreYOLO's model), then the whole cuda ctest in what the
# deadline leaves (on two GPUs ddp_train_end_to_end runs instead of skipping; sync_bn against
# torch's BatchNorm and the buckets through NCCL are among the unit cases). multi_gpu_b.sh (warm,
# right after): torchrun, the loss against one GPU, sync_bn's cost. multi_gpu_c.sh: the scaling,
# the all-reduce's overlap, a killed and a stopped rank.
source .gpu/common.sh
DEADLINE=${DEADLINE:-565}
stamp "start"
nvidia-smi -L | tee $OUT/gpus.txt
prepare_data
build_gpu
c="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs"
fits 120 && {
  timeout 180 $H train model=yolo9s $c device=0,1 batch=128 epochs=2 eval_interval=2 name=spawn > $OUT/spawn.log 2>&1
  stamp "spawn rc=$?: $(tail -1 $OUT/spawn.log | cut -c1-250)"; grep -E "distributed|sync_bn|^epoch [0-9]+/2:" $OUT/spawn.log | head -6
  python3 tests/python/check_yolo9_checkpoint.py /tmp/runs/spawn/weights/last.pt $R/libreyolo/models/yolo9/nn.py > $OUT/libreyolo_load.txt 2>&1
  stamp "rank 0's last.pt into LibreYOLO rc=$?: $(tail -1 $OUT/libreyolo_load.txt | cut -c1-200)"
}
left=$((DEADLINE - SECONDS)); [ $left -gt 115 ] && left=115
[ $left -gt 30 ] && whole_ctest $left
stamp "end"
