#!/usr/bin/env python3
"""Where the GPU time of our YOLOX criterion goes (issue #21: YOLOX-s's step after the network).
A Python transliteration of this repository's C++ criterion (plugins/yolox/yolox_loss.cpp,
simota.cpp, head.cpp's flatten_outputs and make_grid), op for op, so that PyTorch's profiler can
name the op behind every kernel; not LibreYOLO's code. The L1 term (the last epochs only) is off.
`--code before` is the criterion as of 04c8b61; `--code now` (the default) the twentieth session's
composed changes: the class cost's positive BCE at the gt's class only and expanded constant
targets, the conflicts resolved without a one-hot, the outputs cast once and split, not narrowed.

Runs the criterion's forward and backward on random YOLOX-s head outputs (batch 16, 640 px:
[16, 85, 80x80 | 40x40 | 20x20] float16, as autocast leaves them) and padded targets (48 rows,
10-40 boxes an image), and prints kernel time per stage (record_function ranges, and the backward
by autograd node) and the ops that launch the most kernel time. The report is
yolo9_loss_attribution.py's.

Needs a CUDA machine. Usage: python3 tests/tools/yolox_loss_attribution.py [--rows 48] [--steps 5] [--code before|now]
"""
import argparse
import math

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

from yolo9_loss_attribution import report

CLASSES, STRIDES = 80, (8, 16, 32)
CODE = "now"  # --code
STAGES = ("prep", "simota.prior", "simota.cost", "simota.select", "loss.iou", "loss.obj", "loss.cls")


def pairwise_iou_cxcywh(a, b):
    ax1, ax2 = a[..., 0] - a[..., 2] / 2, a[..., 0] + a[..., 2] / 2
    ay1, ay2 = a[..., 1] - a[..., 3] / 2, a[..., 1] + a[..., 3] / 2
    bx1, bx2 = b[..., 0] - b[..., 2] / 2, b[..., 0] + b[..., 2] / 2
    by1, by2 = b[..., 1] - b[..., 3] / 2, b[..., 1] + b[..., 3] / 2
    left, right = torch.maximum(ax1.unsqueeze(2), bx1.unsqueeze(1)), torch.minimum(ax2.unsqueeze(2), bx2.unsqueeze(1))
    top, bottom = torch.maximum(ay1.unsqueeze(2), by1.unsqueeze(1)), torch.minimum(ay2.unsqueeze(2), by2.unsqueeze(1))
    overlaps = torch.logical_and(left < right, top < bottom).to(a.dtype)
    inter = (right - left) * (bottom - top) * overlaps
    area_a, area_b = (a[..., 2] * a[..., 3]).unsqueeze(2), (b[..., 2] * b[..., 3]).unsqueeze(1)
    return inter / (area_a + area_b - inter)


def simota(pred_boxes, scores, grid, strides, gt, labels, valid, radius=1.5, topk=10):
    b, a = pred_boxes.shape[:2]
    m = gt.shape[1]
    with torch.no_grad(), record_function("simota.prior"):
        s = strides.reshape(1, 1, a)
        cx, cy = (grid[:, 0].reshape(1, 1, a) + 0.5) * s, (grid[:, 1].reshape(1, 1, a) + 0.5) * s
        r = s * radius
        gx, gy = gt[..., 0].unsqueeze(2), gt[..., 1].unsqueeze(2)
        inside = (cx - (gx - r)) > 0
        inside = inside & (((gx + r) - cx) > 0) & ((cy - (gy - r)) > 0) & (((gy + r) - cy) > 0) & valid.unsqueeze(2)
        candidates = inside.any(1)
        pair_valid = valid.unsqueeze(2) & candidates.unsqueeze(1)
    with torch.no_grad(), record_function("simota.cost"):
        zero = torch.zeros((), device=gt.device)
        ious = torch.where(pair_valid, pairwise_iou_cxcywh(gt, pred_boxes), zero)
        iou_cost = -torch.log(ious + 1e-8)
        if CODE == "before":
            negative = F.binary_cross_entropy(scores, torch.zeros_like(scores), reduction="none")
            positive = F.binary_cross_entropy(scores, torch.ones_like(scores), reduction="none")
            correction = (positive - negative).transpose(1, 2).gather(1, labels.unsqueeze(2).expand(b, m, a))
            negative_sum = negative.sum(2)
        else:
            zero_t, one_t = torch.zeros((), device=gt.device), torch.ones((), device=gt.device)
            negative_sum = F.binary_cross_entropy(scores, zero_t.expand_as(scores), reduction="none").sum(2)
            score = scores.transpose(1, 2).gather(1, labels.unsqueeze(2).expand(b, m, a))
            correction = (F.binary_cross_entropy(score, one_t.expand_as(score), reduction="none")
                          - F.binary_cross_entropy(score, zero_t.expand_as(score), reduction="none"))
        cost = negative_sum.unsqueeze(1) + correction + 3.0 * iou_cost + 1e6 * (~inside).float()
        cost = torch.where(pair_valid, cost, torch.full((), math.inf, device=gt.device))
    with torch.no_grad(), record_function("simota.select"):
        k = min(topk, a)
        dynamic_k = torch.where(valid, ious.topk(k, 2)[0].sum(2).int().clamp_min(1).long(), torch.zeros((), dtype=torch.long, device=gt.device))
        lowest_cost, lowest_index = cost.topk(k, 2, largest=False, sorted=True)
        rank = torch.arange(k, device=gt.device).reshape(1, 1, k)
        take = (rank < dynamic_k.unsqueeze(2)) & torch.isfinite(lowest_cost)
        matching = torch.zeros(b, m, a, device=gt.device).scatter_(2, lowest_index, take.float())
        takers = matching.sum(1)
        best_gt = cost.argmin(1)
        foreground = takers > 0
        if CODE == "before":
            best_onehot = (torch.arange(m, device=gt.device).reshape(1, m, 1) == best_gt.unsqueeze(1)).float()
            matching = torch.where((takers > 1).unsqueeze(1), best_onehot, matching)
            gt_index = torch.where(foreground, matching.argmax(1), torch.zeros((), dtype=torch.long, device=gt.device))
            iou = (matching * ious).sum(1)
        else:
            gt_index = torch.where(takers > 1, best_gt, matching.argmax(1))
            iou = torch.where(foreground, ious.gather(1, gt_index.unsqueeze(1)).squeeze(1), torch.zeros((), device=gt.device))
    return foreground, gt_index, iou


def iou_loss(pred, target):
    top_left = torch.maximum(pred[..., :2] - pred[..., 2:] / 2, target[..., :2] - target[..., 2:] / 2)
    bottom_right = torch.minimum(pred[..., :2] + pred[..., 2:] / 2, target[..., :2] + target[..., 2:] / 2)
    area_p, area_t = pred[..., 2] * pred[..., 3], target[..., 2] * target[..., 3]
    overlaps = (top_left < bottom_right).to(pred.dtype).prod(-1)
    extent = bottom_right - top_left
    inter = extent[..., 0] * extent[..., 1] * overlaps
    return 1 - (inter / (area_p + area_t - inter + 1e-16)).pow(2)


def criterion(outputs, gt_rows, counts, grid, strides):
    with record_function("prep"):
        if CODE == "before":
            p = torch.cat([o.float().flatten(2) for o in outputs], 2).transpose(1, 2)
            raw, obj, cls = p[..., :4], p[..., 4], p[..., 5:]
            xy, wh = raw[..., :2], raw[..., 2:]
        else:
            p = torch.cat([o.flatten(2) for o in outputs], 2).float().transpose(1, 2)
            raw, obj, cls = p.split([4, 1, CLASSES], 2)
            obj = obj.squeeze(2)
            xy, wh = raw.split([2, 2], 2)
        pred_boxes = torch.cat([(xy + grid) * strides, torch.exp(wh) * strides], 2)
        gt, labels = gt_rows[..., 1:5], gt_rows[..., 0].long().clamp(0, CLASSES - 1)
        valid = torch.arange(gt_rows.shape[1], device=p.device).unsqueeze(0) < counts.unsqueeze(1)
        scores = torch.sqrt(torch.sigmoid(cls.detach()) * torch.sigmoid(obj.detach()).unsqueeze(2))
    fg, index, iou = simota(pred_boxes, scores, grid, strides, gt, labels, valid)
    zero = torch.zeros((), device=p.device)
    fg_f = fg.float()
    num_fg = fg_f.sum().clamp_min(1.0)
    matched_box = gt.gather(1, index.unsqueeze(2).expand(-1, -1, 4))
    matched_label = labels.gather(1, index)
    with record_function("loss.iou"):
        safe = torch.where(fg.unsqueeze(2), pred_boxes, matched_box)
        loss_iou = torch.where(fg, iou_loss(safe, matched_box), zero).sum() / num_fg
    with record_function("loss.obj"):
        loss_obj = F.binary_cross_entropy_with_logits(obj, fg_f, reduction="sum") / num_fg
    with record_function("loss.cls"):
        target = (matched_label.unsqueeze(2) == torch.arange(CLASSES, device=p.device)).float() * iou.unsqueeze(2)
        bce = F.binary_cross_entropy_with_logits(cls, target, reduction="none")
        loss_cls = torch.where(fg.unsqueeze(2), bce, zero).sum() / num_fg
    return loss_iou * 5.0 + loss_obj + loss_cls


def inputs(batch, rows, device):
    outputs = [(torch.randn(batch, 5 + CLASSES, s, s, device=device) * 0.5).half().requires_grad_() for s in (80, 40, 20)]
    counts = torch.randint(10, 41, (batch,), device=device).clamp_max(rows)
    xy, wh = torch.rand(batch, rows, 2, device=device) * 560 + 40, torch.rand(batch, rows, 2, device=device) * 150 + 4
    gt = torch.cat([torch.randint(0, CLASSES, (batch, rows, 1), device=device).float(), xy, wh], -1)
    gt = gt * (torch.arange(rows, device=device).view(1, rows, 1) < counts.view(batch, 1, 1))
    cells, strides = [], []
    for size, stride in zip((80, 40, 20), STRIDES):
        ys, xs = torch.meshgrid(torch.arange(size, device=device), torch.arange(size, device=device), indexing="ij")
        cells.append(torch.stack([xs.flatten(), ys.flatten()], 1).float())
        strides.append(torch.full((size * size, 1), float(stride), device=device))
    return outputs, gt, counts, torch.cat(cells), torch.cat(strides)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=48)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--code", choices=("before", "now"), default="now")
    args = parser.parse_args()
    global CODE
    CODE = args.code
    torch.manual_seed(0)
    outputs, gt, counts, grid, strides = inputs(16, args.rows, "cuda")
    for _ in range(3):
        criterion(outputs, gt, counts, grid, strides).backward()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.steps):
            criterion(outputs, gt, counts, grid, strides).backward()
        torch.cuda.synchronize()
    report(prof, args.steps, STAGES)


if __name__ == "__main__":
    main()
