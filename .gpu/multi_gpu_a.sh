# Issue #22's first call on a multi-GPU kind (cold; kind nvidia-h100-x2 or larger, carry .devkit and
# .reference; written in the twenty-sixth session, not yet run). Build, the whole cuda ctest (the
# session's: since the twenty-seventh it includes sync_bn on PyTorch's synchronized-BatchNorm
# kernels against torch's BatchNorm, two thread ranks on one GPU, and the buckets' packing
# through NCCL), then the issue's commands: `train model=yolo9s device=0,1 batch=128` spawned by the
# host and through torchrun (one run folder each, rank 0's checkpoint strictly into LibreYOLO's
# model), and the loss against one GPU at the same global batch (20 optimizer steps, no
# augmentation, sync_bn, AMP; the epoch's loss is the run's mean over the ranks). The scaling,
# sync_bn's cost and the failure cases are multi_gpu_b.sh (warm, right after).
source .gpu/common.sh
stamp "start"
nvidia-smi -L | tee $OUT/gpus.txt
cold_start
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x20 20 > /dev/null
c="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs"
timeout 180 $H train model=yolo9s $c device=0,1 batch=128 epochs=2 eval_interval=2 name=spawn > $OUT/spawn.log 2>&1
stamp "spawn rc=$?: $(tail -1 $OUT/spawn.log | cut -c1-250)"; grep -E "distributed|sync_bn|^epoch [0-9]+/2:" $OUT/spawn.log | head -6
python3 tests/python/check_yolo9_checkpoint.py /tmp/runs/spawn/weights/last.pt $R/libreyolo/models/yolo9/nn.py > $OUT/libreyolo_load.txt 2>&1
stamp "rank 0's last.pt into LibreYOLO rc=$?: $(tail -1 $OUT/libreyolo_load.txt | cut -c1-200)"
timeout 180 python3 -m torch.distributed.run --nproc_per_node=2 --no-python $H train model=yolo9s $c batch=128 epochs=2 \
  eval_interval=2 name=torchrun > $OUT/torchrun.log 2>&1
stamp "torchrun rc=$?: $(grep -E '^results in' $OUT/torchrun.log | cut -c1-200)"; ls /tmp/runs | tee $OUT/run_folders.txt
# The loss: 2,560 images at global batch 128 = 20 optimizer steps in one epoch, plain letterbox.
d="data=$W/coco128x20/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs seed=0 batch=128 epochs=1 val=false \
   no_aug_epochs=1 hsv_prob=0 flip_prob=0 sync_bn=true cuda_graph=false"
for gpus in 0 0,1; do
  [ $SECONDS -lt 520 ] || break
  timeout 120 $H train model=yolo9s $d device=$gpus name=loss_${gpus/,/_} > $OUT/loss_${gpus/,/_}.log 2>&1
  stamp "loss device=$gpus rc=$?: $(grep -E '^epoch 1/1: box' $OUT/loss_${gpus/,/_}.log | cut -c1-200)"
done
stamp "end"
