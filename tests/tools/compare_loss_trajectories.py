#!/usr/bin/env python3
"""Two `bench step ... json=FILE` runs' loss trajectories, step by step (issue #21: "fused vs
unfused within tolerance over 50 steps"). Both runs must start from the same seed and batch (the
same command but for the option compared). Prints the largest relative difference and the first
step where it exceeds the tolerance; exits 1 when any step does, or when the lengths differ.

Usage: python3 tests/tools/compare_loss_trajectories.py A.json B.json [--tolerance 1e-2]
"""
import argparse
import json
import sys


def losses(path):
    with open(path) as f:
        return [float(v) for v in json.load(f)["losses"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--tolerance", type=float, default=1e-2,
                        help="largest allowed |a - b| / max(|a|, 1e-12) at any step")
    args = parser.parse_args()
    a, b = losses(args.a), losses(args.b)
    if len(a) != len(b):
        print(f"lengths differ: {len(a)} and {len(b)} steps")
        return 1
    worst, worst_step, first_over = 0.0, -1, None
    for step, (x, y) in enumerate(zip(a, b)):
        difference = abs(x - y) / max(abs(x), 1e-12)
        if difference > worst:
            worst, worst_step = difference, step
        if difference > args.tolerance and first_over is None:
            first_over = step
    equal = sum(1 for x, y in zip(a, b) if x == y)
    print(f"{len(a)} steps: {equal} bitwise equal; largest relative difference {worst:.3g} at step {worst_step}"
          + (f"; above {args.tolerance:g} from step {first_over}" if first_over is not None else
             f"; all within {args.tolerance:g}"))
    return 1 if first_over is not None else 0


if __name__ == "__main__":
    sys.exit(main())
