#!/usr/bin/env python3
"""Where a process's resident memory is at its peak, mapping by mapping.

    python3 scripts/bench_smaps_peak.py [--top 25] -- COMMAND...

Runs COMMAND, reads /proc/PID/smaps every 10 ms while it runs and keeps the reading with the
largest total Rss (the kernel's VmHWM, the true peak, is printed beside it: a reading between
two polls can miss a short spike). Prints that reading grouped by what is mapped: each shared
library (all its segments together), the main program, `[heap]` (malloc's brk arena), anonymous
mappings (malloc's mmap'd blocks and thread arenas, thread stacks' neighbours), `[stack]`, and the
rest; then the libraries summed by the package family they come from (FFmpeg's own, the codec
and format libraries FFmpeg pulls in, the Swift runtime, glibc and the C++ runtime, the others).
"""

import argparse
import collections
import os
import subprocess
import sys
import time


def read_smaps(pid):
    """{mapping name: Rss KiB} for one reading; None once the process is gone.

    An unnamed mapping that starts where a library's last mapping ends is that library's
    zero-filled data (.bss beyond its file): it is counted as "LIBRARY (.bss)", not as malloc's.
    """
    totals = collections.Counter()
    name = None
    previous_end, previous_file = None, None
    try:
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                first = line.split(None, 1)[0]
                if "-" in first and not first.endswith(":"):
                    parts = line.split()
                    start, end = (int(x, 16) for x in parts[0].split("-"))
                    if len(parts) >= 6:
                        name = parts[5]
                        previous_file = name if name.startswith("/") else None
                    elif previous_file and start == previous_end:
                        name = previous_file + " (.bss)"
                        previous_file = None
                    else:
                        name = "[anonymous]"
                        previous_file = None
                    previous_end = end
                elif first == "Rss:":
                    totals[name] += int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return totals


def high_water(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


FAMILIES = [
    ("FFmpeg (libavformat, libavcodec, libavutil, libswresample)",
     ("libavformat", "libavcodec", "libavutil", "libswresample", "libswscale", "libavfilter", "libavdevice",
      "libpostproc")),
    ("Swift runtime and Foundation", ("libswift", "libFoundation", "lib_FoundationICU", "libdispatch", "libBlocksRuntime",
                                      "libicu")),
    ("glibc, libstdc++, libgcc", ("libc.so", "libm.so", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libdl.so",
                                  "librt.so")),
]


def family(path):
    base = os.path.basename(path).replace(" (.bss)", "")
    for label, prefixes in FAMILIES:
        if base.startswith(prefixes):
            return label
    return "other shared libraries (their dependencies: codecs, TLS, …)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")

    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best, best_total, peak = None, -1, None
    while child.poll() is None:
        reading = read_smaps(child.pid)
        hwm = high_water(child.pid)
        if hwm is not None:
            peak = hwm
        if reading is not None:
            total = sum(reading.values())
            if total > best_total:
                best, best_total = reading, total
        time.sleep(0.01)
    if best is None:
        sys.exit("bench_smaps_peak: the command ended before it could be read")

    program = os.path.realpath(command[0])
    rows = collections.Counter()
    families = collections.Counter()
    for name, kib in best.items():
        if name.startswith("/") and os.path.realpath(name) == program:
            rows["the program (%s)" % os.path.basename(program)] += kib
        elif ".so" in os.path.basename(name) or name.endswith(" (.bss)"):
            rows[os.path.basename(name)] += kib
            families[family(name)] += kib
        elif name in ("[heap]", "[stack]", "[anonymous]"):
            rows[name] += kib
        else:
            rows[name if not name.startswith("/") else os.path.basename(name)] += kib
    mib = lambda k: k / 1024
    print("peak Rss read from smaps: %.1f MiB (kernel high-water mark VmHWM: %.1f MiB)"
          % (mib(best_total), mib(peak or 0)))
    print("%-60s %9s" % ("mapping", "MiB"))
    for name, kib in rows.most_common(args.top):
        print("%-60s %9.2f" % (name[:60], mib(kib)))
    rest = sum(kib for _, kib in rows.most_common()[args.top:])
    if rest:
        print("%-60s %9.2f" % ("(%d more mappings)" % (len(rows) - args.top), mib(rest)))
    print()
    print("%-60s %9s" % ("shared libraries by family", "MiB"))
    for label, kib in families.most_common():
        print("%-60s %9.2f" % (label[:60], mib(kib)))
    malloc = sum(kib for name, kib in best.items() if name in ("[heap]", "[anonymous]"))
    print("%-60s %9.2f" % ("malloc'd memory ([heap] and anonymous mappings)", mib(malloc)))
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
