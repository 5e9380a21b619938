#!/usr/bin/env python3
"""Issue #21's branch lever, tried on LibreYOLO's own network before the C++ gets it.

A YOLO's forward has independent branches that PyTorch runs one after the other on one stream:
RepConvN's 3x3 and 1x1 convolutions (YOLOv9-t: 42 of them), RepNCSP's and CSPLayer's shortcut
convolution beside their bottleneck chain (14 and 11), the head's box and class towers of each
level (6 chains). Their kernels are small (a few microseconds, most of the H200 idle), so two
chains on two streams should take little more than the longer one, and autograd runs each
backward node on the stream its forward ran on, so the backward branches too. The kernels and
their inputs are the same ones: the gradients should be the same bits.

This script measures, in one process on one GPU, the training pass (forward + backward, channels-
last, float16 autocast, the raw outputs' sum as the loss: the network alone) captured in a CUDA
graph, as LibreYOLO writes it and with the branches on side streams:
  1. the replay time (median over interleaved rounds) and the eager time of each variant;
  2. that every variant gives the same parameter gradients as the original (bitwise count and
     largest difference), from the same weights and images.

A third lever is measured beside it: the convolutions' weight gradients on a stream of their own
(what the host's fused_kernels=weight_grad_stream does), alone and with the branches. Every variant
trains float16 leaves as the convolution weights (the host's weight copies), so all compare the same
arithmetic.

The variants patch the modules' forward methods (RepConvN, RepNCSP, DDetect for YOLOv9; CSPLayer,
YOLOXHead for YOLOX; nn.Conv2d for the weight gradients); on a CPU the branches run one after the
other and the weight gradients on the one stream, which is how this file's equivalence is checked
without a GPU (--check-cpu, in float32). LibreYOLO's nn modules are loaded from its source
(--libreyolo, default .reference/libreyolo) without its package __init__. Usage:
  python3 tests/tools/branch_streams_experiment.py yolo9 t [--batch 16] [--replays 20] [--rounds 5]
  python3 tests/tools/branch_streams_experiment.py yolo9 t --check-cpu --batch 1 --imgsz 64
"""
import argparse
import statistics
import sys
import time

import torch

from roofline import build_model, load_family_nn

ENABLED = {"value": False}


def tensors_in(value):
    if torch.is_tensor(value):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)


class StreamChoice:
    """Which side stream a branch from a fork point may take (as the SDK's SideStreamChoice): one
    whose work all comes before the point (never used, or joined into the point's stream before
    the point and given nothing since), else a new one; a stream holding other work would make the
    branch wait for it."""

    def __init__(self):
        self.tick = 0
        self.streams = []  # [stream, joined_into, started_at, joined_at]

    def mark(self, on):
        self.tick += 1
        return on, self.tick

    def take(self, point):
        on, tick = point
        for entry in self.streams:
            stream, joined_into, started_at, joined_at = entry
            if started_at == 0 or (joined_into == on and joined_at < tick and started_at < joined_at):
                break
        else:
            entry = [torch.cuda.Stream(priority=-1), None, 0, 0]
            self.streams.append(entry)
        self.tick += 1
        entry[2] = self.tick
        return entry[0]

    def joined(self, stream, into):
        self.tick += 1
        for entry in self.streams:
            if entry[0] == stream:
                entry[1], entry[3] = into, self.tick


CHOICE = StreamChoice()


class ForkPoint:
    """A point on the current stream that branches started later may begin from (as the SDK's
    sdk::ForkPoint): each started branch runs on a side stream that waits only for the work queued
    before the point, so it runs beside whatever was queued since; the branches are called, and
    their autograd nodes made, in the order they are started (as without streams: autograd adds
    gradients in the same order). Memory read across streams is recorded so the allocator cannot
    hand it out while another stream still reads it. Without streams a branch runs when started."""

    def __init__(self, inputs):
        self.inputs = inputs
        self.event = None
        if ENABLED["value"] and any(t.is_cuda for t in tensors_in(inputs)):
            self.event = torch.cuda.Event()
            self.event.record()
            self.point = CHOICE.mark(torch.cuda.current_stream())

    def start(self, branch):
        return Started(self, branch)


class Started:
    def __init__(self, point, branch):
        self.stream = None
        if point.event is None:
            self.output = branch()
            return
        self.stream = CHOICE.take(point.point)
        self.stream.wait_event(point.event)
        for tensor in tensors_in(point.inputs):
            tensor.record_stream(self.stream)
        with torch.cuda.stream(self.stream):
            self.output = branch()

    def join(self):
        if self.stream is not None:
            main = torch.cuda.current_stream()
            main.wait_stream(self.stream)
            for tensor in tensors_in(self.output):
                tensor.record_stream(main)
            CHOICE.joined(self.stream, main)
        return self.output


def side_by_side(inputs, *branches):
    """Runs the branches (closures over `inputs`) in order: the first on the current stream, the
    others each on a side stream from a fork point made before the first; the current stream
    waits for them all before it returns."""
    point = ForkPoint(inputs)
    first = branches[0]()
    started = [point.start(branch) for branch in branches[1:]]
    return [first] + [branch.join() for branch in started]


if hasattr(torch.amp, "custom_fwd"):  # torch 2.4 and later
    custom_fwd = torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float16)
    custom_bwd = torch.amp.custom_bwd(device_type="cuda")
else:
    custom_fwd = torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)
    custom_bwd = torch.cuda.amp.custom_bwd


class ConvWeightGradientOnSide(torch.autograd.Function):
    """A convolution whose backward computes the input gradient on the current stream and the
    weight (and bias) gradient on the weight-gradient stream, which first waits for the current
    one (what the host's fused_kernels=weight_grad_stream does with PyTorch's own kernels). The
    caller joins the streams after the backward (training_pass). The weight must be a leaf of the
    compute dtype (see half_convolution_weights), so that autograd hands the gradient over without
    a kernel on the current stream."""

    @staticmethod
    @custom_fwd
    def forward(ctx, x, weight, bias, conv):
        ctx.save_for_backward(x, weight)
        ctx.conv, ctx.has_bias = conv, bias is not None
        return torch.nn.functional.conv2d(x, weight, bias, conv.stride, conv.padding, conv.dilation, conv.groups)

    @staticmethod
    @custom_bwd
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        conv = ctx.conv
        args = (grad, x, weight, [weight.shape[0]] if ctx.has_bias else None, conv.stride, conv.padding,
                conv.dilation, False, [0, 0], conv.groups)
        grad_x = torch.ops.aten.convolution_backward(*args, [ctx.needs_input_grad[0], False, False])[0]
        if not grad.is_cuda:  # the CPU check: the same arithmetic, one stream
            _, grad_w, grad_b = torch.ops.aten.convolution_backward(*args, [False, True, ctx.has_bias])
            return grad_x, grad_w, grad_b, None
        side = WEIGHT_GRAD_STREAM["stream"]
        side.wait_stream(torch.cuda.current_stream())
        x.record_stream(side)
        grad.record_stream(side)
        with torch.cuda.stream(side):
            _, grad_w, grad_b = torch.ops.aten.convolution_backward(*args, [False, True, ctx.has_bias])
        for made in (grad_w, grad_b):
            if made is not None:
                made.record_stream(torch.cuda.current_stream())
        return grad_x, grad_w, grad_b, None


def conv_weight_gradient_on_side(self, x):
    if not self.training or not torch.is_grad_enabled() or self.padding_mode != "zeros":
        return ORIGINAL_CONV_FORWARD(self, x)
    return ConvWeightGradientOnSide.apply(x, self.weight, self.bias, self)


ORIGINAL_CONV_FORWARD = torch.nn.Conv2d.forward
WEIGHT_GRAD_STREAM = {"stream": None}


def half_convolution_weights(model):
    """The convolutions' weights (and biases) as float16 leaves, as the host's weight copies are
    (fused_kernels=weight_casts): every variant trains these, so all compare the same arithmetic."""
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            module.weight = torch.nn.Parameter(module.weight.detach().half())
            if module.bias is not None:
                module.bias = torch.nn.Parameter(module.bias.detach().half())


def patch_yolo9(y9):

    def repconvn(self, x):
        identity = 0 if self.bn is None else self.bn(x)
        wide, narrow = side_by_side((x,), lambda: self.conv1(x), lambda: self.conv2(x))
        return self.act(wide + narrow + identity)

    def repncsp(self, x):
        chain, shortcut = side_by_side((x,), lambda: self.m(self.cv1(x)), lambda: self.cv2(x))
        return self.cv3(torch.cat((chain, shortcut), 1))

    original_detect = y9.DDetect.forward

    def ddetect(self, x, targets=None, img_size=None):
        if not (self.training and targets is None):
            return original_detect(self, x, targets, img_size)
        towers = []
        for i in range(self.nl):
            towers += [lambda i=i: self.cv2[i](x[i]), lambda i=i: self.cv3[i](x[i])]
        outs = side_by_side(tuple(x), *towers)
        return [torch.cat((outs[2 * i], outs[2 * i + 1]), 1) for i in range(self.nl)]

    def head_level(head, i, x):
        return torch.cat(side_by_side((x,), lambda: head.cv2[i](x), lambda: head.cv3[i](x)), 1)

    original_model = y9.LibreYOLO9Model.forward

    def model(self, x, targets=None, masks=None):
        """P3's head beside the neck's bottom-up path (the network-only training pass)."""
        plain = not any(getattr(self, flag, False) for flag in ("classification", "semantic", "segmentation", "pose", "obb"))
        if not (self.training and targets is None and plain):
            return original_model(self, x, targets, masks)
        p3, p4, p5 = self.backbone(x)
        neck, head = self.neck, self.head
        n4 = neck.elan_up1(torch.cat([neck.up1(p5), p4], 1))
        out3 = neck.elan_up2(torch.cat([neck.up2(n4), p3], 1))
        out3_made = ForkPoint((out3,))
        out4 = neck.elan_down1(torch.cat([neck.down1(out3), n4], 1))
        out5 = neck.elan_down2(torch.cat([neck.down2(out4), p5], 1))
        level3 = out3_made.start(lambda: head_level(head, 0, out3))
        rest = side_by_side((out4, out5), lambda: head_level(head, 1, out4), lambda: head_level(head, 2, out5))
        return [level3.join()] + rest

    return {"blocks": [(y9.RepConvN, repconvn), (y9.RepNCSP, repncsp)],
            "head": [(y9.DDetect, ddetect)], "levels": [(y9.LibreYOLO9Model, model)],
            "wgrad": [(torch.nn.Conv2d, conv_weight_gradient_on_side)]}


def patch_yolox(yx):

    def csp(self, x):
        chain, shortcut = side_by_side((x,), lambda: self.m(self.conv1(x)), lambda: self.conv2(x))
        return self.conv3(torch.cat((chain, shortcut), dim=1))

    def head_level(self, k, feature):
        """One level's training output (flattened, as YOLOXHead's training path makes it)."""
        x = self.stems[k](feature)
        cls_output, reg_feat = side_by_side((x,), lambda: self.cls_preds[k](self.cls_convs[k](x)),
                                            lambda: self.reg_convs[k](x))
        output = torch.cat([self.reg_preds[k](reg_feat), self.obj_preds[k](reg_feat), cls_output], 1)
        return self.get_output_and_grid(output, k, self.strides[k], feature.type())[0]

    original_head = yx.YOLOXHead.forward

    def head(self, xin, labels=None, imgs=None):
        if not (self.training and labels is None):
            return original_head(self, xin, labels, imgs)
        levels = [lambda k=k, x=x: head_level(self, k, x) for k, x in enumerate(xin)]
        return torch.cat(side_by_side(tuple(xin), *levels), 1)

    original_model = yx.LibreYOLOXModel.forward

    def model(self, x, targets=None):
        """P3's head beside the PAFPN's bottom-up path (the network-only training pass)."""
        if not (self.training and targets is None):
            return original_model(self, x, targets)
        fpn, head_module = self.backbone, self.head
        features = fpn.backbone(x)
        x2, x1, x0 = [features[f] for f in fpn.in_features]
        fpn_out0 = fpn.lateral_conv0(x0)
        f_out0 = fpn.C3_p4(torch.cat([fpn.upsample(fpn_out0), x1], 1))
        fpn_out1 = fpn.reduce_conv1(f_out0)
        pan_out2 = fpn.C3_p3(torch.cat([fpn.upsample(fpn_out1), x2], 1))
        pan_out2_made = ForkPoint((pan_out2,))
        pan_out1 = fpn.C3_n3(torch.cat([fpn.bu_conv2(pan_out2), fpn_out1], 1))
        pan_out0 = fpn.C3_n4(torch.cat([fpn.bu_conv1(pan_out1), fpn_out0], 1))
        level3 = pan_out2_made.start(lambda: head_level(head_module, 0, pan_out2))
        rest = side_by_side((pan_out1, pan_out0), lambda: head_level(head_module, 1, pan_out1),
                            lambda: head_level(head_module, 2, pan_out0))
        return torch.cat([level3.join()] + rest, 1)

    return {"blocks": [(yx.CSPLayer, csp)], "head": [(yx.YOLOXHead, head)], "levels": [(yx.LibreYOLOXModel, model)],
            "wgrad": [(torch.nn.Conv2d, conv_weight_gradient_on_side)]}


class Variant:
    """Installs one variant's forwards (and the streams switch) while active."""

    def __init__(self, patches, groups):
        self.replaced = [pair for group in groups for pair in patches[group]]
        self.originals = [(cls, cls.forward) for cls, _ in self.replaced]

    def __enter__(self):
        for cls, forward in self.replaced:
            cls.forward = forward
        ENABLED["value"] = any(cls is not torch.nn.Conv2d for cls, _ in self.replaced)

    def __exit__(self, *exc):
        for cls, forward in self.originals:
            cls.forward = forward
        ENABLED["value"] = False


def build(nn, family, size, device):
    model = build_model(nn, family, size)
    return model.to(device).train().to(memory_format=torch.channels_last)


def training_pass(model, images):
    if images.is_cuda:
        with torch.autocast("cuda", dtype=torch.float16):
            outputs = model(images)
    else:
        outputs = model(images)
    loss = sum(t.float().sum() for t in tensors_in(outputs) if t.requires_grad)
    loss.backward()
    if images.is_cuda:  # the join: nothing reads a weight gradient before it
        torch.cuda.current_stream().wait_stream(WEIGHT_GRAD_STREAM["stream"])
    return loss


def gradients(model, images):
    model.zero_grad(set_to_none=True)
    training_pass(model, images)
    grads = {name: p.grad.detach().clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return grads


def compare(reference, grads):
    """(bitwise equal gradients, gradients in the reference, largest relative difference); a
    parameter with a gradient on one side only counts as different by 1."""
    equal, largest = 0, 0.0
    for name in reference.keys() | grads.keys():
        a, b = reference.get(name), grads.get(name)
        if a is None or b is None:
            largest = max(largest, 1.0)
            continue
        equal += bool(torch.equal(a, b))
        largest = max(largest, ((a - b).abs().max() / a.abs().max().clamp_min(1e-30)).item())
    return equal, len(reference), largest


def captured(model, images, warmup=3):
    """The training pass captured in a CUDA graph (gradients allocated in the graph's pool)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            model.zero_grad(set_to_none=True)
            training_pass(model, images)
    torch.cuda.current_stream().wait_stream(stream)
    model.zero_grad(set_to_none=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        training_pass(model, images)
    return graph


def time_ms(run, repeats):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(repeats):
        run()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / repeats


def kernel_spans(graph, replays=3):
    """(start, end) in microseconds of every GPU activity of `replays` graph replays, from the
    profiler's raw (Kineto) events."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(replays):
            graph.replay()
        torch.cuda.synchronize()
    spans = []
    for event in prof.profiler.kineto_results.events():
        if event.device_type() == torch.autograd.DeviceType.CUDA:
            start = event.start_ns() / 1000 if hasattr(event, "start_ns") else event.start_us()
            duration = event.duration_ns() / 1000 if hasattr(event, "duration_ns") else event.duration_us()
            spans.append((start, start + duration))
    return spans


def overlap_ms(graph, replays=3):
    """(kernels' own time, GPU busy time) a replay, ms: their difference ran side by side."""
    try:
        spans = sorted(kernel_spans(graph, replays))
    except Exception as error:  # the numbers are diagnostics; the timing above stands without them
        print(f"overlap not measured: {error}")
        return float("nan"), float("nan")
    own = sum(end - start for start, end in spans)
    busy, reach = 0.0, float("-inf")
    for start, end in spans:
        if end > reach:
            busy += end - max(start, reach)
            reach = end
    return own / replays / 1000, busy / replays / 1000


def host_launch_ms(graph):
    """The host's time to launch one replay of an idle GPU's graph."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    graph.replay()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed * 1000


def measure_gpu(model, images, patches, variants, args):
    state = {k: v.clone() for k, v in model.state_dict().items()}
    graphs, grads, eager = {}, {}, {}
    for name, groups in variants.items():
        with Variant(patches, groups):
            model.load_state_dict(state)
            for _ in range(3):  # cuDNN's algorithm search settles for this variant's streams
                gradients(model, images)
            model.load_state_dict(state)
            grads[name] = gradients(model, images)
            eager[name] = time_ms(lambda: gradients(model, images), args.replays // 4 or 1)
            graphs[name] = captured(model, images)
    rounds = {name: [] for name in variants}
    launches = {name: [] for name in variants}
    for _ in range(args.rounds):  # interleaved, so drift in the shared machine hits every variant
        for name, graph in graphs.items():
            launches[name].append(host_launch_ms(graph))
            rounds[name].append(time_ms(graph.replay, args.replays))
    overlaps = {name: overlap_ms(graph) for name, graph in graphs.items()}
    baseline = statistics.median(rounds["original"])
    print(f"{args.family}-{args.size}, batch {args.batch}, {args.imgsz} px, forward + backward, float16, channels-last "
          f"({torch.cuda.get_device_name()}, torch {torch.__version__}); graph replay median of {args.rounds} "
          f"rounds of {args.replays}:")
    print("(kernels: their own time a replay; busy: the union of their spans; launch: the host's time to launch "
          "one replay)")
    print(f"{'variant':24} {'graph ms':>9} {'speedup':>8} {'kernels':>8} {'busy':>8} {'launch':>7} {'eager ms':>9}  "
          f"gradients vs original")
    for name in variants:
        equal, count, largest = compare(grads["original"], grads[name])
        median = statistics.median(rounds[name])
        own, busy = overlaps[name]
        print(f"{name:24} {median:9.3f} {baseline / median:8.3f} {own:8.2f} {busy:8.2f} "
              f"{statistics.median(launches[name]):7.3f} {eager[name]:9.2f}  "
              f"{equal} of {count} bitwise equal, largest relative difference {largest:.3g}")


def check_cpu(model, images, patches, variants):
    """The patched forwards compute what the originals do (branches run in turn on a CPU)."""
    state = {k: v.clone() for k, v in model.state_dict().items()}
    reference = None
    failed = False
    for name, groups in variants.items():
        with Variant(patches, groups):
            model.load_state_dict(state)
            torch.manual_seed(0)
            grads = gradients(model, images)
        if reference is None:
            reference = grads
            continue
        equal, count, largest = compare(reference, grads)
        print(f"{name}: {equal} of {count} gradients bitwise equal, largest relative difference {largest:.3g}")
        failed |= largest > 1e-5
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("family", choices=["yolo9", "yolox"])
    parser.add_argument("size")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check-cpu", action="store_true")
    parser.add_argument("--libreyolo", default=".reference/libreyolo", help="LibreYOLO's source (its libreyolo/ folder)")
    args = parser.parse_args()
    nn = load_family_nn(args.libreyolo, args.family)
    patches = patch_yolo9(nn) if args.family == "yolo9" else patch_yolox(nn)
    variants = {"original": [], "blocks": ["blocks"], "head": ["head"], "blocks+head": ["blocks", "head"],
                "blocks+levels": ["blocks", "levels"], "wgrad": ["wgrad"],
                "wgrad+blocks+levels": ["wgrad", "blocks", "levels"]}
    device = "cpu" if args.check_cpu else "cuda"
    torch.manual_seed(0)
    model = build(nn, args.family, args.size, device)
    if not args.check_cpu:  # CPU convolutions take no float16; the check runs in float32
        half_convolution_weights(model)
        WEIGHT_GRAD_STREAM["stream"] = torch.cuda.Stream(priority=0)  # the lowest
    images = torch.randn(args.batch, 3, args.imgsz, args.imgsz, device=device).to(memory_format=torch.channels_last)
    if args.check_cpu:
        return check_cpu(model, images, patches, variants)
    torch.backends.cudnn.benchmark = True
    measure_gpu(model, images, patches, variants, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
