#!/usr/bin/env bash
# make bench-play: the CPU `shelf play` uses against mpv (`mpv --no-video --ao=alsa`, the
# issue's anchor) on real music: the seven Ogg Vorbis pieces of xmoto-data (Debian), played as
# they are and as FLAC copies carrying ReplayGain tags (measured by loudgain, so that shelf
# scales every sample as floats and mpv runs with --replaygain=track). Both play the whole
# playlist into ALSA's `null` device (not paced: the CPU is the work of decoding and scaling
# it), alternating, $RUNS rounds (default 5); the medians of user + system CPU seconds and
# their ratio are printed. The issue's bound: shelf at most mpv's CPU (ratio <= 1).
#
# usage: scripts/bench-play.sh [path/to/shelf]
set -euo pipefail
shelf=${1:-.build/release/shelf}
runs=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-$root/.build/bench-play}
[[ -x "$shelf" ]] || { echo "bench-play: $shelf not found; run 'make release' first" >&2; exit 1; }
shelf=$(cd "$(dirname "$shelf")" && pwd)/$(basename "$shelf")
music=/usr/share/games/xmoto/Textures/Musics
for tool in mpv loudgain metaflac ffmpeg python3; do
  command -v $tool >/dev/null || { echo "bench-play: $tool missing (run make setup)" >&2; exit 1; }
done
[[ -d $music ]] || { echo "bench-play: $music missing (apt-get install xmoto-data)" >&2; exit 1; }
mkdir -p "$work/flac"
oggs=("$music"/*.ogg)
flacs=()
for ogg in "${oggs[@]}"; do
  flac="$work/flac/$(basename "${ogg%.ogg}").flac"
  [[ -s $flac ]] || ffmpeg -v error -nostdin -i "$ogg" -c:a flac "$flac"
  flacs+=("$flac")
done
# loudgain writes the tags into the copies (-s e: ReplayGain 2.0 tags, track and album).
metaflac --show-tag=REPLAYGAIN_TRACK_GAIN "${flacs[0]}" | grep -q REPLAYGAIN ||
  loudgain -a -s e "${flacs[@]}" >/dev/null 2>&1
metaflac --show-tag=REPLAYGAIN_TRACK_GAIN "${flacs[0]}" | grep -q REPLAYGAIN || {
  echo "bench-play: loudgain wrote no tags" >&2
  exit 1
}

python3 - "$runs" "$shelf" "${#oggs[@]}" "${oggs[@]}" "${flacs[@]}" <<'PY'
import resource, statistics, subprocess, sys
runs, shelf, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
oggs, flacs = sys.argv[4:4 + count], sys.argv[4 + count:]
mpv = ["mpv", "--really-quiet", "--no-config", "--no-video", "--ao=alsa", "--audio-device=alsa/null"]
cases = [
    ("Ogg Vorbis, no gain", [shelf, "play", "-D", "null", "--no-interactive"] + oggs, mpv + oggs),
    ("FLAC with ReplayGain", [shelf, "play", "-D", "null", "--no-interactive", "--replaygain", "track"] + flacs,
     mpv + ["--replaygain=track"] + flacs),
]
def cpu(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print("bench-play: %d real music tracks (xmoto-data), ALSA null, medians of %d alternating rounds" % (count, runs))
print("%-22s %10s %10s %12s" % ("playlist", "shelf cpu", "mpv cpu", "shelf/mpv"))
for name, ours, theirs in cases:
    a, b = [], []
    for round in range(runs):
        pair = [(ours, a), (theirs, b)] if round % 2 == 0 else [(theirs, b), (ours, a)]
        for command, into in pair:
            into.append(cpu(command))
    sa, sb = statistics.median(a), statistics.median(b)
    print("%-22s %9.3fs %9.3fs %12.2f" % (name, sa, sb, sa / sb))
PY
