#!/usr/bin/env bash
# make bench-png: shelf crush against oxipng (PyPI pyoxipng), optipng -o2 and zopflipng on a
# corpus of 340 real PNGs, photographs, icons and plots, taken from Debian packages that the
# tests and the earlier benchmark never used (scripts/bench-png-corpus.py says which and how).
# Every tool runs in the same session with 2 workers. shelf and oxipng run ALTERNATING for
# BENCH_ROUNDS rounds (default 3; the first tool of each round swaps), and the medians of
# their wall and CPU times are compared: the machine may be busy, so only ratios mean much.
# Prints, per tool: total output as % of input, median wall and CPU time, how many outputs
# changed a pixel (checked independently with pypng, 16-bit samples exact), a row per
# category, and the peak memory of crushing one big photograph against its decoded size.
#
# usage: scripts/bench-png.sh [path/to/shelf]
#   BENCH_SKIP_MAX=1 skips the max-level table; BENCH_MAX_PIXELS=N (default 65000) sets the
#   largest image (in pixels) that table includes; BENCH_MAX_ROUNDS (default BENCH_ROUNDS) its
#   rounds; BENCH_SKIP_OTHERS=1 skips optipng and zopflipng (run once).
#   BENCH_CATEGORY=photographs (or icons, plots) runs the default-level table on that
#   category only (and skips the max table).
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-png}
WORKERS=2
ROUNDS=${BENCH_ROUNDS:-3}
MAX_ROUNDS=${BENCH_MAX_ROUNDS:-$ROUNDS}
[[ -x "$SHELF" ]] || { echo "bench-png: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

# --- anchors -------------------------------------------------------------------------------
need_apt=()
command -v optipng >/dev/null || need_apt+=(optipng)
command -v zopflipng >/dev/null || need_apt+=(zopfli)
command -v gnuplot >/dev/null || need_apt+=(gnuplot-nox)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
[[ -x /usr/bin/time ]] || need_apt+=(time)
if ((${#need_apt[@]})); then
  echo "bench-png: installing ${need_apt[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bench-png: run as root: apt-get install -y ${need_apt[*]}" >&2; exit 1
  fi
fi
if ! python3 -c 'import oxipng, png, PIL, numpy' 2>/dev/null; then
  echo "bench-png: installing pyoxipng, pypng, Pillow and numpy from PyPI" >&2
  python3 -m pip install -q pyoxipng pypng Pillow numpy 2>/dev/null \
    || python3 -m pip install -q --break-system-packages pyoxipng pypng Pillow numpy
fi

# --- corpus --------------------------------------------------------------------------------
# The source packages are downloaded (not installed) and unpacked into the work folder; the
# corpus is made once and kept.
CORPUS=$WORK/corpus-held-out
PACKAGES=(opencv-doc python-matplotlib-data lomiri-wallpapers lomiri-wallpapers-20.04 gimp-data
  tango-icon-theme elementary-xfce-icon-theme)
if [[ ! -f $CORPUS/.complete ]]; then
  debs=$WORK/debs
  mkdir -p "$debs"
  if ! (cd "$debs" && apt-get download "${PACKAGES[@]}" >/dev/null 2>&1); then
    apt-get update -qq && (cd "$debs" && apt-get download "${PACKAGES[@]}" >/dev/null)
  fi
  unpacked=$WORK/unpacked
  rm -rf "$unpacked"; mkdir -p "$unpacked"
  for deb in "$debs"/*.deb; do
    # opencv-doc is 270 MB unpacked: only its sample images are needed.
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$unpacked" --wildcards \
      './usr/share/doc/opencv-doc/examples/data/*' './usr/share/doc/opencv-doc/examples/text/*' \
      './usr/share/matplotlib/*' './usr/share/backgrounds/*' './usr/share/gimp/*' \
      './usr/share/icons/*' 2>/dev/null || true
  done
  rm -rf "$CORPUS"
  python3 "$ROOT/scripts/bench-png-corpus.py" "$unpacked" "$CORPUS"
  rm -rf "$unpacked"
  touch "$CORPUS/.complete"
fi
count=$(find "$CORPUS" -name '*.png' | wc -l)
echo "corpus: $count PNGs, $(du -sh --apparent-size "$CORPUS" | cut -f1) in $CORPUS"
(( count >= 300 )) || { echo "bench-png: corpus has fewer than 300 PNGs" >&2; exit 1; }

if [[ -n ${BENCH_CATEGORY:-} ]]; then
  case $BENCH_CATEGORY in
    photographs) prefix=photo ;; plots) prefix=plot ;; icons) prefix=icon ;;
    *) echo "bench-png: unknown BENCH_CATEGORY $BENCH_CATEGORY (photographs, icons, plots)" >&2; exit 64 ;;
  esac
  SELECTED=$WORK/category-$prefix
  rm -rf "$SELECTED"; mkdir -p "$SELECTED"
  cp "$CORPUS/$prefix"-*.png "$SELECTED/"
  CORPUS=$SELECTED
  BENCH_SKIP_MAX=1
  echo "category $BENCH_CATEGORY: $(find "$CORPUS" -name '*.png' | wc -l) PNGs" >&2
fi

# The corpus of the highest levels: oxipng's strongest setting (level 6 with zopfli)
# compresses every filter strategy with zopfli, about a minute for one 640x480 photograph on
# a busy 2-core machine. So only the images up to BENCH_MAX_PIXELS pixels (default 65000:
# every icon, the 240-pixel photographs, the small plots) are in.
MAX_PIXELS=${BENCH_MAX_PIXELS:-65000}
MAXSET=$WORK/max-held-out-$MAX_PIXELS
if [[ -z ${BENCH_SKIP_MAX:-} && ! -f $MAXSET/.complete ]]; then
  rm -rf "$MAXSET"; mkdir -p "$MAXSET"
  python3 - "$CORPUS" "$MAXSET" "$MAX_PIXELS" <<'PY'
import os, shutil, struct, sys
corpus, out, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name in sorted(os.listdir(corpus)):
    if not name.endswith(".png"):
        continue
    path = os.path.join(corpus, name)
    with open(path, "rb") as f:
        width, height = struct.unpack(">II", f.read(24)[16:24])
    if width * height <= limit:
        shutil.copy(path, out)
PY
  touch "$MAXSET/.complete"
fi

# --- runs ----------------------------------------------------------------------------------
RESULTS=$WORK/results.tsv
: > "$RESULTS"
now() { date +%s.%N; }

run_once() {  # output folder, command: prints "wall cpu"
  local out=$1; shift
  rm -rf "$out"; mkdir -p "$out"
  local start end cpu
  start=$(now)
  # CPU seconds (user + system of the tool and its children): on a shared machine they
  # compare better than wall time, which depends on the other load.
  cpu=$( { TIMEFORMAT='%U %S'; time { "$@" >"$out.log" 2>&1 || true; }; } 2>&1 | awk '{ printf "%.2f", $1 + $2 }')
  end=$(now)
  awk -v a="$start" -v b="$end" -v c="$cpu" 'BEGIN { printf "%.2f %s\n", b - a, c }'
}

median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

record() {  # name, input folder, output folder, walls, cpus
  local name=$1 in=$2 out=$3 walls=$4 cpus=$5
  # Any file a tool did not write counts as its input (a tool that gives up keeps the original).
  for f in "$in"/*.png; do
    [[ -s "$out/$(basename "$f")" ]] || cp "$f" "$out/$(basename "$f")"
  done
  local wall cpu
  wall=$(echo "$walls" | median); cpu=$(echo "$cpus" | median)
  echo -e "$name\t$in\t$out\t$wall\t$cpu" >> "$RESULTS"
  echo "  $name: median $wall s wall, $cpu s CPU (walls: $walls)" >&2
}

# Runs tools A and B (name, output folder, command) alternating for ROUNDS rounds.
alternate() {  # rounds, input folder, nameA, outA, cmdA, nameB, outB, cmdB
  local rounds=$1 in=$2 name_a=$3 out_a=$4 cmd_a=$5 name_b=$6 out_b=$7 cmd_b=$8
  local walls_a="" cpus_a="" walls_b="" cpus_b="" r t
  for ((r = 1; r <= rounds; r++)); do
    for t in a b; do
      if (( r % 2 == 0 )); then t=$([[ $t == a ]] && echo b || echo a); fi
      if [[ $t == a ]]; then
        read -r w c < <(run_once "$out_a" $cmd_a "$out_a"); walls_a+="$w "; cpus_a+="$c "
      else
        read -r w c < <(run_once "$out_b" $cmd_b "$out_b"); walls_b+="$w "; cpus_b+="$c "
      fi
    done
    echo "  round $r of $rounds: $name_a $(echo $walls_a | awk '{ print $NF }') s, $name_b $(echo $walls_b | awk '{ print $NF }') s" >&2
  done
  record "$name_a" "$in" "$out_a" "${walls_a% }" "${cpus_a% }"
  record "$name_b" "$in" "$out_b" "${walls_b% }" "${cpus_b% }"
}

# The commands take their output folder last.
shelf_2() { "$SHELF" crush --jobs $WORKERS --level 2 -o "$1" "$IN"/*.png; }
shelf_max() { "$SHELF" crush --jobs $WORKERS --level max -o "$1" "$IN"/*.png; }
optipng_run() { find "$IN" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do optipng -quiet -o2 -out "$0/$(basename "$f")" "$f"; done' "$1"; }
zopflipng_run() { find "$IN" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do zopflipng -y "$f" "$0/$(basename "$f")" >/dev/null; done' "$1"; }
# oxipng has no command-line build on PyPI or in Debian 12: its Python binding (pyoxipng, the
# same Rust library and bundled libdeflate) runs in 2 worker processes.
oxipng_run() {  # level, [zopfli], output folder
  local level=$1 zopfli="" out
  if [[ $2 == zopfli ]]; then zopfli=zopfli; out=$3; else out=$2; fi
  python3 - "$IN" "$out" "$level" $WORKERS "$zopfli" <<'PY'
import oxipng, os, sys, glob
from concurrent.futures import ProcessPoolExecutor
corpus, out, level, workers, zopfli = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
options = {"level": level}
if zopfli:
    options["deflate"] = oxipng.Deflaters.zopfli(15)
def one(path):
    try:
        oxipng.optimize(path, os.path.join(out, os.path.basename(path)), **options)
    except Exception as error:
        print(path, error)
with ProcessPoolExecutor(workers) as pool:
    list(pool.map(one, sorted(glob.glob(corpus + "/*.png")), chunksize=1))
PY
}
oxipng_2() { oxipng_run 2 "$1"; }
oxipng_6() { oxipng_run 6 "$1"; }
oxipng_6z() { oxipng_run 6 zopfli "$1"; }

echo "running (2 workers each, $ROUNDS rounds alternating):" >&2
IN=$CORPUS
alternate "$ROUNDS" "$CORPUS" "shelf crush (level 2)" "$WORK/shelf-2" shelf_2 \
  "oxipng (default, -o2)" "$WORK/oxipng-2" oxipng_2
if [[ -z ${BENCH_SKIP_OTHERS:-} ]]; then
  read -r w c < <(run_once "$WORK/optipng" optipng_run "$WORK/optipng")
  record "optipng -o2 (1 run)" "$CORPUS" "$WORK/optipng" "$w" "$c"
  read -r w c < <(run_once "$WORK/zopflipng" zopflipng_run "$WORK/zopflipng")
  record "zopflipng (1 run)" "$CORPUS" "$WORK/zopflipng" "$w" "$c"
fi
if [[ -z ${BENCH_SKIP_MAX:-} ]]; then
  echo "highest levels on $(find "$MAXSET" -name '*.png' | wc -l) PNGs of at most $MAX_PIXELS pixels, $MAX_ROUNDS rounds:" >&2
  IN=$MAXSET
  alternate "$MAX_ROUNDS" "$MAXSET" "max: shelf --level max" "$WORK/max-shelf" shelf_max \
    "max: oxipng -o 6 --zopfli" "$WORK/max-oxipng-zopfli" oxipng_6z
  read -r w c < <(run_once "$WORK/max-oxipng" oxipng_6 "$WORK/max-oxipng")
  record "max: oxipng -o max (1 run)" "$MAXSET" "$WORK/max-oxipng" "$w" "$c"
fi

# --- the memory bound ----------------------------------------------------------------------
# Two big photographs (3000x2250 and 6000x4500 RGB tilings of the corpus's largest, 19 and 77
# MiB decoded): the crush's peak resident set against twice the decoded image (issue 21's
# bound). The process's own resting set (the crush of a 1x1 PNG: runtime, libraries) is
# printed too, and the peak above it, since it does not grow with the image.
for size in 3000x2250 6000x4500; do
  BIG=$WORK/big-photo-$size.png
  [[ -f $BIG ]] && continue
  python3 - "$CORPUS" "$BIG" "${size%x*}" "${size#*x}" <<'PY'
import glob, sys
from PIL import Image
width, height = int(sys.argv[3]), int(sys.argv[4])
photos = sorted(glob.glob(sys.argv[1] + "/photo-*-rgb.png"), key=lambda p: (-Image.open(p).width * Image.open(p).height, p))
tile = Image.open(photos[0]).convert("RGB")
big = Image.new("RGB", (width, height))
for y in range(0, height, tile.height):
    for x in range(0, width, tile.width):
        big.paste(tile.transpose(Image.FLIP_LEFT_RIGHT) if (x // tile.width + y // tile.height) % 2 else tile, (x, y))
big.save(sys.argv[2], compress_level=6)
PY
done
peak_kib() {  # the maximum resident set, in KiB, of crushing $1 at level 2 with 2 workers
  rm -rf "$WORK/memory"
  { /usr/bin/time -f 'maxrss=%M' "$SHELF" crush --jobs $WORKERS --level 2 -o "$WORK/memory" "$1" >/dev/null; } 2>&1 | sed -n 's/^maxrss=//p' | tail -1
}
python3 -c 'from PIL import Image; import sys; Image.new("RGB", (1, 1)).save(sys.argv[1])' "$WORK/one-pixel.png"
resting=$(peak_kib "$WORK/one-pixel.png")
MEMORY="resting set (a 1x1 PNG): $((resting / 1024)) MiB\n"
# (The default level: zopfli at max would take an hour on them; the filtering is the same.)
for size in 3000x2250 6000x4500; do
  peak=$(peak_kib "$WORK/big-photo-$size.png")
  decoded=$(( ${size%x*} * ${size#*x} * 3 ))
  MEMORY+="$size, level 2: peak $((peak / 1024)) MiB, $(awk -v p="$peak" -v d="$decoded" -v r="$resting" 'BEGIN { printf "%.2fx the decoded image, %.2fx above the resting set", p * 1024 / d, (p - r) * 1024 / d }') (bound 2x)\n"
done

# --- sizes and the independent pixel check ------------------------------------------------
python3 - "$RESULTS" $WORKERS <<'PY'
import os, sys, png
from concurrent.futures import ProcessPoolExecutor
results, workers = sys.argv[1], int(sys.argv[2])
CATEGORIES = [("photo", "photographs"), ("icon", "icons"), ("plot", "plots")]

def pixels(path):
    """RGBA samples scaled to 16 bits (exact: 8-bit v -> v*257; low-bit gray scaled exactly)."""
    reader = png.Reader(filename=path)
    reader.preamble()
    reader.sbit = None  # compare stored samples, not sBIT-rescaled ones
    width, height, rows, info = reader.asRGBA()
    depth = info["bitdepth"]
    scale = 65535 // ((1 << depth) - 1)
    return width, height, [tuple(v * scale for v in row) for row in rows]

def same(pair):
    a, b = pair
    try:
        return pixels(a) == pixels(b)
    except Exception as error:
        return f"{b}: {error}"

rows = []
with ProcessPoolExecutor(workers) as pool:
    for line in open(results):
        name, corpus, out, seconds, cpu = line.rstrip("\n").split("\t")
        names = sorted(n for n in os.listdir(corpus) if n.endswith(".png"))
        sizes = {n: (os.path.getsize(os.path.join(corpus, n)), os.path.getsize(os.path.join(out, n))) for n in names}
        checks = list(pool.map(same, [(os.path.join(corpus, n), os.path.join(out, n)) for n in names], chunksize=8))
        changed = sum(1 for c in checks if c is not True)
        for c in checks:
            if c is not True and c is not False:
                print("   unreadable:", c)
        rows.append((name, corpus, sizes, float(seconds), float(cpu), changed))

def table(selected, title):
    corpus = selected[0][1]
    names = sorted(selected[0][2])
    total_in = sum(selected[0][2][n][0] for n in names)
    print(f"\n{title}: {len(names)} files, {total_in} bytes")
    print(f"{'tool (median wall and CPU)':<34}{'output % of input':>18}{'bytes':>11}{'wall time':>11}{'CPU time':>10}{'pixels changed':>16}")
    for name, _, sizes, seconds, cpu, changed in selected:
        total_out = sum(out for _, out in sizes.values())
        print(f"{name:<34}{100.0 * total_out / total_in:>17.2f}%{total_out:>11}{seconds:>10.2f}s{cpu:>9.2f}s{changed:>16}")
    print(f"\n{'per category, % of input':<34}" + "".join(f"{label:>13}" for _, label in CATEGORIES))
    for name, _, sizes, *_ in selected:
        cells = []
        for prefix, _ in CATEGORIES:
            chosen = [v for n, v in sizes.items() if n.startswith(prefix + "-")]
            cells.append(f"{100.0 * sum(o for _, o in chosen) / max(1, sum(i for i, _ in chosen)):>12.2f}%" if chosen else f"{'-':>13}")
        print(f"{name:<34}" + "".join(cells))

    shelf, anchor = selected[0], selected[1]
    size = sum(o for _, o in shelf[2].values()) / sum(o for _, o in anchor[2].values())
    print(f"\n{shelf[0]} / {anchor[0]}: size {size:.4f}, wall {shelf[3] / anchor[3]:.2f}, CPU {shelf[4] / max(0.01, anchor[4]):.2f}")

full = [r for r in rows if not r[0].startswith("max:")]
highest = [r for r in rows if r[0].startswith("max:")]
table(full, "corpus")
if highest:
    table(highest, "highest levels, the files of at most the pixel limit")
PY
printf "\nmemory, crushing one big photograph at a time:\n$MEMORY"
