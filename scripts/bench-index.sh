#!/usr/bin/env bash
# make bench-index: shelf index against `find | xargs -P2 file --mime-type` (fresh index) and a
# bare `find -type f` walk (unchanged rescan), on a generated sandbox of >= 20,000 small files of
# every kind, on /usr/share and on four of its folders (icons, locale, doc, man), alternating, in
# rounds (scripts/bench_index.py prints the medians and ratios); then `shelf ls` of one field on
# the combined catalogue (>= 50,000 entries). Warm cache, 2 workers; the ratios are what count.
#
# usage: scripts/bench-index.sh [path/to/shelf]
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-index}
WORKERS=2
[[ -x "$SHELF" ]] || { echo "bench-index: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

# --- anchors -------------------------------------------------------------------------------
need_apt=()
command -v file >/dev/null || need_apt+=(file)
command -v python3 >/dev/null || need_apt+=(python3)
if ((${#need_apt[@]})); then
  echo "bench-index: installing ${need_apt[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bench-index: run: sudo apt-get install -y ${need_apt[*]}" >&2
    exit 1
  fi
fi

# --- the generated sandbox -----------------------------------------------------------------
SANDBOX=$WORK/Sandbox
if [[ ! -f $WORK/.generated ]]; then
  rm -rf "$WORK"
  mkdir -p "$WORK"
  python3 - "$ROOT/SampleMedia" "$SANDBOX" <<'PY'
import os, shutil, sys, random
source, target = sys.argv[1], sys.argv[2]
random.seed(7)
files = []
for folder, _, names in os.walk(source):
    for name in names:
        files.append(os.path.join(folder, name))
files.sort()
audio = (".wav", ".flac", ".ogg", ".mp3", ".m4a", ".aiff", ".amr", ".mov")
words = "alpha beta gamma delta shelf media sandbox photo track album note list plist".split()
count = 0
copies = 900
for copy in range(copies):
    for path in files:
        relative = os.path.relpath(path, source)
        if relative.endswith(audio) and copy % 10:
            continue
        top, _, rest = relative.partition("/")
        if top.endswith(".app") and copy:
            top, rest = "Documents", "Bundled/" + rest
        folder, name = os.path.split(rest)
        stem, ext = os.path.splitext(name)
        destination = os.path.join(target, top, folder, "set%03d" % copy, "%s-%03d%s" % (stem, copy, ext))
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copyfile(path, destination)
        count += 1
    # Some fresh text per copy, so the full-text index sees varied words.
    destination = os.path.join(target, "Documents", "Notes", "set%03d" % copy, "journal-%03d.txt" % copy)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    with open(destination, "w") as out:
        for line in range(40):
            out.write(" ".join(random.choice(words) for _ in range(12)) + "\n")
    count += 1
print("bench-index: generated %d files in %s" % (count, target), file=sys.stderr)
PY
  touch "$WORK/.generated"
fi
# Old timestamps: the rescan must not see "too fresh to trust" files.
find "$SANDBOX" -type f -newermt '-1 minute' -exec touch -d '2024-01-01 00:00' {} + 2>/dev/null || true
sleep 3

now() { date +%s.%N; }

# BENCH_TREES="label=path …" replaces the trees (a quick look at one folder, say); BENCH_RUNS
# sets the number of alternating rounds (5).
RUNS=${BENCH_RUNS:-5}
TREES=${BENCH_TREES:-"sandbox=$SANDBOX usr-share=/usr/share icons=/usr/share/icons locale=/usr/share/locale doc=/usr/share/doc man=/usr/share/man"}
# shellcheck disable=SC2086
python3 "$ROOT/scripts/bench_index.py" "$SHELF" "$WORK" "$RUNS" $TREES

# --- ls on a catalogue of >= 50,000 entries ------------------------------------------------
DB=$WORK/combined.sqlite
rm -f "$DB" "$DB"-wal "$DB"-shm "$DB".lock
"$SHELF" --db "$DB" index --jobs $WORKERS --progress never "$SANDBOX" /usr/share >/dev/null 2>&1 || true
entries=$("$SHELF" --db "$DB" ls -0 | tr -cd '\0' | wc -c)
best_ms() {
  local best=999999 t0 t1 ms
  for _ in 1 2 3 4 5 6 7; do
    t0=$(now)
    "$@" >/dev/null 2>&1 || true
    t1=$(now)
    ms=$(python3 -c "print(int(($t1 - $t0) * 1000))")
    ((ms < best)) && best=$ms
  done
  echo "$best"
}
ls_kind=$(best_ms "$SHELF" --db "$DB" ls kind:image)
ls_matches=$("$SHELF" --db "$DB" ls -0 kind:image | tr -cd '\0' | wc -c)
ls_ext=$(best_ms "$SHELF" --db "$DB" ls ext:txt)
ext_matches=$("$SHELF" --db "$DB" ls -0 ext:txt | tr -cd '\0' | wc -c)
ls_none=$(best_ms "$SHELF" --db "$DB" ls width:12345)

echo
echo "shelf ls on a catalogue of $entries entries (best of 7, output to /dev/null):"
echo "  ls kind:image   ($ls_matches matches)  ${ls_kind} ms"
echo "  ls ext:txt      ($ext_matches matches)  ${ls_ext} ms"
echo "  ls width:12345  (no match)       ${ls_none} ms"
echo "  target: ls < 100 ms"
