#!/usr/bin/env bash
# make bench-index-media: cataloguing speed of phone and music-library audio. `shelf index` of
# 2,000 M4A/MP3 files (AAC and ALAC M4A, MP3 with and without a Xing header, with ID3v2 tags and
# cover art: copies of SampleMedia's) against today's MP3 path (shelf before FFmpeg, which reads
# MP3 through libsndfile and could not read M4A at all: it indexes 2,000 MP3s instead), and
# against the anchors ffprobe (one process per file, 2 at a time) and exiftool -fast (one process
# for the folder). Everything runs side by side in one session, warm cache (shelf best of 3, the
# anchors once); the ratios
# per file are what count (machines are shared and noisy).
#
# usage: scripts/bench-index-media.sh [path/to/shelf] [path/to/baseline-shelf]
# Without a baseline binary, the shelf of BASELINE_REV (default 92c3bb7, the last commit before
# media facts came through FFmpeg) is built in release mode in .build/bench-baseline.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHELF=${1:-$ROOT/.build/release/shelf}
BASELINE=${2:-}
BASELINE_REV=${BASELINE_REV:-92c3bb7}
WORK=${BENCH_DIR:-$ROOT/.build/bench-index-media}
[[ -x "$SHELF" ]] || { echo "bench-index-media: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")
for tool in ffprobe exiftool python3; do
  command -v "$tool" >/dev/null || {
    echo "bench-index-media: $tool is missing: apt-get install ffmpeg libimage-exiftool-perl python3" >&2
    exit 1
  }
done

if [[ -z "$BASELINE" ]]; then
  TREE=$ROOT/.build/bench-baseline
  if [[ ! -x $TREE/.build/release/shelf ]]; then
    echo "bench-index-media: building the baseline shelf ($BASELINE_REV) in $TREE" >&2
    rm -rf "$TREE"
    git -C "$ROOT" archive --format=tar --prefix=bench-baseline/ "$BASELINE_REV" | tar -x -C "$ROOT/.build"
    (cd "$TREE" && swift build -c release --static-swift-stdlib >/dev/null)
  fi
  BASELINE=$TREE/.build/release/shelf
fi

mkdir -p "$WORK"
PYTHONPATH="$ROOT/scripts" python3 - "$ROOT/SampleMedia/Documents" "$WORK" "$SHELF" "$BASELINE" <<'PY'
import os, shutil, sys

from bench_measure import measure

source, work, shelf, baseline = sys.argv[1:5]
count = 2000
m4a = [os.path.join(source, "Music", n) for n in ("morning-chord.m4a", "lossless-fifth.m4a")]
mp3 = [os.path.join(source, "beeps-stereo.mp3"), os.path.join(source, "Music", "no-xing-cover.mp3")]


def populate(folder, sources):
    if os.path.isdir(folder) and len(os.listdir(folder)) == count:
        return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for i in range(count):
        path = sources[i % len(sources)]
        stem, ext = os.path.splitext(os.path.basename(path))
        shutil.copyfile(path, os.path.join(folder, "%s-%04d%s" % (stem, i, ext)))
        os.utime(os.path.join(folder, "%s-%04d%s" % (stem, i, ext)), (1704067200, 1704067200))


mixed = os.path.join(work, "m4a-mp3")
only_mp3 = os.path.join(work, "mp3")
populate(mixed, m4a + mp3)
populate(only_mp3, mp3)


database = os.path.join(work, "catalog.sqlite")
# shelf runs best of 3; the anchors (seconds to minutes) once.
runs = [
    ("today's shelf, 2,000 MP3 (baseline)", [baseline, "--db", database, "index", only_mp3], 3),
    ("shelf, 2,000 MP3", [shelf, "--db", database, "index", only_mp3], 3),
    ("shelf, 2,000 M4A/MP3", [shelf, "--db", database, "index", mixed], 3),
    ("ffprobe per file (-P2), M4A/MP3", ["sh", "-c", "find '%s' -type f -print0 | xargs -0 -P2 -n1 "
                                          "ffprobe -v error -show_format -show_streams >/dev/null" % mixed], 1),
    ("exiftool -fast, M4A/MP3", ["exiftool", "-fast", "-q", "-q", "-r", mixed], 1),
]
results = [(name, *measure(command, repeats, work)) for name, command, repeats in runs]
base_wall, base_cpu = results[0][1], results[0][2]
print("bench-index-media: %d files per run; shelf best of 3, anchors once (the machine may be shared: "
      "compare ratios)" % count)
print("%-34s %9s %9s %10s %10s" % ("run", "wall", "CPU", "ms/file", "vs today"))
for name, wall, cpu in results:
    print("%-34s %8.3fs %8.3fs %10.3f %9.2fx" % (name, wall, cpu, 1000 * wall / count, wall / base_wall))
print("target: shelf's M4A/MP3 per-file time no slower than today's MP3 path (ratio <= 1.00)")
PY
