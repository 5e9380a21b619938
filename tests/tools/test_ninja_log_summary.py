#!/usr/bin/env python3
"""ninja_log_summary.py on a made-up ninja log whose answer is known: only the last of two builds
read, wall and summed step time, the longest step, time per target, and the stretch where one
step ran alone (the chain the build waited on)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ninja_log_summary  # noqa: E402

# start ms, end ms, mtime, output, hash: ninja's v5 lines. The first build (ends up to 9 s) is an
# older one that the second (its clock restarted at 0) follows in the same file.
LOG = """# ninja log v5
0\t9000\t0\tcore/CMakeFiles/old.dir/a.cpp.o\tx
1000\t3000\t0\tcore/CMakeFiles/libreyolo_core.dir/src/a.cpp.o\tx
1000\t4000\t0\tcore/CMakeFiles/libreyolo_core.dir/src/b.cpp.o\tx
1000\t5000\t0\tsdk/CMakeFiles/libreyolo_sdk.dir/src/c.cpp.o\tx
1000\t6000\t0\tsdk/CMakeFiles/libreyolo_sdk.dir/src/d.cpp.o\tx
6000\t16000\t0\tsdk/CMakeFiles/libreyolo_sdk.dir/src/slow.cu.o\tx
16000\t17000\t0\tbin/libreyolo-host\tx
"""


def expect(condition, what, text):
    if not condition:
        sys.exit(f"FAILED: {what}:\n{text}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp, "ninja_log.txt")
        log.write_text(LOG)
        builds = ninja_log_summary.read_steps(str(log))
        expect(len(builds) == 2, "two builds (the clock restarted)", builds)
        text = ninja_log_summary.summarise(builds[-1], top=3, cores=4)
    # Second build: starts at 1 s, ends at 17 s; steps 2+3+4+5+10+1 = 25 s.
    expect(text.startswith("6 steps, wall 16 s, step time 25 s (average parallelism 1.6 of 4 cores)"),
           "the last build's totals", text)
    expect("10.0 s  at     5-   15 s  sdk/CMakeFiles/libreyolo_sdk.dir/src/slow.cu.o" in text,
           "the longest step first, on the build's own clock", text)
    expect("19 s     3 steps  libreyolo_sdk" in text and "5 s     2 steps  libreyolo_core" in text
           and "1 s     1 steps  links" in text, "time per target", text)
    expect("old.dir" not in text, "the older build left out", text)
    # The seconds where a step starts or ends count it and its neighbour: 6-14 s ran slow.cu alone.
    expect("    6-   14 s: sdk/CMakeFiles/libreyolo_sdk.dir/src/slow.cu.o\n" in text + "\n",
           "the stretch with one step running, and what ran then", text)
    print("ninja_log_summary: ok")


if __name__ == "__main__":
    main()
