#!/usr/bin/env python3
"""Who a request's CPU is spent for: each `perf record -g` sample charged to its owner.

    python3 Benchmarks/perf-owners.py FILE:µs [FILE:µs ...] [--frames OWNER]

FILE is a `perf record -g` file of one server (`FAMILYSYNC_FLOOR_PERF=<dir> familysync-bench
floor …` writes one a row); µs is that row's server CPU a request in the same run, so that shares
turn into µs a request. A sample is charged to the first frame, from the leaf up, that belongs to
a package: FamilySync's modules, Hummingbird, PostgresNIO, NIO's HTTP parts, NIO, swift-log,
Crypto. The Swift runtime, libc, the standard library and the kernel between the leaf and that
frame are charged to it: a `swift_retain` or a `writev` counts for the code that asked for it.
Samples with no package frame on their stack are counted apart.

`--frames OWNER` lists, for that owner, the frames charged the most µs a request more in the last
file than in the first (Benchmarks/README.md, "Where nothing-new's cost sits, by owner").
"""
import collections
import re
import subprocess
import sys

# Swift's mangled names carry their module's name; C frames (llhttp, BoringSSL) their prefix.
OWNERS = [
    ("FamilySync", re.compile(r"FamilySync")),
    ("Hummingbird", re.compile(r"Hummingbird")),
    ("PostgresNIO", re.compile(r"PostgresNIO|PSQL")),
    ("NIO HTTP", re.compile(r"NIOHTTP|llhttp|HTTPTypes")),
    ("NIO", re.compile(r"NIO")),
    ("swift-log", re.compile(r"Logging")),
    ("Crypto", re.compile(r"Crypto")),
]


def owner(symbol):
    for name, pattern in OWNERS:
        if pattern.search(symbol):
            return name
    return None


def samples(path):
    """Each sample's stack, leaf first, as symbol names."""
    text = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym"], capture_output=True, text=True, check=True).stdout
    for block in text.split("\n\n"):
        lines = [line.strip() for line in block.strip().split("\n") if line.strip()]
        if lines:
            yield [parts[1] if len(parts) > 1 else "?" for parts in (line.split(None, 1) for line in lines)]


def charged(path):
    """(owner → samples, frame → samples for each owner, total samples)."""
    owners, frames, total = collections.Counter(), collections.defaultdict(collections.Counter), 0
    for stack in samples(path):
        total += 1
        frame = next((symbol for symbol in stack if owner(symbol)), None)
        if frame is None:
            leaf = stack[0]
            kernel = not leaf.startswith(("$", "swift", "_swift", "__", "[unknown]"))
            owners["no package frame (" + ("kernel" if kernel else "runtime, libc") + ")"] += 1
            continue
        owners[owner(frame)] += 1
        frames[owner(frame)][frame[:200]] += 1
    return owners, frames, total


def main(arguments):
    wanted = None
    if "--frames" in arguments:
        index = arguments.index("--frames")
        wanted = arguments[index + 1]
        arguments = arguments[:index] + arguments[index + 2 :]
    if not arguments:
        sys.exit(__doc__)
    runs = []
    for argument in arguments:
        path, _, cpu = argument.rpartition(":")
        runs.append((path, float(cpu), *charged(path)))
    names = sorted({name for run in runs for name in run[2]}, key=lambda name: -runs[-1][2][name])
    print("| owner | " + " | ".join(f"{path.rsplit('/', 1)[-1]} ({cpu:g} µs)" for path, cpu, *_ in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name in names:
        cells = [f"{100 * counts[name] / total:.1f} % · {counts[name] / total * cpu:.1f} µs" for _, cpu, counts, _, total in runs]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if wanted:
        (_, first_cpu, _, first, first_total), (_, last_cpu, _, last, last_total) = runs[0], runs[-1]
        difference = {
            frame: last[wanted][frame] / last_total * last_cpu - first[wanted][frame] / first_total * first_cpu
            for frame in set(first[wanted]) | set(last[wanted])
        }
        print(f"\n{wanted}'s frames, µs a request more in the last file than in the first:")
        for frame, more in sorted(difference.items(), key=lambda item: -abs(item[1]))[:25]:
            print(f"{more:+6.2f} µs  {frame}")


if __name__ == "__main__":
    main(sys.argv[1:])
