#!/usr/bin/env python3
"""Record LibreYOLO's RT-DETR building blocks on small fixed inputs, for the C++ SDK's tests.

Writes three fixtures to tests/fixtures/detr/ (checked by tests/unit/detr/test_*_parity.cpp):

  ms_deform_attn.json  MSDeformableAttention (models/rtdetr/nn.py): the freshly initialised
                       sampling-offset bias, then with fixed weights (stored in the file) the
                       output for 2-coordinate and 4-coordinate reference points (one case with
                       a value mask), and the input gradients of sum(output * upstream).
  denoising.json       get_contrastive_denoising_training_group (models/rtdetr/denoising.py) on
                       padded batches whose images have 0 or more boxes. LibreYOLO draws its noise
                       with torch.rand_like / torch.randint_like; the script replaces those two
                       functions while it runs with ones that hand out noise drawn beforehand from
                       a seeded generator, and stores that noise, so the C++ side can inject it.
  matcher_cost.json    HungarianMatcher's cost matrix per image (recorded where the matcher hands it
                       to scipy's linear_sum_assignment), the assignment, and SetCriterion's
                       loss_labels_vfl, loss_labels_focal and loss_boxes for that assignment, plus
                       torchvision's sigmoid_focal_loss element by element.

Nothing of LibreYOLO is re-implemented or copied here: its modules are loaded from the source tree
(without the package __init__, which does not import under old PyTorch) and only called.

    /usr/bin/python3 tests/python/rtdetr_ops_parity.py --libreyolo <LibreYOLO's package folder>
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

from deterministic_weights import pattern


def load_rtdetr(libreyolo_dir):
    """LibreYOLO's models/rtdetr modules nn and loss, importing nothing else of the package."""
    root = Path(libreyolo_dir)
    for name, folder in (("libreyolo", root), ("libreyolo.models", root / "models"),
                         ("libreyolo.models.rtdetr", root / "models" / "rtdetr")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    nn = importlib.import_module("libreyolo.models.rtdetr.nn")
    denoising = importlib.import_module("libreyolo.models.rtdetr.denoising")
    loss = importlib.import_module("libreyolo.models.rtdetr.loss")
    return nn, denoising, loss


def tensor_json(tensor):
    """Shape and flat values; %.9g keeps every float32 exactly."""
    t = tensor.detach()
    if t.dtype == torch.bool:
        t = t.to(torch.int64)
    values = t.reshape(-1).tolist()
    if t.is_floating_point():
        values = [float("%.9g" % v) for v in values]
    return {"shape": list(t.shape), "values": values}


def spread(count, seed, low, high):
    """pattern() mapped from [-1, 1) to [low, high)."""
    return low + (high - low) * 0.5 * (pattern(count, seed) + 1.0)


# --------------------------------------------------------------------------------------------
# Deformable attention
# --------------------------------------------------------------------------------------------

ATTN = {"embed_dim": 8, "num_heads": 2, "num_levels": 2, "num_points": 3}
ATTN_SHAPES = [[4, 5], [2, 3]]
ATTN_BATCH, ATTN_QUERIES = 2, 3


def attention_weights_fill(module):
    """Weights of ordinary size instead of the zero init, so offsets and attention are not trivial."""
    with torch.no_grad():
        for index, (key, tensor) in enumerate(sorted(module.state_dict().items())):
            scale = 0.1 if key.endswith("bias") else 0.5
            values = scale * pattern(tensor.numel(), 300 + index).view(tensor.shape)
            if key == "sampling_offsets.bias":
                values = values + tensor  # keep the grid pattern: points spread around the reference
            tensor.copy_(values)


def attention_case(module, name, reference, use_mask, seed):
    batch, queries = ATTN_BATCH, ATTN_QUERIES
    dim = ATTN["embed_dim"]
    positions = sum(h * w for h, w in ATTN_SHAPES)
    query = pattern(batch * queries * dim, seed).view(batch, queries, dim).requires_grad_()
    value = pattern(batch * positions * dim, seed + 1).view(batch, positions, dim).requires_grad_()
    reference = reference.clone().requires_grad_()
    mask = (pattern(batch * positions, seed + 2) > -0.5).view(batch, positions) if use_mask else None
    output = module(query, reference, value, ATTN_SHAPES, mask)
    upstream = pattern(output.numel(), seed + 3).view(output.shape)
    (output * upstream).sum().backward()
    case = {"name": name, "query": tensor_json(query), "value": tensor_json(value),
            "reference_points": tensor_json(reference), "upstream": tensor_json(upstream),
            "output": tensor_json(output), "grad_query": tensor_json(query.grad),
            "grad_value": tensor_json(value.grad), "grad_reference_points": tensor_json(reference.grad)}
    if mask is not None:
        case["value_mask"] = tensor_json(mask)
    return case


def deform_attention_fixture(nn):
    torch.manual_seed(0)
    module = nn.MSDeformableAttention(**ATTN)
    initial_bias = module.sampling_offsets.bias.detach().clone()
    attention_weights_fill(module)
    batch, queries, levels = ATTN_BATCH, ATTN_QUERIES, ATTN["num_levels"]
    points = spread(batch * queries * levels * 2, 400, 0.05, 0.95).view(batch, queries, levels, 2)
    centres = spread(batch * queries * 2, 401, 0.2, 0.8).view(batch, queries, 1, 2)
    sizes = spread(batch * queries * 2, 402, 0.1, 0.6).view(batch, queries, 1, 2)
    boxes = torch.cat([centres, sizes], -1)
    cases = [attention_case(module, "points2", points, False, 500),
             attention_case(module, "boxes4_mask", boxes, True, 510)]
    return {"config": ATTN, "spatial_shapes": ATTN_SHAPES, "initial_sampling_offsets_bias": tensor_json(initial_bias),
            "weights": {key: tensor_json(value) for key, value in module.state_dict().items()}, "cases": cases}


# --------------------------------------------------------------------------------------------
# Contrastive denoising
# --------------------------------------------------------------------------------------------

DN_CLASSES, DN_DIM, DN_QUERIES = 4, 6, 5
DN_CASES = [
    # name, boxes per image, num_denoising: 2 groups over max_gt 3; 1 group because 3 < max_gt 5.
    ("groups2", [2, 0, 3], 7),
    ("group1", [5, 1], 3),
]


class RecordedNoise:
    """Stands in for torch.rand_like and torch.randint_like: hands out pre-drawn tensors in the
    order LibreYOLO asks for them (label uniform, new label, box sign bits, box uniform)."""

    def __init__(self, tensors):
        self.queue = list(tensors)

    def next(self, like, dtype):
        tensor = self.queue.pop(0)
        assert tuple(tensor.shape) == tuple(like.shape), f"noise {tuple(tensor.shape)} for {tuple(like.shape)}"
        return tensor.to(dtype if dtype is not None else like.dtype)

    def rand_like(self, like, dtype=None, **_):
        return self.next(like, dtype)

    def randint_like(self, like, low, high=None, dtype=None, **_):
        return self.next(like, dtype)


def padded_targets(counts, seed):
    width = max(counts) + 1  # one padding column more than needed: the C++ side must narrow
    labels = torch.zeros(len(counts), width, dtype=torch.int64)
    boxes = torch.zeros(len(counts), width, 4)
    targets = []
    for image, n in enumerate(counts):
        image_labels = (spread(n, seed + image, 0, DN_CLASSES).floor().to(torch.int64) if n else
                        torch.zeros(0, dtype=torch.int64))
        centre = spread(n * 2, seed + 10 + image, 0.2, 0.8).view(n, 2)
        size = spread(n * 2, seed + 20 + image, 0.05, 0.5).view(n, 2)
        image_boxes = torch.cat([centre, size], -1)
        labels[image, :n] = image_labels
        boxes[image, :n] = image_boxes
        targets.append({"labels": image_labels, "boxes": image_boxes})
    return targets, labels, boxes


def denoising_case(denoising, embed, name, counts, num_denoising, seed):
    targets, labels, boxes = padded_targets(counts, seed)
    max_gt = max(counts)
    groups = max(1, num_denoising // max_gt)
    total = 2 * max_gt * groups
    batch = len(counts)
    generator = torch.Generator().manual_seed(seed)
    noise = {"label_uniform": torch.rand(batch, total, generator=generator),
             "new_label": torch.randint(0, DN_CLASSES, (batch, total), generator=generator),
             "box_sign_bits": torch.randint(0, 2, (batch, total, 4), generator=generator).float(),
             "box_uniform": torch.rand(batch, total, 4, generator=generator)}
    recorded = RecordedNoise(noise.values())
    saved = torch.rand_like, torch.randint_like
    torch.rand_like, torch.randint_like = recorded.rand_like, recorded.randint_like
    try:
        query_class, query_bbox, attn_mask, meta = denoising.get_contrastive_denoising_training_group(
            targets, DN_CLASSES, DN_QUERIES, embed, num_denoising=num_denoising, label_noise_ratio=0.5,
            box_noise_scale=1.0)
    finally:
        torch.rand_like, torch.randint_like = saved
    assert not recorded.queue, "LibreYOLO drew less noise than recorded"
    return {"name": name, "counts": counts, "num_denoising": num_denoising, "gt_labels": tensor_json(labels),
            "gt_boxes": tensor_json(boxes), "label_uniform": tensor_json(noise["label_uniform"]),
            "new_label": tensor_json(noise["new_label"]),
            "box_sign": tensor_json(noise["box_sign_bits"] * 2.0 - 1.0),
            "box_uniform": tensor_json(noise["box_uniform"]), "class_embed": tensor_json(query_class),
            "bbox_unact": tensor_json(query_bbox), "attn_mask": tensor_json(attn_mask),
            "num_group": meta["dn_num_group"], "num_split": meta["dn_num_split"],
            "positive_idx": [idx.tolist() for idx in meta["dn_positive_idx"]]}


def denoising_fixture(denoising):
    embed = torch.nn.Embedding(DN_CLASSES + 1, DN_DIM, padding_idx=DN_CLASSES)
    with torch.no_grad():
        embed.weight.copy_(pattern(embed.weight.numel(), 600).view(embed.weight.shape))
    cases = [denoising_case(denoising, embed, name, counts, num, 700 + 50 * i)
             for i, (name, counts, num) in enumerate(DN_CASES)]
    return {"num_classes": DN_CLASSES, "num_queries": DN_QUERIES, "label_noise_ratio": 0.5, "box_noise_scale": 1.0,
            "embed_weight": tensor_json(embed.weight), "cases": cases}


# --------------------------------------------------------------------------------------------
# Matching cost and losses
# --------------------------------------------------------------------------------------------

COST_CLASSES, COST_QUERIES, COST_COUNTS = 3, 5, [2, 3]


def matcher_fixture(loss):
    batch, queries = len(COST_COUNTS), COST_QUERIES
    logits = 2.0 * pattern(batch * queries * COST_CLASSES, 800).view(batch, queries, COST_CLASSES)
    centres = spread(batch * queries * 2, 801, 0.2, 0.8).view(batch, queries, 2)
    sizes = spread(batch * queries * 2, 802, 0.1, 0.5).view(batch, queries, 2)
    pred_boxes = torch.cat([centres, sizes], -1)
    width = max(COST_COUNTS)
    labels = torch.zeros(batch, width, dtype=torch.int64)
    boxes = torch.zeros(batch, width, 4)
    targets = []
    for image, n in enumerate(COST_COUNTS):
        image_labels = spread(n, 810 + image, 0, COST_CLASSES).floor().to(torch.int64)
        image_boxes = torch.cat([spread(n * 2, 820 + image, 0.2, 0.8).view(n, 2),
                                 spread(n * 2, 830 + image, 0.1, 0.5).view(n, 2)], -1)
        labels[image, :n], boxes[image, :n] = image_labels, image_boxes
        targets.append({"labels": image_labels, "boxes": image_boxes})

    blocks = []
    real_assignment = loss.linear_sum_assignment

    def recording_assignment(cost):
        blocks.append(torch.as_tensor(cost).clone())
        return real_assignment(cost)

    loss.linear_sum_assignment = recording_assignment
    try:
        criterion = loss.RTDETRLoss(num_classes=COST_CLASSES, use_vfl=True)
        outputs = {"pred_logits": logits, "pred_boxes": pred_boxes}
        indices = criterion.matcher(outputs, targets)
    finally:
        loss.linear_sum_assignment = real_assignment
    num_boxes = float(sum(COST_COUNTS))
    vfl = criterion.loss_labels_vfl(outputs, targets, indices, num_boxes)["loss_vfl"]
    focal = criterion.loss_labels_focal(outputs, targets, indices, num_boxes)["loss_focal"]
    box_losses = criterion.loss_boxes(outputs, targets, indices, num_boxes)
    one_hot = torch.nn.functional.one_hot(labels[:, :1].expand(batch, queries), COST_CLASSES).float()
    import torchvision
    focal_elements = torchvision.ops.sigmoid_focal_loss(logits, one_hot, 0.25, 2.0, reduction="none")
    return {"num_classes": COST_CLASSES, "counts": COST_COUNTS, "weights": {"class": 2, "bbox": 5, "giou": 2},
            "alpha": 0.25, "gamma": 2.0, "criterion_alpha": criterion.alpha, "criterion_gamma": criterion.gamma,
            "logits": tensor_json(logits), "pred_boxes": tensor_json(pred_boxes), "gt_labels": tensor_json(labels),
            "gt_boxes": tensor_json(boxes), "cost_blocks": [tensor_json(block) for block in blocks],
            "assignment": [[src.tolist(), tgt.tolist()] for src, tgt in indices], "num_boxes": num_boxes,
            "loss_vfl": vfl.item(), "loss_focal": focal.item(), "loss_bbox": box_losses["loss_bbox"].item(),
            "loss_giou": box_losses["loss_giou"].item(), "focal_targets": tensor_json(one_hot),
            "sigmoid_focal_loss": tensor_json(focal_elements)}


def write(path, content):
    with open(path, "w") as f:
        json.dump(content, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {path.stat().st_size} bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"),
                        help="LibreYOLO's package folder (the one holding models/rtdetr/)")
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "detr"))
    args = parser.parse_args()
    nn, denoising, loss = load_rtdetr(args.libreyolo)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write(out / "ms_deform_attn.json", deform_attention_fixture(nn))
    write(out / "denoising.json", denoising_fixture(denoising))
    write(out / "matcher_cost.json", matcher_fixture(loss))


if __name__ == "__main__":
    main()
