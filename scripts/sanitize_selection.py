#!/usr/bin/env python3
"""scripts/sanitize_selection.py BUILD_DIR OUT: chooses the unit tests the sanitizer tree runs.

Reads the block map that scripts/sanitize_selection.sh recorded in BUILD_DIR (blocks.tsv: one line
per test, its executable, its name, its milliseconds and the offsets of the basic blocks of src/ it
ran) and writes OUT, the tests to leave out: those every one of whose blocks the kept tests run too.

A block is named by the function holding it and its offset there, so that the same module code
linked into two test executables is the same block. The tests that always run there are kept and
count as covering: the ones run alone (PREDLAKE_SANITIZE_ALONE) and the command-line suite's (it
runs the binary, whose blocks the map does not see). The property cases always run too but count
for nothing: their seeds change with every commit, and so may what they run. Among the rest, a
greedy cover takes the test with the most new blocks per second until every block that any of them
runs is run, then drops the costliest test of the cover that the others make redundant, as long as
one is.
"""
import bisect
import heapq
import subprocess
import sys
from collections import defaultdict


def symbols(path):
    """The executable's functions, as sorted start addresses and names."""
    out = subprocess.run(["nm", "--defined-only", "-n", path], check=True, capture_output=True,
                         text=True).stdout
    starts, names = [], []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            starts.append(int(parts[0], 16))
            names.append(parts[2])
    return starts, names


def load_map(build):
    """The block map: {"<module>:<test>": block ids}, {test: milliseconds}, the tests run alone."""
    alone = set()
    for line in open(f"{build}/tests/block_map_runs.txt"):
        kind, name, *_ = line.rstrip("\n").split("\t")
        if kind == "alone":
            alone.add(name)
    tables = {}
    blocks = defaultdict(set)
    cost = defaultdict(int)
    ids = {}
    for line in open(f"{build}/blocks.tsv"):
        exe, test, ms, offsets = line.rstrip("\n").split("\t")
        key = f"{exe.removeprefix('test_')}:{test}"
        cost[key] += int(ms)
        if exe not in tables:
            tables[exe] = symbols(f"{build}/tests/{exe}")
        starts, names = tables[exe]
        mine = blocks[key]
        for text in offsets.split():
            offset = int(text, 16)
            i = bisect.bisect_right(starts, offset) - 1
            name = f"{names[i]}+{offset - starts[i]:x}" if i >= 0 else f"?{offset:x}"
            mine.add(ids.setdefault(name, len(ids)))
    return blocks, cost, alone


def choose(blocks, cost, alone):
    """The candidates to leave out (sorted), the candidates, and the blocks the kept tests run."""
    fixed = {k for k in blocks if k in alone or k.startswith("cli:")}
    seeds = {k for k in blocks if k.split(":", 1)[1].startswith("Seeds/")}
    candidates = [k for k in blocks if k not in fixed and k not in seeds]
    covered = set().union(*(blocks[k] for k in fixed))
    wanted = set().union(covered, *(blocks[k] for k in candidates))
    # A test costs its time plus what starting it and opening a lake costs at least.
    weight = {k: cost[k] + 20 for k in candidates}

    # Lazy greedy: a test's gain only shrinks as the cover grows, so a stale gain is an upper bound.
    chosen = []
    left = wanted - covered
    heap = [(-len(blocks[k] & left) / weight[k], k) for k in candidates]
    heapq.heapify(heap)
    while left and heap:
        _, k = heapq.heappop(heap)
        gain = blocks[k] & left
        if not gain:
            continue
        score = -len(gain) / weight[k]
        if heap and score > heap[0][0]:
            heapq.heappush(heap, (score, k))
            continue
        chosen.append(k)
        left -= gain
    # Drop what the rest of the cover (and the fixed tests) run anyway, the costliest first.
    runs_of = defaultdict(int)
    for k in chosen:
        for b in blocks[k]:
            runs_of[b] += 1
    for k in sorted(chosen, key=lambda k: (-weight[k], k)):
        if all(b in covered or runs_of[b] > 1 for b in blocks[k]):
            chosen.remove(k)
            for b in blocks[k]:
                runs_of[b] -= 1
    kept = set(chosen) | fixed | seeds
    return sorted(set(candidates) - set(chosen)), candidates, set().union(*(blocks[k] for k in kept))


def main(build, out):
    blocks, cost, alone = load_map(build)
    skipped, candidates, run = choose(blocks, cost, alone)
    every = set().union(*blocks.values())
    if run != every:
        sys.exit(f"sanitize_selection.py: the kept tests miss {len(every - run)} blocks")
    kept_ms = sum(ms for k, ms in cost.items() if k not in skipped)
    all_ms = sum(cost.values())
    with open(out, "w") as f:
        f.write("# Unit tests the sanitizer tree leaves out of `sanitize`: the tests it keeps run every basic\n"
                "# block of src/ that these run. Written by scripts/sanitize_selection.sh (CONTRIBUTING.md,\n"
                "# \"Test kinds, subsets and order\"); tests/CMakeLists.txt reads it. <module>:<test>.\n")
        f.write(f"# {len(skipped)} of {len(candidates)} candidates left out; the kept tests ran "
                f"{kept_ms / 1000:.0f} of {all_ms / 1000:.0f} s in the block-map tree; "
                f"{len(every)} blocks.\n")
        for k in skipped:
            f.write(k + "\n")
    print(f"sanitize_selection.py: {len(skipped)} of {len(candidates)} unit tests left out, "
          f"{kept_ms / 1000:.0f} of {all_ms / 1000:.0f} s kept, every one of {len(every)} blocks run")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: sanitize_selection.py BUILD_DIR OUT")
    main(sys.argv[1], sys.argv[2])
