#!/usr/bin/env python3
"""Where a build's minutes go, from ninja's own log (`build-gpu/.ninja_log`, which the GPU
machine's cold calls bring back as ninja_log.txt).

A cold call spends 395-409 s of its ~560 s building: this says whether that is CPU work spread
over the cores (fewer or lighter translation units would help) or a chain of steps that waits
on one another (the low-parallelism stretches name the steps then running).

Usage: ninja_log_summary.py LOG [--top N] [--cores N] [--all-runs]
Only the last build in the log is read unless --all-runs: ninja appends every build, each
restarting its clock, so a drop in the end times marks the start of a new build.
"""
import argparse
import collections
import re
import sys


def read_steps(path):
    """[(start_s, end_s, output)] of each build in the log, a list per build."""
    builds, current, last_end = [], [], -1
    with open(path) as log:
        for line in log:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start, end, output = int(parts[0]) / 1000.0, int(parts[1]) / 1000.0, parts[3]
            if end < last_end and current:  # ninja's clock restarted: a new build
                builds.append(current)
                current = []
            current.append((start, end, output))
            last_end = end
    if current:
        builds.append(current)
    return builds


def target_of(output):
    """The CMake target an object belongs to (its `<target>.dir` folder), else the output's kind."""
    found = re.search(r"CMakeFiles/([^/]+)\.dir/", output)
    if found:
        return found.group(1)
    if output.endswith((".so", ".a")) or "/bin/" in output or output.startswith("bin/"):
        return "links"
    return "other"


def running_over_time(steps, wall):
    """How many steps ran in each whole second of the build."""
    counts = [0] * (int(wall) + 1)
    for start, end, _ in steps:
        for second in range(int(start), min(int(end), int(wall)) + 1):
            counts[second] += 1
    return counts


def low_stretches(counts, threshold, shortest=5):
    """[(first, last)] seconds where at most `threshold` steps ran, at least `shortest` long."""
    stretches, begin = [], None
    for second, count in enumerate(counts + [threshold + 1]):
        if count <= threshold and begin is None:
            begin = second
        elif count > threshold and begin is not None:
            if second - begin >= shortest:
                stretches.append((begin, second - 1))
            begin = None
    return stretches


def summarise(steps, top, cores):
    first = min(s for s, _, _ in steps)
    steps = [(s - first, e - first, o) for s, e, o in steps]
    wall = max(e for _, e, _ in steps)
    busy = sum(e - s for s, e, _ in steps)
    lines = [f"{len(steps)} steps, wall {wall:.0f} s, step time {busy:.0f} s "
             f"(average parallelism {busy / wall:.1f} of {cores} cores)"]
    lines.append(f"\nlongest {top} steps:")
    for start, end, output in sorted(steps, key=lambda s: s[0] - s[1])[:top]:
        lines.append(f"  {end - start:7.1f} s  at {start:5.0f}-{end:5.0f} s  {output}")
    by_target = collections.defaultdict(lambda: [0.0, 0])
    for start, end, output in steps:
        by_target[target_of(output)][0] += end - start
        by_target[target_of(output)][1] += 1
    lines.append("\nstep time by target:")
    for name, (seconds, count) in sorted(by_target.items(), key=lambda item: -item[1][0])[:top]:
        lines.append(f"  {seconds:8.0f} s  {count:4d} steps  {name}")
    counts = running_over_time(steps, wall)
    threshold = max(1, cores // 4)
    lines.append(f"\nstretches of 5 s or more with at most {threshold} steps running (the build waiting on a chain):")
    for begin, end in low_stretches(counts, threshold):
        during = sorted({o for s, e, o in steps if s <= end and e >= begin})
        lines.append(f"  {begin:5d}-{end:5d} s: " + ", ".join(during[:6]) + (" ..." if len(during) > 6 else ""))
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--cores", type=int, default=16, help="the build machine's cores (the GPU machine: 16)")
    parser.add_argument("--all-runs", action="store_true", help="every build in the log as one")
    args = parser.parse_args(argv)
    builds = read_steps(args.log)
    if not builds:
        sys.exit(f"{args.log}: no build steps (is it a ninja log, `# ninja log v5` and tab-separated lines?)")
    steps = [step for build in builds for step in build] if args.all_runs else builds[-1]
    print(summarise(steps, args.top, args.cores))


if __name__ == "__main__":
    main(sys.argv[1:])
