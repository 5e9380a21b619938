"""Random assignment problems shared by hungarian_reference.py (the unit-test fixture) and
hungarian_parity.py (the scipy-vs-C++ count): plain uniform costs, costs built like RT-DETR's
matcher builds them (focal class cost + L1 + GIoU of random boxes), tall and wide shapes, and
small-integer matrices, whose optimum is often not unique. Everything is float32, the dtype of
the cost LibreYOLO hands to scipy."""
import numpy as np
from scipy.optimize import linear_sum_assignment


def uniform(rng, rows, cols):
    return rng.random((rows, cols), dtype=np.float32)


def integers(rng, rows, cols, high=10):
    return rng.integers(0, high, size=(rows, cols)).astype(np.float32)


def _random_boxes(rng, count):
    """cx, cy, w, h in [0, 1] (normalised, as the matcher sees them)."""
    centre = rng.random((count, 2))
    size = 0.02 + 0.5 * rng.random((count, 2))
    return np.concatenate([centre, size], axis=1)


def _xyxy(b):
    return np.concatenate([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2], axis=1)


def _pairwise_giou(a, b):
    a, b = _xyxy(a), _xyxy(b)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(axis=2)
    union = area_a[:, None] + area_b[None, :] - inter
    lt_e = np.minimum(a[:, None, :2], b[None, :, :2])
    rb_e = np.maximum(a[:, None, 2:], b[None, :, 2:])
    enclose = (rb_e - lt_e).prod(axis=2)
    return inter / union - (enclose - union) / enclose


def detr_like(rng, queries, gts, classes=80, alpha=0.25, gamma=2.0):
    """The RT-DETR matcher's cost: 2 * focal class cost + 5 * L1 + 2 * (-GIoU), on random
    predictions; a few queries are placed near GT boxes so that the matrix has structure."""
    gt_boxes = _random_boxes(rng, gts)
    pred = _random_boxes(rng, queries)
    near = rng.random(queries) < 0.3
    if gts > 0:
        pick = rng.integers(0, gts, size=queries)
        pred[near] = gt_boxes[pick[near]] + 0.02 * rng.standard_normal((int(near.sum()), 4))
        pred[:, 2:] = np.abs(pred[:, 2:]) + 0.01
    prob = 1 / (1 + np.exp(-rng.normal(-4, 1.5, size=(queries, classes))))
    labels = rng.integers(0, classes, size=gts)
    p = prob[:, labels]
    neg = (1 - alpha) * p**gamma * -np.log(1 - p + 1e-8)
    pos = alpha * (1 - p) ** gamma * -np.log(p + 1e-8)
    l1 = np.abs(pred[:, None, :] - gt_boxes[None, :, :]).sum(axis=2)
    cost = 2 * (pos - neg) + 5 * l1 - 2 * _pairwise_giou(pred, gt_boxes)
    return cost.astype(np.float32)


def scipy_assignment(cost):
    """scipy's answer as one column per row (-1 for unassigned rows) and its float64 total."""
    rows, cols = linear_sum_assignment(cost.astype(np.float64))
    per_row = np.full(cost.shape[0], -1, dtype=np.int64)
    per_row[rows] = cols
    return per_row, float(cost.astype(np.float64)[rows, cols].sum())


def optimum_is_unique(cost):
    """True when no other assignment reaches the optimal total: forbidding any one chosen pair
    must make the optimum strictly worse. Exact for small integers (their sums are exact)."""
    per_row, total = scipy_assignment(cost)
    big = float(np.abs(cost).max() + 1) * (min(cost.shape) + 1)
    for r, c in enumerate(per_row):
        if c < 0:
            continue
        forbidden = cost.astype(np.float64).copy()
        forbidden[r, c] = big
        rows, cols = linear_sum_assignment(forbidden)
        if forbidden[rows, cols].sum() <= total:
            return False
    return True
