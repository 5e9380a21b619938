#!/usr/bin/env python3
"""Issue #21: would YOLOv9's RepConvN train faster as one convolution? Tried on LibreYOLO's own
network before any C++ is written for it.

RepConvN trains as silu(bn1(conv3x3(x)) + bn2(conv1x1(x))): two convolutions of the same input,
two BatchNorms, an addition. Its forward and backward launch twice the convolution and BatchNorm
kernels its arithmetic needs, and YOLOv9-t has dozens of them, each latency-bound (small
channel counts). The 1x1 weight padded to 3x3 with zeros gives the same products, so the two
convolutions can be one with both weights stacked along the output channels; BatchNorm is per
channel, so the two BatchNorms can be one over the stacked channels; the two halves then meet
at the addition. Equal in exact arithmetic, not bit for bit (cuDNN sums in another order).

This script times the network's training pass (forward + backward, batch 16, 640 px, float16
autocast, channels-last, the outputs' sum as the loss, as op_attribution.py) with RepConvN:
  "as written"      LibreYOLO's forward;
  "stacked conv"    one convolution, then the two BatchNorms on its channel halves;
  "stacked conv+bn" one convolution and one BatchNorm over the stacked channels. The running
                    statistics go to a concatenated copy that is not written back: an upper bound
                    on what the lever can give (a real one writes them back, or keeps them stacked);
  "stacked conv+bn, CSP pairs too"  besides, the CSP blocks' two 1x1 convolutions of their input
                    (YOLOv9's RepNCSP, YOLOX's CSPLayer: Conv + BN + SiLU each, one feeding the
                    bottleneck chain, the other the concatenation) as one, the chain reading a
                    channel slice of the result (YOLOX runs only this and "as written").
Per variant: kernels and kernel time a step (profiler), the pass's wall time as a CUDA graph
replay (the way our host runs it) and eager, and the gradients' largest relative difference from
"as written". Needs a CUDA machine and PYTHONPATH=.reference. Usage:
  python3 tests/tools/rep_pair_experiment.py [--family yolo9|yolox] [--size t] [--steps 3] [--replays 50]
"""
import argparse
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from dense_concat_experiment import compare
from op_attribution import build, tensors_in


def stacked_weight(convs):
    widest = max(c.conv.weight.shape[-1] for c in convs)
    return torch.cat([F.pad(c.conv.weight, [(widest - c.conv.weight.shape[-1]) // 2] * 4) for c in convs], 0)


def stacked_conv(convs, x):
    """Convolutions (Conv/BaseConv modules: .conv, .bn, .act) of one input as one."""
    widest = max(c.conv.weight.shape[-1] for c in convs)
    first = convs[0].conv
    return F.conv2d(x, stacked_weight(convs), None, first.stride, widest // 2, first.dilation, first.groups)


def stacked_conv_bn(convs, x):
    """...and their BatchNorms as one. The running statistics go to a concatenated copy that is
    not written back: an upper bound on what the lever can give."""
    bns = [c.bn for c in convs]
    return F.batch_norm(stacked_conv(convs, x), torch.cat([b.running_mean for b in bns]),
                        torch.cat([b.running_var for b in bns]), torch.cat([b.weight for b in bns]),
                        torch.cat([b.bias for b in bns]), convs[0].training, bns[0].momentum, bns[0].eps)


def rep_stacked_conv(rep, x):
    first, second = stacked_conv([rep.conv1, rep.conv2], x).chunk(2, 1)
    return rep.act(rep.conv1.bn(first) + rep.conv2.bn(second))


def rep_stacked_conv_bn(rep, x):
    first, second = stacked_conv_bn([rep.conv1, rep.conv2], x).chunk(2, 1)
    return rep.act(first + second)


def csp_stacked(first_conv, second_conv, chain, last_conv, x):
    """A CSP block's two 1x1 convolutions of its input (each Conv + BN + SiLU) as one; the chain
    reads the first half (a channel slice), the concatenation the second."""
    chained, shortcut = first_conv.act(stacked_conv_bn([first_conv, second_conv], x)).chunk(2, 1)
    return last_conv(torch.cat((chain(chained), shortcut), 1))


def repncsp_stacked(csp, x):  # YOLOv9's RepNCSP: cv3(cat(m(cv1(x)), cv2(x)))
    return csp_stacked(csp.cv1, csp.cv2, csp.m, csp.cv3, x)


def csplayer_stacked(csp, x):  # YOLOX's CSPLayer: conv3(cat(m(conv1(x)), conv2(x)))
    return csp_stacked(csp.conv1, csp.conv2, csp.m, csp.conv3, x)


# Per variant, the module classes whose forward it replaces.
VARIANTS = {
    "as written": {},
    "stacked conv": {"RepConvN": rep_stacked_conv},
    "stacked conv+bn": {"RepConvN": rep_stacked_conv_bn},
    "stacked conv+bn, CSP pairs too": {"RepConvN": rep_stacked_conv_bn, "RepNCSP": repncsp_stacked,
                                       "CSPLayer": csplayer_stacked},
}


def use(model, variant):
    replacements = VARIANTS[variant]
    for module in model.modules():
        module.__dict__.pop("forward", None)
        replacement = replacements.get(type(module).__name__)
        if replacement is not None:
            module.forward = (lambda m, f: (lambda x: f(m, x)))(module, replacement)
    for rep in (m for m in model.modules() if type(m).__name__ == "RepConvN"):
        assert rep.bn is None, "identity branch present: the probe covers the 3x3 + 1x1 pair only"


LOSS_SCALE = [1.0]  # --loss-scale: below 1, the float16 backward of the outputs' sum stays finite


def loss_of(model, images):
    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=False):
        outputs = model(images)
    return LOSS_SCALE[0] * sum(t.float().sum() for t in tensors_in(outputs) if t.requires_grad)


def kernel_census(model, images, steps):
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            loss_of(model, images).backward()
            model.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    kernels = [k for e in prof.events() if e.device_type.name == "CPU" for k in e.kernels]
    return len(kernels) / steps, sum(k.duration for k in kernels) / steps / 1000


def eager_ms(model, images, passes):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(passes):
        loss_of(model, images).backward()
        model.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1000 / passes


def graph_ms(model, images, replays):
    """The pass recorded once (gradients written fresh each replay), then replayed: GPU time
    and the gaps between dependent kernels, without the host's launch cost."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model.zero_grad(set_to_none=True)
            loss_of(model, images).backward()
    torch.cuda.current_stream().wait_stream(side)
    model.zero_grad(set_to_none=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss_of(model, images).backward()
    for _ in range(5):
        graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    model.zero_grad(set_to_none=True)
    return min(times), sorted(times)[len(times) // 2]


def gradients(model, images):
    model.zero_grad(set_to_none=True)
    loss_of(model, images).backward()
    grads = {n: p.grad.detach().float().clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return grads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", default="yolo9", choices=["yolo9", "yolox"])
    parser.add_argument("--size", default="t")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--replays", type=int, default=50)
    parser.add_argument("--loss-scale", type=float, default=1.0)
    args = parser.parse_args()
    LOSS_SCALE[0] = args.loss_scale
    torch.backends.cudnn.benchmark = True
    model = build(args.family, args.size)
    counts = {name: sum(type(m).__name__ == name for m in model.modules()) for name in ("RepConvN", "RepNCSP", "CSPLayer")}
    print(f"{args.family}-{args.size}: {counts}, batch {args.batch}, 640 px")
    torch.manual_seed(0)
    images = torch.randn(args.batch, 3, 640, 640, device="cuda").to(memory_format=torch.channels_last)
    reference = None
    for variant in VARIANTS:
        if args.family == "yolox" and variant in ("stacked conv", "stacked conv+bn"):
            continue  # YOLOX has no RepConvN
        use(model, variant)
        for _ in range(5):
            loss_of(model, images).backward()
            model.zero_grad(set_to_none=True)
        kernels, kernel_ms = kernel_census(model, images, args.steps)
        line = f"{variant:16s} {kernels:6.0f} kernels/step {kernel_ms:7.2f} ms of kernels  eager {eager_ms(model, images, 10):7.2f} ms"
        try:
            fastest, median = graph_ms(model, images, args.replays)
            line += f"  graph fastest {fastest:6.2f} ms median {median:6.2f} ms"
        except RuntimeError as error:  # a capture this probe could not make: say so, keep the rest
            line += f"  graph: not captured ({str(error).splitlines()[0][:120]})"
        grads = gradients(model, images)
        if reference is None:
            reference = grads
        else:
            worst, non_finite = compare(grads, reference)
            line += f"  gradients vs as written: {worst:.2e} ({non_finite} non-finite left out)"
        print(line, flush=True)
    use(model, "as written")


if __name__ == "__main__":
    main()
