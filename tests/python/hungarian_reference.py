"""Writes tests/fixtures/detr/hungarian_scipy.json: random float32 cost matrices of varied
shapes and scipy.optimize.linear_sum_assignment's answer for each, which the SDK's Hungarian
solver must reproduce (tests/unit/detr/test_hungarian.cpp).

    /usr/bin/python3 tests/python/hungarian_reference.py [OUTPUT]

Each case stores the cost row-major as the shortest decimal that reads back (decimal -> double
-> float32, as the C++ test reads it) as the same float32, scipy's column per row (-1 when
unassigned), the float64 total, and whether the optimum is unique (the test requires identical
indices only then; otherwise the same total)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hungarian_cases as cases  # noqa: E402

SEED = 20240611


def float_text(x):
    text = np.format_float_positional(np.float32(x), unique=True, trim="-")
    if np.float32(float(text)) != np.float32(x):
        text = "%.9g" % float(x)
        assert np.float32(float(text)) == np.float32(x), text
    return text


def plan(rng):
    """(name, matrix) pairs: 310 cases."""
    out = []
    for i in range(150):
        out.append(("uniform", cases.uniform(rng, int(rng.integers(1, 13)), int(rng.integers(1, 13)))))
    for i in range(25):
        out.append(("tall", cases.uniform(rng, int(rng.integers(100, 301)), int(rng.integers(1, 9)))))
    for i in range(25):
        out.append(("wide", cases.uniform(rng, int(rng.integers(1, 9)), int(rng.integers(10, 41)))))
    out.append(("wide 5x12", cases.uniform(rng, 5, 12)))
    out.append(("tall 300x5", cases.detr_like(rng, 300, 5)))
    for i in range(50):
        out.append(("detr", cases.detr_like(rng, int(rng.integers(20, 61)), int(rng.integers(1, 16)))))
    for g in (20, 50):
        out.append(("detr 300", cases.detr_like(rng, 300, g)))
    for i in range(45):
        out.append(("integers", cases.integers(rng, int(rng.integers(1, 8)), int(rng.integers(1, 8)))))
    out.append(("all equal", np.full((4, 6), 3.0, dtype=np.float32)))
    out.append(("large offset", (1e6 + cases.integers(rng, 6, 4)).astype(np.float32)))
    out.append(("negative", -cases.uniform(rng, 7, 7) * 50))
    return out


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "fixtures", "detr", "hungarian_scipy.json")
    rng = np.random.default_rng(SEED)
    records = []
    for name, cost in plan(rng):
        per_row, total = cases.scipy_assignment(cost)
        fields = {
            "name": name,
            "rows": cost.shape[0],
            "cols": cost.shape[1],
            "unique": cases.optimum_is_unique(cost),
            "total": total,
            "assignment": [int(c) for c in per_row],
        }
        # The cost is written by hand: json.dumps would print each float32 as a 17-digit double.
        values = ",".join(float_text(x) for x in cost.ravel())
        records.append((fields, json.dumps(fields)[:-1] + ', "cost": [' + values + "]}"))
    text = ('{"generator": "tests/python/hungarian_reference.py", "seed": %d, "cases": [\n' % SEED
            + ",\n".join(r[1] for r in records) + "\n]}\n")
    with open(output, "w") as f:
        f.write(text)
    json.loads(text)  # the file is valid JSON
    unique = sum(r[0]["unique"] for r in records)
    print(f"{output}: {len(records)} cases ({unique} with a unique optimum), {len(text)} bytes")


if __name__ == "__main__":
    main()
