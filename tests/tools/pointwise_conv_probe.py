#!/usr/bin/env python3
"""Are a network's 1x1 convolutions faster as matrix products? (issue #21: cuDNN's convolutions
are the largest class of a captured YOLOv9-t step, about 8.6 ms of kernels against a counted
floor of 1.25 ms.) In channels-last memory a 1x1, stride-1, ungrouped convolution *is* a matrix
product: the input viewed as [N*H*W, Cin] times the weight's [Cin, Cout], with no copy either
way; its input gradient and weight gradient are two more products. This asks, per distinct
1x1 convolution of LibreYOLO's own network (training mode, channels-last, float16, the batch
given), what cuDNN's forward + backward costs in GPU time against cuBLAS's three products, and
sums both over the network's calls, beside the time of every other convolution for scale.

GPU time is the profiler's kernel time per call (no launch gaps, as in a captured step).
Needs a CUDA machine and LibreYOLO importable (PYTHONPATH=.reference there). Usage:
  python3 tests/tools/pointwise_conv_probe.py yolo9 t [--batch 16] [--repeats 20]
"""
import argparse
from collections import Counter

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from op_attribution import build  # LibreYOLO's network, training mode, channels-last, on the GPU


def convolution_calls(model, batch, imgsz):
    """(input shape, weight shape, stride, padding, dilation, groups) -> calls in one forward."""
    seen = Counter()

    def record(module, inputs, _output):
        seen[(tuple(inputs[0].shape), tuple(module.weight.shape), module.stride, module.padding,
              module.dilation, module.groups)] += 1

    hooks = [m.register_forward_hook(record) for m in model.modules()
             if isinstance(m, torch.nn.Conv2d)]
    images = torch.randn(batch, 3, imgsz, imgsz, device="cuda").to(memory_format=torch.channels_last)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
        model(images)
    for hook in hooks:
        hook.remove()
    return seen


def is_pointwise(key):
    _, weight, stride, padding, _, groups = key
    return weight[2:] == (1, 1) and stride == (1, 1) and padding == (0, 0) and groups == 1


def cudnn_forward(x, w, key):
    _, _, stride, padding, dilation, groups = key
    return F.conv2d(x, w, None, stride, padding, dilation, groups)


def matmul_forward(x, w, _key):
    n, c, h, wd = x.shape
    rows = x.permute(0, 2, 3, 1).reshape(-1, c)  # a view in channels-last memory
    return (rows @ w.view(w.shape[0], c).t()).view(n, h, wd, -1).permute(0, 3, 1, 2)


def operands(key):
    shape, weight = key[0], key[1]
    x = torch.randn(shape, device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last).requires_grad_()
    w = (torch.randn(weight, device="cuda", dtype=torch.float16) * 0.05).requires_grad_()
    return x, w


def gpu_us_per_call(forward, key, repeats):
    """Kernel time of one forward + backward, the output gradient's fill excluded, mean over repeats."""
    x, w = operands(key)

    def run():
        y = forward(x, w, key)
        y.backward(torch.ones_like(y))

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            run()
        torch.cuda.synchronize()
    total = sum(e.device_time for e in prof.events()
                if e.device_type.name == "CUDA" and "fill" not in e.name.lower())
    return total / repeats


def largest_difference(key):
    """The products' output and both gradients against cuDNN's, relative to each one's largest."""
    torch.manual_seed(0)
    x, w = operands(key)
    results = []
    for forward in (cudnn_forward, matmul_forward):
        x.grad, w.grad = None, None
        y = forward(x, w, key)
        y.float().square().sum().backward()
        results.append((y.detach().float(), x.grad.float(), w.grad.float()))
    return max(((a - b).abs().max() / b.abs().max().clamp_min(1e-6)).item()
               for a, b in zip(*results))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    calls = convolution_calls(build(args.family, args.size), args.batch, args.imgsz)
    print(f"{args.family}-{args.size} batch {args.batch}: {sum(calls.values())} convolutions, "
          f"{sum(n for k, n in calls.items() if is_pointwise(k))} of them 1x1 stride 1")
    totals, others = Counter(), []
    for key, count in sorted(calls.items(), key=lambda item: -item[1] * item[0][0][2] * item[0][0][3]):
        cudnn = gpu_us_per_call(cudnn_forward, key, args.repeats)
        if not is_pointwise(key):
            totals["other convolutions, cuDNN"] += cudnn * count
            others.append((cudnn * count, count, key, cudnn))
            continue
        gemm = gpu_us_per_call(matmul_forward, key, args.repeats)
        totals["1x1, cuDNN"] += cudnn * count
        totals["1x1, matrix products"] += gemm * count
        print(f"  x{count:<3} in {key[0]} -> {key[1][0]} channels: cuDNN {cudnn:8.1f} us, "
              f"products {gemm:8.1f} us ({cudnn / gemm:5.2f}x); largest difference "
              f"{largest_difference(key):.2e}")
    print("the other convolutions, the ten that take longest in all:")
    for total, count, key, cudnn in sorted(others, key=lambda other: -other[0])[:10]:
        print(f"  x{count:<3} in {key[0]} -> {key[1][0]} channels, {key[1][2]}x{key[1][3]} stride "
              f"{key[2][0]}: cuDNN {cudnn:8.1f} us a call, {total / 1000:.3f} ms in all")
    for name, us in totals.items():
        print(f"{name}: {us / 1000:.3f} ms a forward + backward")


if __name__ == "__main__":
    main()
