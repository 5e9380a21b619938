#!/usr/bin/env python3
"""Which PyTorch operations launch a network's GPU kernels in a training forward + backward
(issue #21: the measured roofline says *which kernels* take the time, e.g. 247 float copies and
572 memsets a YOLOv9-t step; this says which ops issue them). LibreYOLO's own network module (the
reference our C++ network mirrors op for op), training mode (BatchNorm batch statistics),
channels-last, float16 autocast, batch 16, 640 px, the raw outputs' sum as the loss (no
criterion, no optimizer). Prints per op: calls and GPU time per step, the share of the step, and
the op's kernels; largest first.

Needs a CUDA machine and LibreYOLO importable (PYTHONPATH=.reference there). Usage:
  python3 tests/tools/op_attribution.py yolo9 t [--batch 16] [--steps 5] [--top 40]
"""
import argparse
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile


def build(family, size):
    import libreyolo
    classes = {"yolo9": "LibreYOLO9", "yolox": "LibreYOLOX", "rtmdet": "LibreRTMDet"}
    wrapper = getattr(libreyolo, classes[family])(None, size=size, nb_classes=80, device="cuda")
    return wrapper.model.cuda().train().to(memory_format=torch.channels_last)


def tensors_in(value):
    if torch.is_tensor(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)


def training_pass(model, images):
    with torch.autocast("cuda", dtype=torch.float16):
        outputs = model(images)
    loss = sum(t.float().sum() for t in tensors_in(outputs) if t.requires_grad)
    loss.backward()
    model.zero_grad(set_to_none=True)


def kernels_by_op(prof):
    """GPU time and kernel names per innermost ATen op, through the profiler's op tree."""
    time_us, calls, kernels = defaultdict(float), defaultdict(int), defaultdict(set)
    for event in prof.events():
        if event.device_type.name != "CPU" or not event.kernels:
            continue
        # The innermost op that launched kernels itself: its children launched none of these.
        calls[event.name] += 1
        for kernel in event.kernels:
            time_us[event.name] += kernel.duration
            kernels[event.name].add(kernel.name.split("<")[0][:60])
    return time_us, calls, kernels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    model = build(args.family, args.size)
    images = torch.randn(args.batch, 3, 640, 640, device="cuda").to(memory_format=torch.channels_last)
    for _ in range(5):  # cuDNN's algorithm search settles
        training_pass(model, images)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.steps):
            training_pass(model, images)
        torch.cuda.synchronize()
    time_us, calls, kernels = kernels_by_op(prof)
    total = sum(time_us.values())
    print(f"{args.family}-{args.size} batch {args.batch}: {total / args.steps / 1000:.2f} ms of kernels a step "
          f"(forward + backward, float16, channels-last), by the op that launched them:")
    print(f"{'op':44} {'calls/step':>10} {'ms/step':>8} {'share':>6}  kernels")
    for name, us in sorted(time_us.items(), key=lambda item: -item[1])[:args.top]:
        print(f"{name[:44]:44} {calls[name] / args.steps:10.1f} {us / args.steps / 1000:8.3f} {us / total:6.1%}  "
              + ", ".join(sorted(kernels[name]))[:110])


if __name__ == "__main__":
    main()
