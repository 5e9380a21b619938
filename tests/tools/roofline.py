#!/usr/bin/env python3
"""Where a training step's GPU time goes, against what the GPU physically needs (issue #21 item 3).

Two halves:
  1. The floor, counted: the network's layers (LibreYOLO's own nn modules, loaded from a source
     tree; nothing of them is copied here) are run once at batch 1 on the CPU with forward hooks
     that record every convolution's, BatchNorm's and activation's shapes. From those shapes, at
     the step's batch, come the FLOPs and the bytes a training step (forward + backward) must
     move per layer class, and from the GPU's peak rates (the profile's H100 or H200) the least
     time each class can take.
  2. The time, measured: a `profile.json` written by `libreyolo-host profile run` holds every
     CUDA kernel of the profiled window by name; kernels are sorted into the same classes by
     name and their GPU time per step printed beside the floor.

Usage:
  python3 tests/tools/roofline.py --libreyolo .reference/libreyolo --family yolo9 --size t \
      [--batch 16] [--imgsz 640] [--profile profile.json[.gz]] [--markdown]

Counting rules (fp16 activations under AMP: 2 bytes a value; weights and BatchNorm statistics
are small beside the activations and are counted at 2 bytes too):
  convolution  forward 2*MACs FLOPs, backward twice that (input gradient + weight gradient);
               bytes: forward reads x, writes y; backward reads dy and x, writes dx (and the
               weights each time).
  BatchNorm    (training statistics) forward reads x twice (statistics, then normalise) and
               writes y; backward reads x and dy twice (the two reductions, then dx) and writes
               dx: 3 + 5 passes over the activation.
  activation   SiLU and friends: forward reads x, writes y; backward reads x and dy, writes dx.
  A fused BatchNorm + SiLU needs 2 passes forward (statistics; normalise-and-activate) and 3 or
  4 backward: the bound the fused kernels of #21 item 2 aim at.
"""
import argparse
import gzip
import importlib
import json
import re
import sys
import types
from collections import defaultdict
from pathlib import Path

import torch

# Peak rates (NVIDIA's SXM figures): memory bandwidth in bytes/s, dense FP16/BF16 tensor-core
# FLOP/s. The profile's device name picks the row (an H100 profile measured against the H200's
# bandwidth would understate its memory floors 1.43x); without a profile, the H200 (issue #21's).
PEAKS = {"H200": (4.8e12, 989.4e12), "H100": (3.35e12, 989.4e12)}
BYTES = 2                      # fp16

CLASSES = ("convolution", "batchnorm", "activation", "pooling", "elementwise", "reduction/copy", "loss/assign",
           "optimizer/ema", "memset", "other")

# Kernel name -> class, first match wins. BatchNorm before convolution: cuDNN names both. Memsets
# (the driver's "Memset (Device)" and core's zero-span kernel that clears the BatchNorm workspaces'
# counters in a recorded graph) are their own class: until 2026-12-07 they fell into "other". The
# host's and the SDK's own kernels by their namespaces and shape structs: the fused optimizer step
# (core::amp::fused), the assigners' and losses' kernels, the fused pools (avg_pool_2x2's kernels
# take Layout arguments, max_pool_same's a Geometry: the names say no more).
KERNEL_CLASSES = [
    ("memset", r"^Memset|zero_spans"),
    ("pooling", r"pool|sdk::fused::\(anonymous namespace\)::(forward|backward)_kernel<.*(Layout|Geometry)"),
    ("batchnorm", r"bn_fw|bn_bw|batch_norm|batchnorm|welford"),
    ("optimizer/ema", r"multi_tensor_apply|fused_sgd|FusedSgd|adam|Adam|_amp_|foreach|amp::fused::"),
    ("loss/assign", r"AlignedMetric|SelectionShape|BoxDflShape|ClassBceShape|Simota|SimOta|softmax"),
    ("activation", r"silu|swish|sigmoid|relu|gelu|hardswish|leaky"),
    ("convolution", r"conv|xmma|implicit_gemm|cutlass|sm90_|sm80_|cudnn|wgrad|dgrad|gemm|nchwToNhwc|"
                    r"nhwcToNchw|winograd|fft"),
    ("loss/assign", r"topk|sort|Sort|radix|scatter|gather|index|nonzero|where|cumsum|bitonic"),
    ("reduction/copy", r"reduce|copy|cat|Cat|fill|memset|Memcpy|transpose|pad"),
    ("elementwise", r"elementwise|vectorized|unrolled|binary|unary|pointwise"),
]


def load_family_nn(libreyolo_dir, family):
    """LibreYOLO's models/<family>/nn.py as a module, without the package's __init__."""
    package = types.ModuleType(f"libreyolo_{family}_reference")
    package.__path__ = [str(Path(libreyolo_dir) / "models" / family)]
    sys.modules[package.__name__] = package
    return importlib.import_module(package.__name__ + ".nn")


def build_model(nn, family, size):
    if family == "yolo9":
        return nn.LibreYOLO9Model(config=size, nb_classes=80)
    if family == "yolox":
        return nn.LibreYOLOXModel(config=size, nb_classes=80)
    raise SystemExit(f"roofline: family {family} is not counted yet (yolo9, yolox)")


def layer_records(model, imgsz):
    """(class, module, input shape, output shape) of every counted leaf layer, at batch 1."""
    records = []

    def hook(module, inputs, output):
        kind = ("convolution" if isinstance(module, torch.nn.Conv2d)
                else "batchnorm" if isinstance(module, torch.nn.BatchNorm2d)
                else "activation")
        records.append((kind, module, tuple(inputs[0].shape), tuple(output.shape)))

    counted = (torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.SiLU, torch.nn.ReLU, torch.nn.Sigmoid,
               torch.nn.LeakyReLU, torch.nn.Hardswish)
    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, counted)]
    model.train()
    with torch.no_grad():
        model(torch.zeros(1, 3, imgsz, imgsz))
    for handle in handles:
        handle.remove()
    return records


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def layer_cost(kind, module, in_shape, out_shape, batch):
    """(FLOPs, bytes) of one layer's forward + backward at `batch`."""
    x = numel(in_shape) * batch
    y = numel(out_shape) * batch
    if kind == "convolution":
        k = module.kernel_size[0] * module.kernel_size[1]
        macs = y * (module.in_channels // module.groups) * k
        w = module.weight.numel()
        flops = 2 * macs * 3
        moved = (x + y + w) + (y + x + x + w + w)
        return flops, moved * BYTES
    if kind == "batchnorm":
        return 0, (3 + 5) * y * BYTES
    return 0, (2 + 3) * y * BYTES


def device_peaks(device_name):
    """(name, bytes/s, FLOP/s) for a profile's device string, e.g. 'cuda:0 (NVIDIA H100 80GB HBM3)'."""
    for name, (bandwidth, flops) in PEAKS.items():
        if name in (device_name or ""):
            return name, bandwidth, flops
    return "H200", *PEAKS["H200"]


def floor_by_class(records, batch, bandwidth, flops_peak):
    table = defaultdict(lambda: {"layers": 0, "flops": 0, "bytes": 0})
    for kind, module, in_shape, out_shape in records:
        flops, moved = layer_cost(kind, module, in_shape, out_shape, batch)
        row = table[kind]
        row["layers"] += 1
        row["flops"] += flops
        row["bytes"] += moved
    for row in table.values():
        row["floor_ms"] = 1e3 * max(row["bytes"] / bandwidth, row["flops"] / flops_peak)
    return table


def kernel_class(name):
    for cls, pattern in KERNEL_CLASSES:
        if re.search(pattern, name):
            return cls
    return "other"


def measured_by_class(profile_path):
    opener = gzip.open if str(profile_path).endswith(".gz") else open
    with opener(profile_path, "rt") as f:
        profile = json.load(f)
    steps = profile["window"]["unsynchronized_steps"]  # the kernels are the unsynchronised half's
    table = defaultdict(lambda: {"kernels": 0.0, "ms": 0.0})
    for k in profile["kernels"]["by_name"]:
        row = table[kernel_class(k["name"])]
        row["kernels"] += k["count"] / steps
        row["ms"] += k["total_us"] / steps / 1e3
    return table, profile


def report(args, floor, measured):
    bar = "|" if args.markdown else " "
    head = ["class", "layers", "GFLOP/step", "GB/step", "floor ms", "kernels/step", "measured ms"]
    lines = [bar.join(head)]
    if args.markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    totals = [0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for cls in CLASSES:
        f = floor.get(cls, {"layers": 0, "flops": 0, "bytes": 0, "floor_ms": 0.0})
        m = measured.get(cls, {"kernels": 0.0, "ms": 0.0}) if measured else None
        if not f["layers"] and not (m and m["kernels"]):
            continue
        cells = [cls, str(f["layers"]), f"{f['flops'] / 1e9:.1f}", f"{f['bytes'] / 1e9:.2f}",
                 f"{f['floor_ms']:.2f}" if f["layers"] else "-",
                 f"{m['kernels']:.0f}" if m else "-", f"{m['ms']:.2f}" if m else "-"]
        lines.append(("| " + " | ".join(cells) + " |") if args.markdown else bar.join(cells))
        totals[0] += f["layers"]
        totals[1] += f["flops"] / 1e9
        totals[2] += f["bytes"] / 1e9
        totals[3] += f["floor_ms"] if f["layers"] else 0.0
        if m:
            totals[4] += m["kernels"]
            totals[5] += m["ms"]
    cells = ["all", str(totals[0]), f"{totals[1]:.1f}", f"{totals[2]:.2f}", f"{totals[3]:.2f}",
             f"{totals[4]:.0f}" if measured else "-", f"{totals[5]:.2f}" if measured else "-"]
    lines.append(("| " + " | ".join(cells) + " |") if args.markdown else bar.join(cells))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--libreyolo", required=True, help="LibreYOLO's libreyolo/ source folder")
    parser.add_argument("--family", required=True, choices=["yolo9", "yolox"])
    parser.add_argument("--size", required=True)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--profile", help="a profile.json (or .json.gz) of the same model, batch and imgsz")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    nn = load_family_nn(args.libreyolo, args.family)
    records = layer_records(build_model(nn, args.family, args.size), args.imgsz)
    measured, device = None, ""
    if args.profile:
        measured, profile = measured_by_class(args.profile)
        measures = profile.get("measures", {})
        device = profile.get("environment", {}).get("device", "")
        print(f"profile: {args.profile}; step {measures.get('step_wall_ms', '?')} ms wall, GPU utilisation "
              f"{measures.get('utilization', '?')}, {measures.get('kernels_per_step', '?')} kernels a step")
    name, bandwidth, flops_peak = device_peaks(device)
    floor = floor_by_class(records, args.batch, bandwidth, flops_peak)
    print(f"{args.family}{args.size}, batch {args.batch}, {args.imgsz} px, forward + backward, fp16; "
          f"{name} {bandwidth / 1e12:.2f} TB/s, {flops_peak / 1e12:.0f} TFLOP/s")
    print(report(args, floor, measured))


if __name__ == "__main__":
    main()
