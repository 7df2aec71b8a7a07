#!/usr/bin/env bash
# Benchmark: CPU time and peak memory to push a 10-minute stereo file through ALSA's `null`
# device, for WAV, FLAC, Ogg Vorbis and MP3, with `shelf play` side by side with aplay (WAV),
# `sox FILE -t alsa null` (those four formats) and `mpg123 -o alsa -a null` (MP3); and for AAC
# 256k and ALAC in M4A (decoded through FFmpeg) side by side with `ffmpeg -i FILE -f alsa null`
# (the same decoder: the floor) and `mpv --no-video --ao=alsa --audio-device=alsa/null`; in one
# run, on the same files. Then peak memory: `shelf --help` (FFmpeg is loaded only when a file
# needs it), shelf playing a 1-hour FLAC and a 1-hour AAC M4A of speech (espeak-ng, looped),
# with a breakdown of the M4A run's peak by mapping (scripts/bench_smaps_peak.py), `ffmpeg`
# decoding that M4A (the floor: the same libraries), and `shelf index` of a folder of
# 200 three-minute M4As.
#
# Usage: scripts/bench-audio.sh [path/to/shelf]   (make bench-audio builds a release first)
# Environment: RUNS (default 5; shelf and its anchors alternate, the median of RUNS counts),
# MINUTES (default 10), HOUR_MINUTES (60).
set -euo pipefail

shelf=${1:-.build/release/shelf}
runs=${RUNS:-5}
minutes=${MINUTES:-10}
hour_minutes=${HOUR_MINUTES:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/bench/out/audio"
mkdir -p "$work"
shelf=$(cd "$(dirname "$shelf")" && pwd)/$(basename "$shelf")
[[ -x "$shelf" ]] || { echo "bench-audio: no shelf binary at $shelf (run make release)" >&2; exit 1; }

# Anchors and the measuring tools (python3 reads the children's CPU time precisely).
needed=()
command -v aplay >/dev/null || needed+=(alsa-utils)
command -v sox >/dev/null || needed+=(sox)
dpkg-query -W -f='${Status}' libsox-fmt-all 2>/dev/null | grep -q "ok installed" || needed+=(libsox-fmt-all)
command -v mpg123 >/dev/null || needed+=(mpg123)
command -v ffmpeg >/dev/null || needed+=(ffmpeg)
command -v mpv >/dev/null || needed+=(mpv)
command -v espeak-ng >/dev/null || needed+=(espeak-ng)
[[ -x /usr/bin/time ]] || needed+=(time)
command -v python3 >/dev/null || needed+=(python3)
if ((${#needed[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "bench-audio needs: ${needed[*]} (run: apt-get install -y ${needed[*]})" >&2
    exit 1
  fi
  echo "installing: ${needed[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null
fi

# Inputs: a sweep on the left, pink noise on the right (something the codecs must work on).
seconds=$((minutes * 60))
src="$work/source-${minutes}m.wav"
if [[ ! -s "$src" ]]; then
  echo "generating a ${minutes}-minute stereo signal..." >&2
  sox -q -n -r 44100 -c 2 -b 16 "$src" synth "$seconds" sine 100-4000 pinknoise vol 0.4
fi
[[ -s "$work/a.flac" ]] || sox -q "$src" "$work/a.flac"
[[ -s "$work/a.ogg" ]] || sox -q "$src" -C 5 "$work/a.ogg"
[[ -s "$work/a.mp3" ]] || sox -q "$src" -C 192 "$work/a.mp3"
[[ -s "$work/a.m4a" ]] || ffmpeg -v error -i "$src" -c:a aac -b:a 256k "$work/a.m4a"
[[ -s "$work/alac.m4a" ]] || ffmpeg -v error -i "$src" -c:a alac "$work/alac.m4a"
cp -f "$src" "$work/a.wav"

# measure_alternating COMMAND [--- COMMAND]...: runs the commands in turn, $runs rounds (shelf
# and its anchors alternate, so that a burst of load from the other users of the machine falls on
# all of them), and prints one line per command: the median CPU seconds (user+system, to the
# microsecond, from getrusage of the children) and the median peak RSS in KiB (/usr/bin/time -v).
measure_alternating() {
  python3 - "$runs" "$work" "$@" <<'PY'
import resource, statistics, subprocess, sys
runs, work, rest = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
commands, current = [], []
for word in rest:
    if word == "---":
        commands.append(current)
        current = []
    else:
        current.append(word)
commands.append(current)
cpus = [[] for _ in commands]
rsss = [[] for _ in commands]
for _ in range(runs):
    for index, command in enumerate(commands):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(work + "/stderr.txt", "wb") as err:
            code = subprocess.call(["/usr/bin/time", "-v", "-o", work + "/time.txt"] + command,
                                   stdout=subprocess.DEVNULL, stderr=err)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if code != 0:
            sys.stderr.write("bench-audio: failed: %s\n%s" % (" ".join(command), open(work + "/stderr.txt").read()))
            sys.exit(1)
        cpus[index].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        for line in open(work + "/time.txt"):
            if "Maximum resident set size" in line:
                rsss[index].append(int(line.split(":")[1]))
for cpu, rss in zip(cpus, rsss):
    print("%.3f %d" % (statistics.median(cpu), statistics.median(rss)))
PY
}

# measure COMMAND...: the medians of one command alone.
measure() { measure_alternating "$@"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }

echo "shelf audio benchmark: ${minutes}-minute 44.1 kHz stereo through ALSA 'null', medians of $runs alternating runs"
echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "         $(sox --version 2>&1 | head -1); $(mpg123 --version 2>&1 | head -1)"
echo "         $(ffmpeg -version 2>&1 | head -1 | cut -d' ' -f1-3); $(mpv --version 2>&1 | head -1 | cut -d' ' -f1-2)"
printf '\n%-6s %-10s %9s %9s %10s\n' format tool "cpu (s)" "peak MiB" "shelf/tool"
summary=()
for format in wav flac ogg mp3 m4a alac; do
  file="$work/a.$format"
  [[ $format == alac ]] && file="$work/alac.m4a"
  anchors=(sox)
  [[ $format == wav ]] && anchors+=(aplay)
  [[ $format == mp3 ]] && anchors+=(mpg123)
  [[ $format == m4a || $format == alac ]] && anchors=(ffmpeg mpv)
  commands=("$shelf" play -D null --no-interactive "$file")
  for anchor in "${anchors[@]}"; do
    commands+=(---)
    case $anchor in
      sox) commands+=(sox -q "$file" -t alsa null) ;;
      aplay) commands+=(aplay -q -D null "$file") ;;
      mpg123) commands+=(mpg123 -q -o alsa -a null "$file") ;;
      ffmpeg) commands+=(ffmpeg -v error -nostdin -i "$file" -f alsa null) ;;
      mpv) commands+=(mpv --really-quiet --no-config --no-video --ao=alsa --audio-device=alsa/null "$file") ;;
    esac
  done
  mapfile -t results < <(measure_alternating "${commands[@]}")
  read -r shelf_cpu shelf_rss <<<"${results[0]}"
  printf '%-6s %-10s %9s %9s %10s\n' "$format" shelf "$shelf_cpu" "$(mib "$shelf_rss")" ""
  for i in "${!anchors[@]}"; do
    anchor=${anchors[$i]}
    read -r cpu rss <<<"${results[$((i + 1))]}"
    r=$(ratio "$shelf_cpu" "$cpu")
    printf '%-6s %-10s %9s %9s %10s\n' "$format" "$anchor" "$cpu" "$(mib "$rss")" "$r"
    summary+=("$format shelf/$anchor CPU ratio: $r (shelf ${shelf_cpu}s, $anchor ${cpu}s)")
  done
done

echo
for line in "${summary[@]}"; do echo "$line"; done

# Peak memory for a 1-hour file: streaming keeps it flat.
hour="$work/hour.flac"
if [[ ! -s "$hour" ]]; then
  echo "generating a ${hour_minutes}-minute FLAC..." >&2
  sox -q -n -r 44100 -c 2 -b 16 "$hour" synth $((hour_minutes * 60)) sine 100-4000 pinknoise vol 0.4
fi
runs=1
read -r hour_cpu hour_rss < <(measure "$shelf" play -D null --no-interactive "$hour")
verdict=$(awk -v k="$hour_rss" 'BEGIN { print (k < 20 * 1024) ? "under" : "OVER" }')
echo "${hour_minutes}-minute FLAC: shelf peak memory $(mib "$hour_rss") MiB ($verdict the 20 MiB target), cpu ${hour_cpu}s"

# The same for a 1-hour AAC M4A of speech, decoded through FFmpeg, with ffmpeg itself (the same
# libraries: their loading alone is about 25 MiB) beside it.
hour_m4a="$work/hour-speech.m4a"
if [[ ! -s "$hour_m4a" ]]; then
  echo "generating a ${hour_minutes}-minute M4A of speech..." >&2
  espeak-ng -w "$work/speech.wav" "Shelf reads audio and video through FFmpeg. This recording \
    is an hour of spoken words, made to measure the memory of playing and indexing long files. \
    The quick brown fox jumps over the lazy dog, and the rain in Spain stays mainly in the plain."
  sox -q "$work/speech.wav" -r 44100 -c 2 "$work/speech-44k.wav"
  ffmpeg -v error -stream_loop -1 -i "$work/speech-44k.wav" -t $((hour_minutes * 60)) -c:a aac -b:a 128k "$hour_m4a"
fi
read -r hour_cpu hour_rss < <(measure "$shelf" play -D null --no-interactive "$hour_m4a")
verdict=$(awk -v k="$hour_rss" 'BEGIN { print (k < 20 * 1024) ? "under" : "OVER" }')
echo "${hour_minutes}-minute AAC M4A: shelf peak memory $(mib "$hour_rss") MiB ($verdict the 20 MiB target), cpu ${hour_cpu}s"
echo "where it is at the peak (one more run, /proc/PID/smaps every 10 ms):"
python3 "$root/scripts/bench_smaps_peak.py" --top 12 -- "$shelf" play -D null --no-interactive "$hour_m4a" | sed 's/^/  /'
read -r ffmpeg_cpu ffmpeg_rss < <(measure ffmpeg -v error -nostdin -i "$hour_m4a" -f alsa null)
echo "${hour_minutes}-minute AAC M4A: ffmpeg -f alsa null peak memory $(mib "$ffmpeg_rss") MiB, cpu ${ffmpeg_cpu}s"
read -r help_cpu help_rss < <(measure "$shelf" --help)
echo "shelf --help: peak memory $(mib "$help_rss") MiB"

# Indexing a folder of M4As: 200 three-minute pieces of the speech file.
folder="$work/m4a-folder"
if [[ ! -d "$folder" ]]; then
  mkdir -p "$folder"
  ffmpeg -v error -i "$hour_m4a" -t 180 -c copy "$work/piece.m4a"
  for i in $(seq -w 1 200); do cp "$work/piece.m4a" "$folder/piece-$i.m4a"; done
fi
rm -f "$work/index.sqlite" "$work/index.sqlite-wal" "$work/index.sqlite-shm"
read -r index_cpu index_rss < <(measure "$shelf" --db "$work/index.sqlite" index "$folder")
echo "shelf index of 200 three-minute M4As: peak memory $(mib "$index_rss") MiB, cpu ${index_cpu}s"
