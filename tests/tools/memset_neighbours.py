#!/usr/bin/env python3
"""Which kernels a step's memsets sit between (issue #21: the memsets still in the step graph).

Reads the `profile_trace.json` (or .json.gz) that `libreyolo-host profile run` writes and, for
every memset on the GPU track, the kernel that ran just before it and just after it on the same
lane (the trace's lanes are non-overlapping rows of GPU events: in a one-stream chain, the
memset's neighbours in the graph). Prints the pairs grouped by the kernel after, per step of the
window (the host track's step events), most first, with each group's memset time.

A memset whose next kernel is always one kind (a convolution's weight gradient, a cuBLAS split-K
GEMM, a scatter) names who asked for it. The memory it clears is not in the trace; its size is
where the trace has a `bytes` argument (Kineto's own JSON does; `profile_trace.json` today does
not): a few bytes are a library's counters (as cuDNN's BatchNorm clears), an output's size an
accumulator that atomics add into.

With --replays, only the events between two consecutive launches of the zero-span kernel (the
whole-step graph's first node) whose memset count is the window's most common one: the graph's
replays, without the steps run outside it (a census window holds both).

With --match TEXT the same for any GPU event whose name contains TEXT instead of memsets (e.g.
`--match direct_copy` for the step's strided copies); sizes are then the kernels' grids.

Usage:
  python3 tests/tools/memset_neighbours.py profile_trace.json[.gz] [--top 20] [--width 90] [--match TEXT] [--replays]
"""
import argparse
import gzip
import json
import sys
from collections import defaultdict


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


MATCH = "memset"


def is_looked_at(name):
    """Whether an event is one of those looked at (memsets, or what --match names)."""
    return MATCH in name.lower()


def step_count(events):
    steps = [e for e in events if e.get("ph") == "X" and e.get("cat") == "step"]
    return max(1, len(steps))


def gpu_lanes(events):
    """Complete GPU events (kernels, copies, memsets) per lane, in start order."""
    lanes = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            lanes[e["tid"]].append(e)
    for lane in lanes.values():
        lane.sort(key=lambda e: e["ts"])
    return lanes


def neighbour(lane, index, step):
    """The nearest event that is not a memset, walking from index by step (None at the lane's end)."""
    index += step
    while 0 <= index < len(lane):
        if not is_looked_at(lane[index]["name"]):
            return lane[index]["name"]
        index += step
    return None


def memset_bytes(event):
    """A memset's or copy's bytes; a kernel's grid where no byte count is recorded."""
    args = event.get("args", {})
    value = args.get("bytes")
    if isinstance(value, (int, float)):
        return int(value)
    grid = args.get("grid")
    return f"grid {grid}" if grid is not None else None


def memset_pairs(events):
    """{(kernel after, kernel before): [count, microseconds, {bytes: count}]} over the whole window."""
    pairs = defaultdict(lambda: [0, 0.0, defaultdict(int)])
    for lane in gpu_lanes(events).values():
        for i, e in enumerate(lane):
            if not is_looked_at(e["name"]):
                continue
            key = (neighbour(lane, i, +1) or "(end of lane)", neighbour(lane, i, -1) or "(start of lane)")
            pairs[key][0] += 1
            pairs[key][1] += float(e.get("dur", 0.0))
            pairs[key][2][memset_bytes(e)] += 1
    return pairs


def memsets_between_markers(events, marker):
    """Memsets between consecutive kernels whose name contains marker, in time order (all lanes).

    The whole-step graph's first node is the zero-span kernel (`zero_spans`) when BatchNorm memsets
    were merged: each count is one replay's memsets, and a count far above the others marks a step
    that ran outside the graph (eager, or a recording)."""
    gpu = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"), key=lambda e: e["ts"])
    counts, current, seen = [], 0, False
    for e in gpu:
        if marker in e["name"]:
            if seen:
                counts.append(current)
            current, seen = 0, True
        elif is_looked_at(e["name"]):
            current += 1
    if seen:
        counts.append(current)
    return counts


def replay_events(events, marker="zero_spans"):
    """The GPU events of the clean replays: from each marker launch to the next, where the memsets
    between them number the most common count (a step outside the graph has several times more)."""
    gpu = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"), key=lambda e: e["ts"])
    starts = [i for i, e in enumerate(gpu) if marker in e["name"]]
    spans = [gpu[a:b] for a, b in zip(starts, starts[1:])]
    if not spans:
        return []
    counts = [sum(1 for e in span if "memset" in e["name"].lower()) for span in spans]
    usual = max(set(counts), key=counts.count)
    return [e for span, n in zip(spans, counts) if n == usual for e in span]


def shorten(name, width):
    return name if len(name) <= width else name[: width - 3] + "..."


def size_summary(sizes):
    """The most frequent memset sizes of a group, 'N x B bytes', unknown sizes as '?'."""
    ranked = sorted(sizes.items(), key=lambda kv: -kv[1])
    def text(size):
        return "? bytes" if size is None else (f"{size} bytes" if isinstance(size, int) else size)
    parts = [f"{n} x {text(size)}" for size, n in ranked[:4]]
    return ", ".join(parts) + (f", {len(ranked) - 4} more sizes" if len(ranked) > 4 else "")


def report(events, top, width, out=sys.stdout):
    steps = step_count(events)
    pairs = memset_pairs(events)
    by_after = defaultdict(lambda: [0, 0.0, defaultdict(int), defaultdict(int)])
    for (after, before), (count, us, sizes) in pairs.items():
        group = by_after[after]
        group[0] += count
        group[1] += us
        group[2][before] += count
        for size, n in sizes.items():
            group[3][size] += n
    total = sum(g[0] for g in by_after.values())
    print(f"{total} {MATCH} events in {steps} steps ({total / steps:.1f} a step), by the kernel after them:", file=out)
    ranked = sorted(by_after.items(), key=lambda kv: -kv[1][0])
    for after, (count, us, befores, sizes) in ranked[:top]:
        print(f"  {count / steps:7.1f} a step, {us / steps:7.1f} us a step  before {shorten(after, width)}", file=out)
        print(f"           sizes: {size_summary(sizes)}", file=out)
        for before, n in sorted(befores.items(), key=lambda kv: -kv[1])[:3]:
            print(f"           {n / steps:7.1f} after {shorten(before, width)}", file=out)
    spans = memsets_between_markers(events, "zero_spans")
    if spans:
        print(f"{MATCH} events from each zero_spans launch to the next (the last to the window's end): {spans}", file=out)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--width", type=int, default=90)
    parser.add_argument("--match", default="memset", help="look at GPU events whose name contains this")
    parser.add_argument("--replays", action="store_true", help="only the whole-step graph's clean replays")
    args = parser.parse_args()
    global MATCH
    MATCH = args.match.lower()
    events = load_events(args.trace)
    if args.replays:
        replays = replay_events(events)
        steps = max(1, sum(1 for e in replays if "zero_spans" in e["name"]))
        print(f"--replays: {steps} clean replays, {len(replays)} GPU events")
        events = replays + [{"ph": "X", "cat": "step", "name": "replay"}] * steps
    report(events, args.top, args.width)


if __name__ == "__main__":
    main()
