#!/usr/bin/env python3
"""Does the necks' nearest upsample gain in float16 (issue #21, fused_kernels=half_upsample)?

LibreYOLO's own network (the reference ours mirrors op for op), training forward + backward,
channels-last, float16 autocast, batch 16, 640 px, the outputs' sum (scaled 1e-4) as the loss:
once as written (autocast runs `upsample_nearest2d` in float32, so the map is cast up, the
concatenation promoted, and the next convolution casts back) and once with every `nn.Upsample`
run with autocast off, on the float16 map. Prints kernels and kernel time a pass (profiler), the
pass as a CUDA graph (fastest and median replay), and whether the loss and every gradient are
bitwise equal (deterministic cuDNN).

Needs a CUDA machine and LibreYOLO importable (PYTHONPATH=.reference there). Usage:
  python3 tests/tools/upsample_probe.py yolo9 t [--batch 16] [--replays 30]
"""
import argparse

import torch
import torch.nn.functional as F

import rep_pair_experiment as probe
from op_attribution import build


def run_upsamples_in_own_type(model):
    for module in model.modules():
        if isinstance(module, torch.nn.Upsample):
            def forward(x, m=module):
                with torch.autocast("cuda", enabled=False):
                    return F.interpolate(x, size=m.size, scale_factor=m.scale_factor, mode=m.mode)
            module.forward = forward


def bitwise_equal(model, patched, images):
    torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = False, True
    a, b = probe.gradients(model, images), probe.gradients(patched, images)
    la, lb = probe.loss_of(model, images).item(), probe.loss_of(patched, images).item()
    torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = True, False
    differing = [n for n in a if not torch.equal(a[n], b[n])]
    return la == lb, differing


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--replays", type=int, default=30)
    args = parser.parse_args()
    probe.LOSS_SCALE[0] = 1e-4
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    model = build(args.family, args.size)
    torch.manual_seed(0)
    patched = build(args.family, args.size)
    patched.load_state_dict(model.state_dict())
    run_upsamples_in_own_type(patched)
    images = torch.randn(args.batch, 3, 640, 640, device="cuda").to(memory_format=torch.channels_last)
    same_loss, differing = bitwise_equal(model, patched, images)
    print(f"{args.family}-{args.size}: loss bitwise equal {same_loss}; gradients differing: {len(differing)} "
          f"{differing[:5]}")
    for name, m in (("upsample as written (float32 under autocast)", model), ("upsample in float16", patched)):
        for _ in range(3):
            probe.loss_of(m, images).backward()
            m.zero_grad(set_to_none=True)
        kernels, kernel_ms = probe.kernel_census(m, images, 3)
        fastest, median = probe.graph_ms(m, images, args.replays)
        print(f"{name:46} {kernels:7.0f} kernels {kernel_ms:7.2f} ms kernel time; graph replay fastest "
              f"{fastest:.2f} ms, median {median:.2f} ms")


if __name__ == "__main__":
    main()
