#!/usr/bin/env python3
"""Record LibreYOLO's D-FINE criterion (models/dfine/loss.py DFINECriterion with the matcher and
weights of its DFINETrainer) on random decoder outputs, for tests/unit/dfine/test_dfine_criterion_parity.cpp.

Writes tests/fixtures/dfine/criterion_reference.json: the inputs (every tensor of the dict the
criterion takes, small: 3 images, 10 queries, 5 classes, 3 decoder layers, reg_max 32) and, per
case, every named loss LibreYOLO returns:
  no_dn       targets with 3, 0 and 2 boxes; no denoising outputs. Also the matcher's indices
              of every matched set and the GO-LSD union.
  dn          the same with denoising outputs (2 groups) and dn_meta.
  nan_logits  no_dn with one query of the pre set whose logits are all NaN (the matcher turns
              its NaN costs into 1.0; the NaN loss terms become 0). A NaN box would not do:
              LibreYOLO's GIoU asserts x2 >= x1 and stops.
  no_targets  no image has a box; denoising outputs as LibreYOLO's decoder makes them then
              (empty tensors and dn_num_group 0).
Values are rounded to 4 decimals before LibreYOLO sees them, so that the JSON holds them exactly.
LibreYOLO's modules are loaded from its source tree (without the package __init__, which does
not import under old PyTorch) and only called.

    PYTHONPATH= /usr/bin/python3 tests/python/dfine_criterion_reference.py --libreyolo .reference/libreyolo
"""

import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import torch

BATCH, QUERIES, CLASSES, LAYERS, REG_MAX, GROUPS = 3, 10, 5, 3, 32, 2
# Per image: (class, cx, cy, w, h) normalised; image 1 has no box.
TARGETS = [
    [(1, 0.30, 0.40, 0.20, 0.30), (3, 0.70, 0.60, 0.25, 0.15), (0, 0.52, 0.25, 0.08, 0.12)],
    [],
    [(2, 0.45, 0.55, 0.50, 0.40), (4, 0.15, 0.80, 0.10, 0.20)],
]
NAN_LOGITS = {"set": "pre", "image": 0, "query": 2}


def load_modules(libreyolo_dir):
    root = Path(libreyolo_dir)
    for name, folder in (("libreyolo", root), ("libreyolo.models", root / "models"),
                         ("libreyolo.models.dfine", root / "models" / "dfine")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    return (importlib.import_module("libreyolo.models.dfine.loss"),
            importlib.import_module("libreyolo.models.dfine.matcher"))


def rounded(t):
    return torch.round(t * 1e4) / 1e4


class Draw:
    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def normal(self, *shape, scale=1.0):
        return rounded(torch.randn(*shape, generator=self.g) * scale)

    def uniform(self, *shape, low=0.0, high=1.0):
        return rounded(low + (high - low) * torch.rand(*shape, generator=self.g))


def boxes_near(draw, targets, queries, jitter):
    """[B, Q, 4]: each image's first queries near its GT boxes (so matches and IoUs mean
    something), the rest anywhere."""
    out = torch.cat([draw.uniform(BATCH, queries, 2, low=0.15, high=0.85),
                     draw.uniform(BATCH, queries, 2, low=0.05, high=0.45)], -1)
    for b, rows in enumerate(targets):
        for j, row in enumerate(rows):
            for q in (j, j + len(rows)):
                if q < queries:
                    out[b, q] = torch.tensor(row[1:]) * (1 + draw.normal(4, scale=jitter))
    return rounded(out)


def decoder_inputs(draw, targets, queries):
    """The decoder-layer tensors of a query group: logits, boxes, corners, refs, [L, B, Q, ...]."""
    base = boxes_near(draw, targets, queries, 0.15)
    boxes = torch.stack([rounded(base * (1 + draw.normal(BATCH, queries, 4, scale=0.08))) for _ in range(LAYERS)])
    # Layers' reference points differ here, unlike D-FINE's decoder's: the C++ side must take
    # the one LibreYOLO's cache takes.
    refs = torch.stack([rounded(base * (1 + draw.normal(BATCH, queries, 4, scale=0.1))) for _ in range(LAYERS)])
    return {"logits": draw.normal(LAYERS, BATCH, queries, CLASSES, scale=2.0), "boxes": boxes,
            "corners": draw.normal(LAYERS, BATCH, queries, 4 * (REG_MAX + 1), scale=1.5), "refs": refs}


def make_inputs():
    draw = Draw(20260612)
    t = {}
    dec = decoder_inputs(draw, TARGETS, QUERIES)
    for k, v in dec.items():
        t["dec_" + k] = v
    t["dec_boxes"][0, 0, 5, 2] = -0.05  # an inverted box: D-FINE clamps its width at 0
    for name in ("pre", "enc"):
        t[name + "_logits"] = draw.normal(BATCH, QUERIES, CLASSES, scale=2.0)
        t[name + "_boxes"] = boxes_near(draw, TARGETS, QUERIES, 0.2)
    t["enc_boxes"][1, 3, 3] = -0.02
    max_gt = max(len(r) for r in TARGETS)
    dn_queries = 2 * max_gt * GROUPS
    # Denoising queries: per group max_gt positives (near their GT) then max_gt negatives.
    dn_targets = [[rows[j] if j < len(rows) else None for j in range(max_gt)] for rows in TARGETS]
    dn_rows = [[(r if r else (0, 0.5, 0.5, 0.3, 0.3)) for r in rows] * 2 * GROUPS for rows in dn_targets]
    dn = decoder_inputs(draw, dn_rows, dn_queries)
    for k, v in dn.items():
        t["dn_" + k] = v
    t["dn_pre_logits"] = draw.normal(BATCH, dn_queries, CLASSES, scale=2.0)
    t["dn_pre_boxes"] = boxes_near(draw, dn_rows, dn_queries, 0.2)
    matched = torch.full((BATCH, dn_queries), -1, dtype=torch.int64)
    for b, rows in enumerate(TARGETS):
        for g in range(GROUPS):
            for j in range(len(rows)):
                matched[b, g * 2 * max_gt + j] = j
    t["dn_matched_gt"] = matched
    t["up"] = torch.tensor([0.5])
    t["reg_scale"] = torch.tensor([4.0])
    return t


def target_list(rows_per_image):
    out = []
    for rows in rows_per_image:
        r = torch.tensor(rows, dtype=torch.float32).reshape(-1, 5)
        out.append({"labels": r[:, 0].long(), "boxes": r[:, 1:5].contiguous()})
    return out


def layer_dicts(t, prefix, layers):
    last = layers - 1
    return [{"pred_logits": t[prefix + "logits"][i], "pred_boxes": t[prefix + "boxes"][i],
             "pred_corners": t[prefix + "corners"][i], "ref_points": t[prefix + "refs"][i],
             "teacher_corners": t[prefix + "corners"][last], "teacher_logits": t[prefix + "logits"][last]}
            for i in range(layers)]


def criterion_outputs(t, with_dn, empty_dn=False):
    """The dict LibreYOLO's decoder returns in training (models/dfine/decoder.py, forward)."""
    last = LAYERS - 1
    out = {"pred_logits": t["dec_logits"][last], "pred_boxes": t["dec_boxes"][last],
           "pred_corners": t["dec_corners"][last], "ref_points": t["dec_refs"][last],
           "up": t["up"], "reg_scale": t["reg_scale"],
           "aux_outputs": layer_dicts(t, "dec_", LAYERS)[:-1],
           "enc_aux_outputs": [{"pred_logits": t["enc_logits"], "pred_boxes": t["enc_boxes"]}],
           "pre_outputs": {"pred_logits": t["pre_logits"], "pred_boxes": t["pre_boxes"]},
           "enc_meta": {"class_agnostic": False}}
    if with_dn:
        source = {k: (v[..., :0, :] if empty_dn and k.startswith("dn_") and k != "dn_matched_gt" else v)
                  for k, v in t.items()}
        out["dn_outputs"] = layer_dicts(source, "dn_", LAYERS)
        out["dn_pre_outputs"] = {"pred_logits": source["dn_pre_logits"], "pred_boxes": source["dn_pre_boxes"]}
        if empty_dn:
            out["dn_meta"] = {"dn_positive_idx": None, "dn_num_group": 0, "dn_num_split": [0, QUERIES]}
        else:
            positives = tuple(torch.nonzero(row >= 0)[:, 0] for row in t["dn_matched_gt"])
            out["dn_meta"] = {"dn_positive_idx": positives, "dn_num_group": GROUPS,
                              "dn_num_split": [t["dn_logits"].shape[2], QUERIES]}
    return out


def make_criterion(loss, matcher):
    m = matcher.HungarianMatcher(weight_dict={"cost_class": 2.0, "cost_bbox": 5.0, "cost_giou": 2.0},
                                 use_focal_loss=True, alpha=0.25, gamma=2.0)
    return loss.DFINECriterion(matcher=m, weight_dict={"loss_vfl": 1.0, "loss_bbox": 5.0, "loss_giou": 2.0,
                                                       "loss_fgl": 0.15, "loss_ddf": 1.5},
                               losses=["vfl", "boxes", "local"], alpha=0.75, gamma=2.0, num_classes=CLASSES,
                               reg_max=REG_MAX)


def go_by_rule(sets, batch, queries):
    """Most frequent GT per query, ties to the lowest GT: what the C++ union_of_matches does."""
    out = []
    for b in range(batch):
        votes = {}
        for s in sets:
            for q, g in zip(s[b][0].tolist(), s[b][1].tolist()):
                votes.setdefault(q, {}).setdefault(g, 0)
                votes[q][g] += 1
        out.append({q: min(v, key=lambda g: (-v[g], g)) for q, v in votes.items()})
    return out


def matches(criterion, t, targets):
    outputs = criterion_outputs(t, with_dn=False)
    sets = [outputs] + outputs["aux_outputs"] + [outputs["pre_outputs"]] + outputs["enc_aux_outputs"]
    indices = [criterion.matcher(s, targets)["indices"] for s in sets]
    go = criterion._get_go_indices(indices[0], indices[1:])
    go_maps = [dict(zip(r.tolist(), c.tolist())) for r, c in go]
    assert go_maps == go_by_rule(indices, BATCH, QUERIES), "GO union: LibreYOLO's tie order is not the stable one"
    return {"sets": [[[i.tolist(), j.tolist()] for i, j in s] for s in indices],
            "go": [[r.tolist(), c.tolist()] for r, c in go]}


def losses(criterion, outputs, targets):
    return {k: float(v) for k, v in criterion(outputs, targets).items()}


def tensor_json(t):
    values = t.reshape(-1).tolist()
    if t.is_floating_point():
        values = [round(v, 4) for v in values]
    return {"shape": list(t.shape), "values": values}


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libreyolo", default=str(root / ".reference" / "libreyolo"))
    parser.add_argument("--out", default=str(root / "tests" / "fixtures" / "dfine" / "criterion_reference.json"))
    args = parser.parse_args()
    loss, matcher = load_modules(args.libreyolo)
    criterion = make_criterion(loss, matcher)
    t = make_inputs()
    targets = target_list(TARGETS)
    nan_inputs = {k: v.clone() for k, v in t.items()}
    nan_inputs[NAN_LOGITS["set"] + "_logits"][NAN_LOGITS["image"], NAN_LOGITS["query"]] = float("nan")
    cases = {
        "no_dn": losses(criterion, criterion_outputs(t, False), targets),
        "dn": losses(criterion, criterion_outputs(t, True), targets),
        "nan_logits": losses(criterion, criterion_outputs(nan_inputs, False), targets),
        "no_targets": losses(criterion, criterion_outputs(t, True, empty_dn=True), target_list([[], [], []])),
    }
    entry = {"batch": BATCH, "queries": QUERIES, "num_classes": CLASSES, "layers": LAYERS, "reg_max": REG_MAX,
             "groups": GROUPS, "targets": TARGETS, "nan_logits": NAN_LOGITS, "torch": torch.__version__,
             "inputs": {k: tensor_json(v) for k, v in t.items()},
             "matches": matches(criterion, t, targets), "cases": cases}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(entry, separators=(",", ":")) + "\n")
    print(f"{out}: {out.stat().st_size} bytes")
    for name, terms in cases.items():
        print(f"  {name}: {len(terms)} terms, total {sum(terms.values()):.6f}")


if __name__ == "__main__":
    main()
