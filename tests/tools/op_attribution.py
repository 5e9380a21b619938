#!/usr/bin/env python3
"""Which PyTorch operations launch a network's GPU kernels in a training forward + backward
(issue #21: the measured roofline says *which kernels* take the time, e.g. 247 float copies and
572 memsets a YOLOv9-t step; this says which ops issue them). LibreYOLO's own network module (the
reference our C++ network mirrors op for op), training mode (BatchNorm batch statistics),
channels-last, float16 autocast, batch 16, 640 px, the raw outputs' sum as the loss (no
criterion, no optimizer). Prints per op: calls and GPU time per step, the share of the step, and
the op's kernels; largest first.

With --callers OP (e.g. aten::copy_), also where that op's kernels come from: per chain of
calling ops (the autograd node for the backward, e.g. ConvolutionBackward0 > aten::contiguous),
calls and GPU time a step and the first input's shape: a layout copy made by a
convolution of a channel slice shows as cudnn_convolution > contiguous > copy_.

Needs a CUDA machine and LibreYOLO importable (PYTHONPATH=.reference there). Usage:
  python3 tests/tools/op_attribution.py yolo9 t [--batch 16] [--steps 5] [--top 40] [--callers aten::copy_]
      [--kernel Memset]
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


def caller_chain(event, depth=4):
    names, parent = [], event.cpu_parent
    while parent is not None and len(names) < depth:
        names.append(parent.name.replace("autograd::engine::evaluate_function: ", ""))
        parent = parent.cpu_parent
    return " > ".join(reversed(names))


def callers_of(prof, op, steps, top, kernel_part=None):
    """GPU time a step of `op`'s kernels (or, with kernel_part, of any op's kernels whose name
    holds it, e.g. Memset) per chain of callers and first input's shape."""
    time_us, calls = defaultdict(float), defaultdict(int)
    for event in prof.events():
        if event.device_type.name != "CPU" or not event.kernels:
            continue
        kernels = [k for k in event.kernels if kernel_part is None or kernel_part in k.name]
        if not kernels or (kernel_part is None and event.name != op):
            continue
        layout = ""
        if event.input_shapes and event.input_shapes[0]:
            layout = f" {list(event.input_shapes[0])}"
        key = caller_chain(event) + " > " + event.name + layout
        calls[key] += len(kernels)
        time_us[key] += sum(kernel.duration for kernel in kernels)
    print(f"\n{kernel_part or op}: by caller chain (kernels/step, ms/step), largest first")
    for key, us in sorted(time_us.items(), key=lambda item: -item[1])[:top]:
        print(f"{calls[key] / steps:6.1f} {us / steps / 1000:7.3f}  {key[:200]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--callers", action="append", default=[], help="an op to trace to its callers")
    parser.add_argument("--kernel", action="append", default=[], help="a kernel name part (Memset) to trace")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    model = build(args.family, args.size)
    images = torch.randn(args.batch, 3, 640, 640, device="cuda").to(memory_format=torch.channels_last)
    for _ in range(5):  # cuDNN's algorithm search settles
        training_pass(model, images)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=bool(args.callers or args.kernel)) as prof:
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
    for op in args.callers:
        callers_of(prof, op, args.steps, args.top)
    for part in args.kernel:
        callers_of(prof, None, args.steps, args.top, kernel_part=part)


if __name__ == "__main__":
    main()
