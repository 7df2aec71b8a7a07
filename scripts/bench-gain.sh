#!/usr/bin/env bash
# make bench-gain: `shelf gain` against loudgain (Debian), ReplayGain 2.0 per album, on real
# music: xmoto's soundtrack (Debian xmoto-data, 7 Ogg Vorbis tracks) as three albums, in its
# own Ogg Vorbis, transcoded to FLAC and to MP3 (ffmpeg, made once). loudgain runs as
# `loudgain -a -s s -O ALBUM/*` (album mode, tags skipped: it writes nothing), once per album,
# one album after the other, and again two albums at a time (xargs -P 2, the machine's cores
# used as shelf uses them); shelf runs once, `shelf gain` on the three folders (no catalogue:
# measured and printed only, as loudgain), its width the number of processors. Warm cache;
# each contestant runs once a round, in an order that rotates from round to round; the medians
# of the rounds and the ratios are printed, and every track and album gain is compared with
# loudgain's (issue 26: within 0.1 dB, and faster in wall time).
#
# usage: scripts/bench-gain.sh [path/to/shelf]
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-gain}
ROUNDS=${BENCH_ROUNDS:-3}
MUSIC=/usr/share/games/xmoto/Textures/Musics
[[ -x "$SHELF" ]] || { echo "bench-gain: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

missing=()
for tool in loudgain ffmpeg python3 xargs; do command -v $tool >/dev/null || missing+=("$tool"); done
[[ -d $MUSIC ]] || missing+=("$MUSIC (xmoto-data)")
if ((${#missing[@]})); then
  echo "bench-gain: missing ${missing[*]}: run scripts/setup.sh" >&2
  exit 1
fi

if [[ ! -f $WORK/.generated ]]; then
  rm -rf "$WORK"
  mkdir -p "$WORK/ogg" "$WORK/flac" "$WORK/mp3"
  for track in "$MUSIC"/*.ogg; do
    name=$(basename "$track" .ogg)
    # One album per folder, as loudgain -a takes it: the tracks' own album tags differ, so
    # each copy gets its folder's (the Ogg one remuxed, its audio packets unchanged).
    tags=(-map_metadata -1 -metadata "title=$name" -metadata "album_artist=xmoto")
    ffmpeg -nostdin -v error -y -i "$track" -c:a copy "${tags[@]}" -metadata "album=xmoto (ogg)" "$WORK/ogg/$name.ogg"
    ffmpeg -nostdin -v error -y -i "$track" -c:a flac "${tags[@]}" -metadata "album=xmoto (flac)" "$WORK/flac/$name.flac"
    ffmpeg -nostdin -v error -y -i "$track" -c:a libmp3lame -q:a 2 "${tags[@]}" -metadata "album=xmoto (mp3)" \
      "$WORK/mp3/$name.mp3"
  done
  touch "$WORK/.generated"
fi

python3 - "$SHELF" "$WORK" "$ROUNDS" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
shelf, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
albums = [os.path.join(work, name) for name in ("ogg", "flac", "mp3")]
files = {album: sorted(os.path.join(album, f) for f in os.listdir(album) if not f.startswith(".")) for album in albums}
cores = os.cpu_count()
tracks = sum(len(f) for f in files.values())
print(f"bench-gain: {tracks} tracks in {len(albums)} albums (xmoto's soundtrack as Ogg Vorbis, FLAC, MP3); {cores} cores; {rounds} rounds")

loudgain_sequential = ["sh", "-c", " && ".join(
    "loudgain -a -s s -O " + " ".join(f"'{f}'" for f in files[a]) + " >/dev/null 2>&1" for a in albums)]
loudgain_parallel = ["sh", "-c", "printf '%s\\n' " + " ".join(f"'{a}'" for a in albums)
    + " | xargs -P 2 -I{} sh -c 'loudgain -a -s s -O \"$0\"/* >/dev/null 2>&1' {}"]
contestants = {
    "shelf gain": [shelf, "--db", os.path.join(work, "none.sqlite"), "gain", "--json"] + albums,
    "loudgain -a per album": loudgain_sequential,
    "loudgain -a per album, 2 at once": loudgain_parallel,
}
names = list(contestants)
runs = {name: [] for name in names}
shelf_output = None
for round_ in range(rounds):
    order = names[round_ % len(names):] + names[:round_ % len(names)]
    for name in order:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        done = subprocess.run(contestants[name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs[name].append((wall, after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime))
        if name == "shelf gain":
            shelf_output = json.loads(done.stdout)
medians = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in runs.items()}
base = medians["shelf gain"][0]
print(f"{'':34} {'wall s':>8} {'cpu s':>8} {'wall vs shelf':>14}")
for name in names:
    wall, cpu = medians[name]
    print(f"{name:34} {wall:8.2f} {cpu:8.2f} {wall / base:13.2f}x")

# Accuracy: every track and album gain against loudgain's.
worst_track = worst_album = 0.0
for album in albums:
    out = subprocess.run(["loudgain", "-a", "-s", "s", "-O"] + files[album], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines()[1:]:
        fields = line.split("\t")
        rows[fields[0]] = float(fields[8].replace(" dB", ""))
    for track in shelf_output["tracks"]:
        if track["path"] in rows:
            worst_track = max(worst_track, abs(track["track_gain"] - rows[track["path"]]))
            worst_album = max(worst_album, abs(track["album_gain"] - rows["Album"]))
print(f"largest difference from loudgain: track gain {worst_track:.2f} dB, album gain {worst_album:.2f} dB (target: 0.1)")
PY
