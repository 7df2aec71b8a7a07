"""make bench-index's measurements: shelf index against `file` and `find`, side by side.

For each tree, every round runs each contestant once, in turn (the order rotating from round to
round), warm cache, and the medians of the rounds are reported with their ratios:
  - a fresh index (`shelf index`, new catalogue) against `find | xargs -P2 file --mime-type`;
  - the same index with the facts read in this process (`SHELF_EXTRACT_IN_PROCESS=1`): what
    the sandboxed workers cost;
  - an unchanged rescan (`shelf index` again) against a bare `find -type f`.
Wall seconds are what a user waits; CPU seconds (user + system of every process) what the work
costs whatever the load.

usage: bench_index.py SHELF WORK ROUNDS LABEL=PATH...
"""
import os
import resource
import statistics
import subprocess
import sys
import time

WORKERS = 2


def run(command, environment=None):
    """Wall and CPU seconds of one run of `command`: a shell command line (a pipeline), or a
    list of arguments run directly, as an interactive shell runs a program. (Started through
    `sh -c` from this script, an unchanged rescan of /usr/share/locale took 0.05 s instead of
    0.017 s on the benchmark machine, its walk three times as long, while a C walker and `find`
    were not slowed; from bash, nested or not, shelf takes 0.017 s.)"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, shell=isinstance(command, str), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=environment)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        sys.exit(f"bench-index: '{command}' exited with {done.returncode}")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def remove_catalogue(path):
    for suffix in ("", "-wal", "-shm", ".lock"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def bench_tree(shelf, work, rounds, label, tree):
    fresh_db = os.path.join(work, label + ".fresh.sqlite")
    rescan_db = os.path.join(work, label + ".rescan.sqlite")
    def index(db):
        return [shelf, "--db", db, "index", "--jobs", str(WORKERS), "--progress", "never", tree]
    # The catalogue the rescans read, made once (and checked to be complete) before the rounds.
    remove_catalogue(rescan_db)
    subprocess.run(index(rescan_db), check=True, stdout=subprocess.DEVNULL)
    in_process = dict(os.environ, SHELF_EXTRACT_IN_PROCESS="1")
    contestants = {
        "file": lambda: run(f"find '{tree}' -type f -print0 | xargs -0 -P{WORKERS} -n 256 file --mime-type"),
        "fresh": lambda: (remove_catalogue(fresh_db), run(index(fresh_db)))[1],
        "in-process": lambda: (remove_catalogue(fresh_db), run(index(fresh_db), in_process))[1],
        "find": lambda: run(["find", tree, "-type", "f"]),
        "rescan": lambda: run(index(rescan_db)),
    }
    names = list(contestants)
    times = {name: [] for name in names}
    run(["find", tree, "-type", "f"])  # warm the cache for every contestant
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            # Each run starts with nothing left to write back: a fresh index leaves tens of MB
            # of catalogue dirty, and the next run's first fsync (the rescan's) waited for them.
            os.sync()
            times[name].append(contestants[name]())
    files = int(subprocess.run(f"find '{tree}' -type f | wc -l", shell=True, capture_output=True, text=True).stdout)
    return files, {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
                   for name, runs in times.items()}


def main():
    shelf, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    trees = [entry.split("=", 1) for entry in sys.argv[4:]]
    results = []
    for label, tree in trees:
        files, medians = bench_tree(shelf, work, rounds, label, tree)
        results.append((label, files, medians))
        print(f"bench-index: {label} done", file=sys.stderr)
    with open("/proc/loadavg") as load:
        loadavg = " ".join(load.read().split()[:3])
    print(f"\nshelf index against file and find ({os.cpu_count()} cores, {WORKERS} workers each, warm cache; "
          f"median of {rounds} alternating rounds)")
    for unit, pick in (("wall seconds", 0), ("CPU seconds, user + system of all processes", 1)):
        print(f"\n{unit}")
        print(f"{'tree':<10} {'files':>7}  {'file --mime':>11} {'shelf index':>11} {'faster':>7}   "
              f"{'bare find':>9} {'rescan':>8} {'vs find':>8}   {'in-process':>10} {'isolation':>9}")
        for label, files, m in results:
            speedup = m["file"][pick] / m["fresh"][pick] if m["fresh"][pick] else 0
            rescan = m["rescan"][pick] / m["find"][pick] if m["find"][pick] else 0
            isolation = m["fresh"][pick] / m["in-process"][pick] if m["in-process"][pick] else 0
            print(f"{label:<10} {files:>7}  {m['file'][pick]:>11.3f} {m['fresh'][pick]:>11.3f} {speedup:>6.2f}x   "
                  f"{m['find'][pick]:>9.3f} {m['rescan'][pick]:>8.3f} {rescan:>7.2f}x   "
                  f"{m['in-process'][pick]:>10.3f} {isolation:>8.2f}x")
    print(f"\nload average at the end: {loadavg}")
    print("targets (issue 24): fresh index >= 4x faster than file --mime-type on /usr/share and >= 2x on the")
    print("         others; unchanged rescan <= 1.5x bare find on /usr/share")


if __name__ == "__main__":
    main()
