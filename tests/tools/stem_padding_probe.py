#!/usr/bin/env python3
"""Would the stems' convolutions be cheaper with their input channels padded to eight? (issue
#21: tests/tools/conv_kernel_breakdown.py found cuDNN padding the 3-channel image of YOLOv9's stem
and the 12-channel Focus output of YOLOX's on every call, nhwcAddPaddingKernel at 127 and 218 us
on an H100, and running the convolution with 2-byte-aligned kernels besides.) Per stem shape, the
GPU time of the training step's work for that convolution (forward and weight gradient; the image
needs no gradient) three ways:
  as is            cuDNN pads inside
  padded, ready    the input already eight-channel (zeros beyond the real ones), as if the kernel
                   that makes it wrote it so; the weight padded in the step (its gradient sliced back)
  padded in step   the same with the padding done in the step (a zeroed channels-last buffer and
                   one copy into it), what a layer could do alone
with the outputs and weight gradients against the first way's.

Needs a CUDA machine with PyTorch. Usage: python3 tests/tools/stem_padding_probe.py [--repeats 20]
"""
import argparse

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

# (name, input shape, output channels, stride): the stems at batch 16, 640 px, 3x3, padding 1.
STEMS = [("YOLOv9 stem", (16, 3, 640, 640), 16, 2),
         ("YOLOX-s Focus convolution", (16, 12, 320, 320), 32, 1),
         ("YOLOX Focus convolution, 48 outputs", (16, 12, 320, 320), 48, 1)]


def padded_channels(x, channels):
    """x (channels-last) copied into a zeroed channels-last buffer of `channels` channels."""
    n, c, h, w = x.shape
    out = torch.zeros((n, channels, h, w), dtype=x.dtype, device=x.device).to(memory_format=torch.channels_last)
    out[:, :c].copy_(x)
    return out


def step_work(way, x, x8, weight, stride):
    """One forward + weight-gradient backward of the stem's convolution, the chosen way."""
    weight.grad = None
    if way == "as is":
        y = F.conv2d(x, weight, None, stride, 1)
    else:
        source = x8 if way == "padded, ready" else padded_channels(x, 8 * ((x.shape[1] + 7) // 8))
        w8 = F.pad(weight, (0, 0, 0, 0, 0, source.shape[1] - weight.shape[1])).contiguous(
            memory_format=torch.channels_last)
        y = F.conv2d(source, w8, None, stride, 1)
    y.backward(torch.ones_like(y))
    return y


def gpu_us(way, x, x8, weight, stride, repeats):
    for _ in range(3):
        step_work(way, x, x8, weight, stride)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            step_work(way, x, x8, weight, stride)
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type.name == "CUDA" and "fill" not in e.name.lower():
            kernels[e.name] = kernels.get(e.name, 0.0) + e.device_time / repeats
    return sum(kernels.values()), kernels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    for name, shape, out_channels, stride in STEMS:
        x = torch.rand(shape, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        x8 = padded_channels(x, 8 * ((shape[1] + 7) // 8))
        weight = (torch.randn(out_channels, shape[1], 3, 3, device="cuda", dtype=torch.float16) * 0.1).to(
            memory_format=torch.channels_last).requires_grad_()
        print(f"{name}: {shape} -> {out_channels} channels, 3x3 stride {stride}")
        reference = None
        for way in ("as is", "padded, ready", "padded in step"):
            total, kernels = gpu_us(way, x, x8, weight, stride, args.repeats)
            y = step_work(way, x, x8, weight, stride).detach().float()
            grad = weight.grad.float()
            if reference is None:
                reference = (y, grad)
            diff = max(((a - b).abs().max() / b.abs().max()).item() for a, b in zip((y, grad), reference))
            print(f"  {way:15s} {total:8.1f} us a step's call; largest difference from 'as is' {diff:.2e}")
            for kernel, us in sorted(kernels.items(), key=lambda item: -item[1])[:6]:
                print(f"      {us:7.1f} us  {kernel[:110]}")


if __name__ == "__main__":
    main()
