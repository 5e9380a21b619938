# Issue #22's second call (warm, right after multi_gpu_a.sh; export OUT DEADLINE=565): the same
# training through torchrun (one run folder), the loss after 20 optimizer steps on one GPU against
# two at the same global batch (no augmentation, sync_bn, AMP; the epoch's loss is the run's mean
# over the ranks), and sync_bn's cost (two GPUs, on and off). Not yet run.
source .gpu/common.sh
DEADLINE=${DEADLINE:-565}
stamp "start"
[ -f $W/coco128x8/data.yaml ] || prepare_data
[ -x $H ] || { scripts/gpu-build.sh libreyolo-host libreyolo_family_yolo9 libreyolo_family_yolox > $W/build.log 2>&1; stamp "built rc=$?"; }
bash scripts/make-repeated-dataset.sh $W/coco128 $W/coco128x20 20 > /dev/null
c="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs"
fits 100 && {
  timeout 180 python3 -m torch.distributed.run --nproc_per_node=2 --no-python $H train model=yolo9s $c batch=128 epochs=2 \
    eval_interval=2 name=torchrun > $OUT/torchrun.log 2>&1
  stamp "torchrun rc=$?: $(grep -E '^results in' $OUT/torchrun.log | cut -c1-200)"; ls /tmp/runs | tee $OUT/run_folders.txt
}
# The loss: 2,560 images at global batch 128 = 20 optimizer steps in one epoch, plain letterbox.
d="data=$W/coco128x20/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs seed=0 batch=128 epochs=1 val=false \
   no_aug_epochs=1 hsv_prob=0 flip_prob=0 sync_bn=true cuda_graph=false"
for gpus in 0 0,1; do
  fits 70 || break
  timeout 120 $H train model=yolo9s $d device=$gpus name=loss_${gpus/,/_} > $OUT/loss_${gpus/,/_}.log 2>&1
  stamp "loss device=$gpus rc=$?: $(grep -E '^epoch 1/1: box' $OUT/loss_${gpus/,/_}.log | cut -c1-200)"
done
v="data=$W/coco128x8/data.yaml imgsz=640 workers=8 cache=ram project=/tmp/runs val=false"
for sync in true false; do
  fits 60 || break
  timeout 90 $H bench train model=yolo9s $v epochs=3 device=0,1 batch=128 sync_bn=$sync name=sync_$sync > $W/s.log 2>&1
  stamp "sync_bn=$sync: $(grep -E '^bench train:' $W/s.log | cut -c1-120)"
done
stamp "end"
