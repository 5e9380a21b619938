#!/usr/bin/env python3
"""Issue #21's concatenation lever, tried on LibreYOLO's own network before the C++ gets it.

Under channels-last, a channel slice of an activation (a `chunk` half, or the gradient slice a
`cat` hands each input in the backward) is not dense: its pixels sit a whole row of channels
apart. Every consumer of such a slice pays for it: cuDNN copies it to a dense tensor first, and
elementwise kernels (silu_backward, add) fall back to their non-vectorized strided loop. This
script measures, in one process on one GPU:

  1. which ops launch the copies, fills and silu_backward kernels (the op above the innermost one,
     through the profiler's op tree: e.g. `aten::contiguous <- aten::cudnn_convolution`);
  2. the training pass's kernels (count and GPU time a step) three ways: as LibreYOLO writes it;
     with `cat` whose backward gives every input a dense gradient in one launch
     (split_with_sizes_copy on the NHWC view); and with `chunk` also giving dense halves in one
     launch (its backward then one dense cat);
  3. that the three ways give the same parameter gradients (largest relative difference).

Same setting as op_attribution.py (batch 16, 640 px, float16 autocast, channels-last, the raw
outputs' sum as the loss). Needs a CUDA machine and PYTHONPATH=.reference. Usage:
  python3 tests/tools/dense_concat_experiment.py yolo9 t [--steps 3]
"""
import argparse
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from op_attribution import build, tensors_in, training_pass

original_cat = torch.cat
original_chunk = torch.Tensor.chunk


def dense_split(tensor, sizes):
    """Channel slices of a dense channels-last tensor as dense channels-last tensors, one launch."""
    nhwc = tensor.permute(0, 2, 3, 1)
    if not nhwc.is_contiguous():
        return [part.contiguous(memory_format=torch.channels_last) for part in tensor.split(sizes, 1)]
    outs = [nhwc.new_empty(nhwc.shape[:3] + (size,)) for size in sizes]
    torch.split_with_sizes_copy(nhwc, sizes, dim=3, out=outs)
    return [out.permute(0, 3, 1, 2) for out in outs]


class DenseGradientCat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *parts):
        ctx.sizes = [part.shape[1] for part in parts]
        ctx.dtypes = [part.dtype for part in parts]
        return original_cat(parts, 1)

    @staticmethod
    def backward(ctx, grad):
        grads = dense_split(grad, ctx.sizes)
        return tuple(g.to(dtype) for g, dtype in zip(grads, ctx.dtypes))


class DenseChunk(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, pieces):
        return tuple(dense_split(tensor, [tensor.shape[1] // pieces] * pieces))

    @staticmethod
    def backward(ctx, *grads):
        return original_cat(grads, 1), None


def channels_last_4d(tensors):
    return all(t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) for t in tensors)


def cat_dense_gradient(tensors, dim=0, **kwargs):
    tensors = list(tensors)
    if dim == 1 and not kwargs and channels_last_4d(tensors) and torch.is_grad_enabled():
        return DenseGradientCat.apply(*tensors)
    return original_cat(tensors, dim, **kwargs)


def chunk_dense(self, chunks, dim=0):
    if dim == 1 and channels_last_4d([self]) and self.shape[1] % chunks == 0 and torch.is_grad_enabled():
        return DenseChunk.apply(self, chunks)
    return original_chunk(self, chunks, dim)


def use(variant):
    torch.cat = cat_dense_gradient if variant != "as written" else original_cat
    torch.Tensor.chunk = chunk_dense if variant == "dense cat + chunk" else original_chunk


def ancestry(event, depth=3):
    names, parent = [], event.cpu_parent
    while parent is not None and len(names) < depth:
        if parent.name not in names:
            names.append(parent.name.replace("autograd::engine::evaluate_function: ", "bwd:"))
        parent = parent.cpu_parent
    return " <- ".join(names)


def profiled(model, images, steps):
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            training_pass(model, images)
        torch.cuda.synchronize()
    return prof


def summary(prof, steps):
    kernels = [k for e in prof.events() if e.device_type.name == "CPU" for k in e.kernels]
    strided = [k for k in kernels if "direct_copy" in k.name and "vectorized" not in k.name]
    return (len(kernels) / steps, sum(k.duration for k in kernels) / steps / 1000,
            len(strided) / steps, sum(k.duration for k in strided) / steps / 1000)


def print_sources(prof, steps, top):
    watched = ("aten::copy_", "aten::fill_", "aten::zero_", "aten::silu_backward", "aten::add_", "aten::add")
    time_us, count = defaultdict(float), defaultdict(int)
    for event in prof.events():
        if event.device_type.name != "CPU" or not event.kernels or event.name not in watched:
            continue
        for kernel in event.kernels:
            kind = "strided" if "vectorized" not in kernel.name and "elementwise" in kernel.name else "dense"
            key = f"{event.name} [{kind}] <- {ancestry(event)}"
            time_us[key] += kernel.duration
            count[key] += 1
    print(f"{'kernels/step':>12} {'ms/step':>8}  op [kernel loop] <- the ops above it")
    for key, us in sorted(time_us.items(), key=lambda item: -item[1])[:top]:
        print(f"{count[key] / steps:12.1f} {us / steps / 1000:8.3f}  {key[:150]}")


def gradients(model, images):
    torch.manual_seed(0)
    training_pass_keep(model, images)
    grads = {n: p.grad.detach().float().clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return grads


def training_pass_keep(model, images):
    """op_attribution's pass without its zero_grad: the gradients stay to be compared."""
    with torch.autocast("cuda", dtype=torch.float16):
        outputs = model(images)
    sum(t.float().sum() for t in tensors_in(outputs) if t.requires_grad).backward()


def compare(grads, reference):
    """Largest difference relative to each tensor's largest finite magnitude, over the values finite
    on both sides (the outputs' sum as a float16 loss, unscaled, can overflow a few gradients: the
    nineteenth session's run printed nan here)."""
    worst, non_finite = 0.0, 0
    for name, grad in grads.items():
        finite = torch.isfinite(grad) & torch.isfinite(reference[name])
        non_finite += int((~finite).sum())
        if finite.any():
            scale = reference[name][finite].abs().max().clamp_min(1e-12)
            worst = max(worst, ((grad - reference[name])[finite].abs().max() / scale).item())
    return worst, non_finite


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family")
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    model = build(args.family, args.size)
    images = torch.randn(args.batch, 3, 640, 640, device="cuda").to(memory_format=torch.channels_last)
    reference = None
    for variant in ("as written", "dense cat", "dense cat + chunk"):
        use(variant)
        for _ in range(5):
            training_pass(model, images)
        prof = profiled(model, images, args.steps)
        kernels, ms, strided, strided_ms = summary(prof, args.steps)
        print(f"\n== {args.family}-{args.size} {variant}: {kernels:.0f} kernels/step, {ms:.2f} ms of kernels/step, "
              f"{strided:.0f} strided copies ({strided_ms:.3f} ms)")
        print_sources(prof, args.steps, args.top)
        grads = gradients(model, images)
        if reference is None:
            reference = grads
        else:
            worst, non_finite = compare(grads, reference)
            print(f"largest relative gradient difference against 'as written': {worst:.3e} "
                  f"({non_finite} non-finite gradient values left out)")
    use("as written")


if __name__ == "__main__":
    main()
