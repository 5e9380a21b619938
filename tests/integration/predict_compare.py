#!/usr/bin/env python3
"""predict's label files against val's COCO predictions for the same weights and thresholds.

    predict_compare.py VAL_PREDICTIONS_JSON PREDICT_JSON LABELS_DIR

Images are matched by file name (val's ground_truth.json maps its ids to file names and its
category ids to class indices); predict's predictions.json gives each file's size, which turns the
normalised label lines back into pixels. Every image must have the same detections in both:
the same count and, matched one to one, the same class, a score within 2e-4 and corners within
0.05 px (val writes 3 decimals of pixels and 5 of scores, the labels 6 significant digits).
Exits 1 with what differs. Standard library only.
"""
import json
import os
import sys


def val_boxes(path):
    """val's detections by image file name, with class indices. val names images and classes by
    COCO's own ids when the images are COCO's (image 139, category 1 = person) and by index
    otherwise; ground_truth.json beside its predictions says which id is which file and class."""
    truth = json.load(open(os.path.join(os.path.dirname(path), "ground_truth.json")))
    file_of = {image["id"]: image["file_name"] for image in truth["images"]}
    class_of = {category["id"]: index for index, category in enumerate(truth["categories"])}
    per_image = {}
    for d in json.load(open(path)):
        x, y, w, h = d["bbox"]
        box = (class_of[d["category_id"]], d["score"], (x, y, x + w, y + h))
        per_image.setdefault(os.path.basename(file_of[d["image_id"]]), []).append(box)
    return per_image


def label_boxes(path, width, height):
    boxes = []
    for line in open(path):
        c, cx, cy, w, h, s = line.split()
        cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        boxes.append((int(c), float(s), (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return boxes


def same(a, b):
    return a[0] == b[0] and abs(a[1] - b[1]) <= 2e-4 and all(abs(p - q) <= 0.05 for p, q in zip(a[2], b[2]))


def compare(index, theirs, ours):
    if len(theirs) != len(ours):
        return f"image {index}: val has {len(theirs)} detections, predict {len(ours)}"
    unmatched = list(theirs)
    for box in sorted(ours, key=lambda b: -b[1]):
        match = next((i for i, t in enumerate(unmatched) if same(t, box)), None)
        if match is None:
            return f"image {index}: predict's {box} has no equal in val's detections"
        unmatched.pop(match)
    return None


def main():
    val, predicted, labels = sys.argv[1:4]
    theirs = val_boxes(val)
    images = json.load(open(predicted))
    files = [image["file"] for image in images]
    if files != sorted(files):
        return print("FAILED: predictions.json is not in sorted file order") or 1
    total = 0
    for index, image in enumerate(images):
        stem = os.path.splitext(os.path.basename(image["file"]))[0]
        ours = label_boxes(os.path.join(labels, stem + ".txt"), image["width"], image["height"])
        if len(ours) != len(image["detections"]):
            return print(f"FAILED: {stem}.txt has {len(ours)} lines, predictions.json {len(image['detections'])}") or 1
        problem = compare(index, theirs.get(os.path.basename(image["file"]), []), ours)
        if problem:
            return print("FAILED: " + problem) or 1
        total += len(ours)
    if total == 0:
        return print("FAILED: no detection at all: nothing was compared") or 1
    print(f"ok: predict's {total} boxes in {len(images)} images equal val's (class, score, corners)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
