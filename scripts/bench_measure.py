"""Timing shared by the indexing benchmarks (bench-index-photos.sh, bench-index-media.sh)."""
import os
import resource
import subprocess
import time


def measure(command, repeats, work):
    """Best of `repeats`: wall seconds and CPU seconds (user + system of the child processes).

    Before each run the catalogue in `work` (and the files SQLite keeps beside it) is removed,
    so every run indexes from scratch.
    """
    best = None
    for _ in range(repeats):
        for leftover in ("catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm", "catalog.sqlite.lock"):
            try:
                os.unlink(os.path.join(work, leftover))
            except FileNotFoundError:
                pass
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall < best[0]:
            best = (wall, cpu)
    return best
