#!/usr/bin/env python3
"""Where the GPU time of our YOLOv9 criterion goes (issue #21: after the fused assigner metric,
the loss's remaining float32 kernels). A Python transliteration of this repository's C++
criterion (plugins/yolo9/yolo9_loss.cpp, sdk/src/losses/task_aligned_assigner.cpp and
task_aligned_metric.cpp's composed path, box_ops.cpp, dfl.cpp), op for op, so that PyTorch's
profiler can name the op behind every kernel; not LibreYOLO's code.

Runs the criterion's forward and backward on random YOLOv9-t head outputs (batch 16, 640 px:
[16, 144, 80x80 | 40x40 | 20x20] float16, as autocast leaves them) and padded targets (48 rows,
10-40 boxes an image), and prints kernel time per stage (record_function ranges, and the backward
by autograd node) and the ops that launch the most kernel time.

Needs a CUDA machine. Usage: python3 tests/tools/yolo9_loss_attribution.py [--rows 48] [--steps 5]
"""
import argparse
import math
from collections import defaultdict

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

REG_MAX, CLASSES, STRIDES, EPS = 16, 80, (8, 16, 32), 1e-7
STAGES = ("prep", "assign.metric", "assign.select", "loss.cls", "loss.box", "loss.dfl")


def box_iou(a, b, kind="ciou", eps=EPS):
    a_low, a_high, b_low, b_high = a[..., :2], a[..., 2:], b[..., :2], b[..., 2:]
    a_size, b_size = (a_high - a_low).unbind(-1), (b_high - b_low).unbind(-1)
    overlap = (torch.minimum(a_high, b_high) - torch.maximum(a_low, b_low)).clamp_min(0).unbind(-1)
    inter = overlap[0] * overlap[1]
    union = a_size[0] * a_size[1] + b_size[0] * b_size[1] - inter
    iou = inter / (union + eps)
    enclosing = torch.maximum(a_high, b_high) - torch.minimum(a_low, b_low)
    diagonal = enclosing.pow(2).sum(-1) + eps
    centre = ((a_low + a_high) - (b_low + b_high)).pow(2).sum(-1) * 0.25
    diou = iou - centre / diagonal
    v = (torch.atan(a_size[0] / (a_size[1] + eps)) - torch.atan(b_size[0] / (b_size[1] + eps))).pow(2) * (4 / math.pi ** 2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return diou - alpha * v


def anchors(sizes, device):
    points, strides = [], []
    for (h, w), s in zip(sizes, STRIDES):
        ys, xs = (torch.arange(h, device=device) + 0.5) * s, (torch.arange(w, device=device) + 0.5) * s
        gy, gx = torch.meshgrid(ys, xs, indexing="ij")
        points.append(torch.stack([gx.flatten(), gy.flatten()], 1))
        strides.append(torch.full((h * w, 1), float(s), device=device))
    return torch.cat(points), torch.cat(strides)


def assign(scores, boxes, points, strides, labels, gt, valid, topk=10, max_distance=REG_MAX - 1.01):
    b, a = scores.shape[:2]
    m = gt.shape[1]
    with torch.no_grad(), record_function("assign.metric"):
        ax, ay = points[:, 0].view(1, 1, a), points[:, 1].view(1, 1, a)
        x1, y1, x2, y2 = (gt[..., i].unsqueeze(2) for i in range(4))
        left, right, top, bottom = ax - x1, x2 - ax, ay - y1, y2 - ay
        cand = torch.minimum(torch.minimum(left, right), torch.minimum(top, bottom)) >= 0
        far = torch.maximum(torch.maximum(left, right), torch.maximum(top, bottom)) / strides.view(1, 1, a)
        cand = cand & (far <= max_distance) & valid.unsqueeze(2)
        iou = box_iou(gt.unsqueeze(-2), boxes.unsqueeze(-3)).clamp(0, 1)
        score = scores.transpose(1, 2).gather(1, labels.unsqueeze(2).expand(b, m, a))
        metric = score.pow(0.5) * iou.pow(6.0) * valid.unsqueeze(2).float()
        candidate_metric = metric * cand.float()
    with torch.no_grad(), record_function("assign.select"):
        values, index = candidate_metric.topk(topk, -1)
        positive = torch.zeros_like(metric).scatter(-1, index, values) > 0
        best_value, best_index = metric.max(-1)
        orphan = (positive.sum(-1) == 0) & (best_value > 0)
        best_anchor = torch.zeros_like(positive).scatter_(-1, best_index.unsqueeze(-1), True)
        positive = torch.where(orphan.unsqueeze(2), best_anchor, positive)
        claims = positive.sum(1)
        best_gt = (iou * positive.float()).argmax(1)
        best_gt_mask = torch.zeros(b, a, m, dtype=torch.bool, device=gt.device).scatter_(-1, best_gt.unsqueeze(-1), True).transpose(1, 2)
        positive = torch.where((claims > 1).unsqueeze(1), best_gt_mask, positive)
        positive_f = positive.float()
        foreground = positive.any(1)
        gt_index = positive_f.argmax(1)
        assigned_labels = labels.gather(1, gt_index)
        assigned_boxes = gt.gather(1, gt_index.unsqueeze(2).expand(b, a, 4))
        metric_pos, iou_pos = metric * positive_f, iou * positive_f
        normalised = metric_pos / (metric_pos.amax(-1, keepdim=True) + 1e-9) * iou_pos.amax(-1, keepdim=True)
        anchor_score = normalised.sum(1)
        target = torch.zeros(b, a, CLASSES, device=gt.device).scatter_(-1, assigned_labels.unsqueeze(-1), 1.0)
        target = target * (anchor_score * foreground.float()).unsqueeze(2)
    return foreground, assigned_boxes, target


def criterion(outputs, gt_rows, counts, grid):
    points, strides, points_grid, cell_boxes = grid
    with record_function("prep"):
        p = torch.cat([o.float().flatten(2) for o in outputs], 2).transpose(1, 2)
        b, a = p.shape[:2]
        dist = p[..., : 4 * REG_MAX].reshape(b, a, 4, REG_MAX)
        logits = p[..., 4 * REG_MAX:]
        decoded = (F.softmax(dist.float(), -1) * torch.arange(REG_MAX, device=p.device, dtype=torch.float32)).sum(-1)
        boxes_grid = torch.cat([points_grid - decoded[..., :2], points_grid + decoded[..., 2:]], -1)
        boxes_px = boxes_grid * strides
        labels = gt_rows[..., 0].long().clamp(0, CLASSES - 1)
        centre, half = gt_rows[..., 1:3], gt_rows[..., 3:5] * 0.5
        gt = torch.cat([centre - half, centre + half], -1)
        valid = torch.arange(gt_rows.shape[1], device=p.device).unsqueeze(0) < counts.unsqueeze(1)
    foreground, assigned_boxes, target = assign(torch.sigmoid(logits.detach()), boxes_px.detach(), points, strides, labels,
                                                gt, valid)
    with record_function("loss.cls"):
        total = target.sum().clamp_min(1.0)
        weight = target.sum(2)
        cls = F.binary_cross_entropy_with_logits(logits, target, reduction="sum") / total
    with record_function("loss.box"):
        target_grid = torch.where(foreground.unsqueeze(2), assigned_boxes / strides, cell_boxes)
        box = ((1.0 - box_iou(boxes_grid, target_grid)) * weight).sum() / total
    with record_function("loss.dfl"):
        t = torch.cat([points_grid - target_grid[..., :2], target_grid[..., 2:] - points_grid], -1).clamp(0, REG_MAX - 1.01)
        t = t.clamp(0, REG_MAX - 1.01)  # dfl_loss clamps again, as the C++ does
        left = t.floor()
        log_p = F.log_softmax(dist.float(), -1)
        index = left.long().unsqueeze(-1)
        ce = -log_p.gather(-1, index).squeeze(-1) * (left + 1 - t) - log_p.gather(-1, index + 1).squeeze(-1) * (t - left)
        dfl = (ce.mean(2) * weight).sum() / total
    return box * 7.5 + cls * 0.5 + dfl * 1.5


def inputs(batch, rows, device):
    outputs = [torch.randn(batch, 4 * REG_MAX + CLASSES, s, s, device=device).half().requires_grad_() for s in (80, 40, 20)]
    counts = torch.randint(10, 41, (batch,), device=device).clamp_max(rows)
    xy, wh = torch.rand(batch, rows, 2, device=device) * 560 + 40, torch.rand(batch, rows, 2, device=device) * 150 + 4
    gt = torch.cat([torch.randint(0, CLASSES, (batch, rows, 1), device=device).float(), xy, wh], -1)
    gt = gt * (torch.arange(rows, device=device).view(1, rows, 1) < counts.view(batch, 1, 1))
    points, strides = anchors([(80, 80), (40, 40), (20, 20)], device)
    points_grid = points / strides
    cells = torch.cat([points_grid - 0.5, points_grid + 0.5], 1).unsqueeze(0)
    return outputs, gt, counts, (points, strides, points_grid, cells)


def report(prof, steps, stages=STAGES):
    ranges, node_time, op_time, op_count = defaultdict(float), defaultdict(float), defaultdict(float), defaultdict(int)
    for event in prof.events():
        if event.device_type.name != "CPU":
            continue
        if event.name in stages:
            ranges[event.name] += event.device_time_total
        if event.name.startswith("autograd::engine::evaluate_function: "):
            node_time[event.name.split(": ", 1)[1]] += event.device_time_total
        for kernel in event.kernels:
            op_time[event.name] += kernel.duration
            op_count[event.name] += 1
    total = sum(op_time.values())
    print(f"kernel time a step: {total / steps / 1000:.3f} ms ({sum(op_count.values()) / steps:.0f} kernels)")
    print("forward by stage (ms/step): " + ", ".join(f"{k} {v / steps / 1000:.3f}" for k, v in ranges.items()))
    print(f"backward: {sum(node_time.values()) / steps / 1000:.3f} ms/step, by node:")
    for name, us in sorted(node_time.items(), key=lambda item: -item[1])[:15]:
        print(f"  {name:40} {us / steps / 1000:8.3f}")
    print("ops by kernel time (ms/step, kernels/step):")
    for name, us in sorted(op_time.items(), key=lambda item: -item[1])[:30]:
        print(f"  {name:40} {us / steps / 1000:8.3f} {op_count[name] / steps:6.1f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=48)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    outputs, gt, counts, grid = inputs(16, args.rows, "cuda")
    for _ in range(3):
        criterion(outputs, gt, counts, grid).backward()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.steps):
            criterion(outputs, gt, counts, grid).backward()
        torch.cuda.synchronize()
    report(prof, args.steps)


if __name__ == "__main__":
    main()
