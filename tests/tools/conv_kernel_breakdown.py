#!/usr/bin/env python3
"""Which kernels run a network's costliest 3x3 convolutions, and how far are they from the
memory floor? (issue #21: after the cuDNN fusion probe found no SiLU fusion on sm_90, the small
convolutions themselves are the largest lever left: YOLOv9-t's 3x3 convolutions take 7.6 ms a
forward + backward pass alone, mostly at 16-32 channels where cuDNN's kernels run far from the
memory bound.) Per distinct non-1x1 convolution, the costliest first (calls x time): every kernel
of its forward + backward with its mean GPU time per call, and the pass's bytes at the memory
floor (input, output and both gradients read or written once, float16).

Needs a CUDA machine and LibreYOLO importable (PYTHONPATH=.reference there). Usage:
  python3 tests/tools/conv_kernel_breakdown.py yolo9 t [--batch 16] [--shapes 6] [--repeats 20]
"""
import argparse
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from op_attribution import build
from pointwise_conv_probe import convolution_calls, cudnn_forward, gpu_us_per_call, is_pointwise, operands


def kernels_of(key, repeats):
    """Kernel name -> mean GPU microseconds per forward + backward call (the gradient fill excluded)."""
    x, w = operands(key)
    grad = None

    def run():
        nonlocal grad
        x.grad, w.grad = None, None  # no accumulation kernels: each call's gradients are fresh
        y = cudnn_forward(x, w, key)
        if grad is None:
            grad = torch.ones_like(y)
        y.backward(grad)

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            run()
        torch.cuda.synchronize()
    times = defaultdict(float)
    for e in prof.events():
        if e.device_type.name == "CUDA":
            times[e.name] += e.device_time / repeats
    return times


def floor_bytes(key):
    """Bytes a forward + backward must move at least: x, y, dy, dx once each, the weight twice."""
    shape, weight, stride = key[0], key[1], key[2]
    n, c, h, w = shape
    out = n * weight[0] * (h // stride[0]) * (w // stride[1])
    return 2 * (2 * n * c * h * w + 2 * out + 2 * weight[0] * weight[1] * weight[2] * weight[3])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--shapes", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    calls = convolution_calls(build(args.family, args.size), args.batch, args.imgsz)
    others = [(gpu_us_per_call(cudnn_forward, key, args.repeats) * count, count, key)
              for key, count in calls.items() if not is_pointwise(key)]
    bandwidth = 3.35e12 if "H100" in torch.cuda.get_device_name() else 4.8e12  # bytes/s, the card's HBM
    for total, count, key in sorted(others, key=lambda other: -other[0])[:args.shapes]:
        kernels = kernels_of(key, args.repeats)
        per_call = sum(kernels.values())
        floor_us = floor_bytes(key) / bandwidth * 1e6
        print(f"x{count} in {key[0]} -> {key[1][0]} channels, {key[1][2]}x{key[1][3]} stride {key[2][0]} "
              f"groups {key[5]}: {per_call:.1f} us a call ({total / 1000:.3f} ms in all), memory floor "
              f"{floor_us:.1f} us ({per_call / floor_us:.0f}x)")
        for name, us in sorted(kernels.items(), key=lambda item: -item[1]):
            print(f"    {us:7.1f} us  {name[:150]}")


if __name__ == "__main__":
    main()
