#!/usr/bin/env bash
# make bench-png: shelf crush against optipng -o2, zopflipng and oxipng (PyPI pyoxipng) on a
# corpus of >= 400 real PNGs (PngSuite, icons from /usr/share/icons, PNGs from /usr/share/doc,
# generated photos, plots and screenshots). Every tool runs in the same session with 2 workers.
# Prints, per tool: total output as % of input, wall time, and how many outputs changed a pixel
# (checked independently with pypng, 16-bit samples exact).
#
# usage: scripts/bench-png.sh [path/to/shelf]     (BENCH_SKIP_MAX=1 skips the max-level table)
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-png}
WORKERS=2
[[ -x "$SHELF" ]] || { echo "bench-png: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

# --- anchors -------------------------------------------------------------------------------
need_apt=()
command -v optipng >/dev/null || need_apt+=(optipng)
command -v zopflipng >/dev/null || need_apt+=(zopfli)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
if (( $(find /usr/share/icons -name '*.png' 2>/dev/null | wc -l) < 300 )); then
  need_apt+=(hicolor-icon-theme adwaita-icon-theme)
fi
if ((${#need_apt[@]})); then
  echo "bench-png: installing ${need_apt[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bench-png: run as root: apt-get install -y ${need_apt[*]}" >&2; exit 1
  fi
fi
if ! python3 -c 'import oxipng, png' 2>/dev/null; then
  echo "bench-png: installing pyoxipng and pypng from PyPI" >&2
  python3 -m pip install -q pyoxipng pypng 2>/dev/null \
    || python3 -m pip install -q --break-system-packages pyoxipng pypng
fi

# --- corpus --------------------------------------------------------------------------------
CORPUS=$WORK/corpus
if [[ ! -f $CORPUS/.complete ]]; then
  rm -rf "$CORPUS"; mkdir -p "$CORPUS"
  for f in "$ROOT"/Tests/Fixtures/pngsuite/[!x]*.png; do cp "$f" "$CORPUS/suite-$(basename "$f")"; done
  # Icons: a spread over themes, sizes and kinds (deterministic: every Nth in sorted order).
  mapfile -t icons < <(find /usr/share/icons -name '*.png' -size +0 | LC_ALL=C sort)
  step=$(( ${#icons[@]} / 190 )); (( step >= 1 )) || step=1
  n=0
  for ((i = 0; i < ${#icons[@]} && n < 190; i += step)); do
    f=${icons[i]}
    cp "$f" "$CORPUS/icon-$(printf %03d $n)-$(basename "$f")"; n=$((n + 1))
  done
  n=0
  while IFS= read -r f; do
    cp "$f" "$CORPUS/doc-$(printf %02d $n)-$(basename "$f")"; n=$((n + 1))
  done < <(find /usr/share/doc /usr/share/pixmaps -name '*.png' -size +8k -size -400k 2>/dev/null | LC_ALL=C sort | head -40)
  python3 - "$CORPUS" <<'PY'
import png, random, sys, math, zlib
out = sys.argv[1]
rnd = random.Random(20261129)

def value_noise(w, h, cell, rnd):
    gw, gh = w // cell + 2, h // cell + 2
    grid = [[rnd.random() for _ in range(gw)] for _ in range(gh)]
    rows = []
    for y in range(h):
        gy, fy = divmod(y / cell, 1)
        gy = int(gy)
        row = []
        for x in range(w):
            gx, fx = divmod(x / cell, 1)
            gx = int(gx)
            a = grid[gy][gx] * (1 - fx) + grid[gy][gx + 1] * fx
            b = grid[gy + 1][gx] * (1 - fx) + grid[gy + 1][gx + 1] * fx
            row.append(a * (1 - fy) + b * fy)
        rows.append(row)
    return rows

# "Photos": smooth colour fields with sensor-like noise, 8-bit RGB, some 16-bit, some RGBA.
for i in range(36):
    w, h = rnd.choice([(320, 240), (400, 300), (480, 320), (256, 256)])
    channels = [value_noise(w, h, rnd.choice([24, 40, 64]), rnd) for _ in range(3)]
    sixteen = i % 6 == 5
    alpha = i % 9 == 4
    maxv = 65535 if sixteen else 255
    noise = rnd.choice([2, 4, 8]) * (257 if sixteen else 1)
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            for c in range(3):
                v = int(channels[c][y][x] * maxv) + rnd.randint(-noise, noise)
                row.append(min(maxv, max(0, v)))
            if alpha:
                row.append(maxv if (x - w / 2) ** 2 + (y - h / 2) ** 2 < (h / 2.2) ** 2 else 0)
        rows.append(row)
    writer = png.Writer(w, h, greyscale=False, alpha=alpha, bitdepth=16 if sixteen else 8, compression=6)
    with open(f"{out}/photo-{i:02d}.png", "wb") as f:
        writer.write(f, rows)

# Plots: white background, axes, a few coloured lines and markers (RGB written as true colour).
colors = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189)]
for i in range(30):
    w, h = 640, 480
    img = [[(255, 255, 255)] * w for _ in range(h)]
    def put(x, y, c):
        if 0 <= x < w and 0 <= y < h:
            img[y][x] = c
    for x in range(60, w - 20):
        put(x, h - 50, (0, 0, 0))
    for y in range(20, h - 50):
        put(60, y, (0, 0, 0))
    for gx in range(60, w - 20, 58):
        for y in range(20, h - 50, 3):
            put(gx, y, (220, 220, 220))
    for k in range(rnd.randint(1, 4)):
        c = colors[(i + k) % len(colors)]
        f1, f2, ph = rnd.uniform(1, 6), rnd.uniform(0.2, 2), rnd.uniform(0, 6)
        prev = None
        for x in range(61, w - 20):
            t = (x - 61) / (w - 81)
            y = int((h - 50) / 2 + math.sin(t * f1 * 6.28 + ph) * 120 * math.cos(t * f2))
            if prev is not None:
                for yy in range(min(prev, y), max(prev, y) + 1):
                    put(x, yy, c); put(x, yy + 1, c)
            prev = y
    rows = [[v for px in row for v in px] for row in img]
    with open(f"{out}/plot-{i:02d}.png", "wb") as f:
        png.Writer(w, h, greyscale=False, compression=9).write(f, rows)

# Screenshots: window chrome, text-like runs of dark pixels on light panels, RGBA.
for i in range(24):
    w, h = 800, 500
    bg = (rnd.randint(230, 250),) * 3
    rows = []
    lines = {}
    for y in range(h):
        row = []
        for x in range(w):
            if y < 28:
                c = (60, 63, 65)
            elif x < 180:
                c = (43, 45, 48)
            else:
                c = bg
            row.extend(c + (255,))
        rows.append(row)
    for line in range(30, h - 20, 18):
        x = 200
        while x < w - 40:
            word = rnd.randint(3, 10) * 7
            if rnd.random() < 0.85:
                for y in range(line, line + 10):
                    for xx in range(x, min(w - 20, x + word)):
                        if rnd.random() < 0.45:
                            rows[y][xx * 4:xx * 4 + 3] = [30, 30, 30]
            x += word + 7
    with open(f"{out}/screen-{i:02d}.png", "wb") as f:
        png.Writer(w, h, greyscale=False, alpha=True, compression=6).write(f, rows)
PY
  touch "$CORPUS/.complete"
fi
count=$(find "$CORPUS" -name '*.png' | wc -l)
echo "corpus: $count PNGs, $(du -sh --apparent-size "$CORPUS" | cut -f1) in $CORPUS"
(( count >= 400 )) || { echo "bench-png: corpus has fewer than 400 PNGs" >&2; exit 1; }

# --- runs ----------------------------------------------------------------------------------
RESULTS=$WORK/results.tsv
: > "$RESULTS"
now() { date +%s.%N; }

run_tool() {  # name, output folder, command (reads $CORPUS, writes the folder)
  local name=$1 out=$2; shift 2
  rm -rf "$out"; mkdir -p "$out"
  local start end cpu
  start=$(now)
  # CPU seconds (user + system of the tool and its children): on a shared machine they
  # compare better than wall time, which depends on the other load.
  cpu=$( { TIMEFORMAT='%U %S'; time { "$@" >"$out.log" 2>&1 || true; }; } 2>&1 | awk '{ printf "%.2f", $1 + $2 }')
  end=$(now)
  # Any file a tool did not write counts as its input (a tool that gives up keeps the original).
  for f in "$CORPUS"/*.png; do
    [[ -s "$out/$(basename "$f")" ]] || cp "$f" "$out/$(basename "$f")"
  done
  local seconds
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  echo -e "$name\t$out\t$seconds\t$cpu" >> "$RESULTS"
  echo "  $name: $seconds s wall, $cpu s CPU" >&2
}

shelf_run() { local level=$1 out=$2; shift 2; "$SHELF" crush --jobs $WORKERS --level "$level" "$@" -o "$out" "$CORPUS"/*.png; }
optipng_run() { find "$CORPUS" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do optipng -quiet -o2 -out "$0/$(basename "$f")" "$f"; done' "$1"; }
zopflipng_run() { find "$CORPUS" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do zopflipng -y "$f" "$0/$(basename "$f")" >/dev/null; done' "$1"; }
oxipng_run() {
  python3 - "$CORPUS" "$2" "$1" $WORKERS <<'PY'
import oxipng, os, sys, glob
from concurrent.futures import ProcessPoolExecutor
corpus, out, level, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def one(path):
    try:
        oxipng.optimize(path, os.path.join(out, os.path.basename(path)), level=level)
    except Exception as error:
        print(path, error)
with ProcessPoolExecutor(workers) as pool:
    list(pool.map(one, sorted(glob.glob(corpus + "/*.png")), chunksize=4))
PY
}

echo "running (2 workers each):" >&2
run_tool "shelf crush (level 2)" "$WORK/shelf-2" shelf_run 2 "$WORK/shelf-2"
run_tool "oxipng (default, -o2)" "$WORK/oxipng-2" oxipng_run 2 "$WORK/oxipng-2"
run_tool "optipng -o2" "$WORK/optipng" optipng_run "$WORK/optipng"
run_tool "zopflipng" "$WORK/zopflipng" zopflipng_run "$WORK/zopflipng"
if [[ -z ${BENCH_SKIP_MAX:-} ]]; then
  run_tool "shelf crush --level max" "$WORK/shelf-max" shelf_run max "$WORK/shelf-max"
  # zopflipng drops every ancillary chunk by default: compare it with --strip all too.
  run_tool "shelf --level max --strip all" "$WORK/shelf-max-strip" shelf_run max "$WORK/shelf-max-strip" --strip all
  run_tool "oxipng -o max" "$WORK/oxipng-max" oxipng_run 6 "$WORK/oxipng-max"
fi

# --- sizes and the independent pixel check ------------------------------------------------
python3 - "$CORPUS" "$RESULTS" $WORKERS <<'PY'
import os, sys, png
from concurrent.futures import ProcessPoolExecutor
corpus, results, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(n for n in os.listdir(corpus) if n.endswith(".png"))

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

reference = {}
total_in = sum(os.path.getsize(os.path.join(corpus, n)) for n in names)
print()
print(f"{'tool':<31}{'output % of input':>18}{'wall time':>12}{'CPU time':>11}{'pixels changed':>16}")
lines = []
with ProcessPoolExecutor(workers) as pool:
    for line in open(results):
        name, out, seconds, cpu = line.rstrip("\n").split("\t")
        total_out = sum(os.path.getsize(os.path.join(out, n)) for n in names)
        checks = list(pool.map(same, [(os.path.join(corpus, n), os.path.join(out, n)) for n in names], chunksize=8))
        changed = sum(1 for c in checks if c is not True)
        for c in checks:
            if c is not True and c is not False:
                print("   unreadable:", c)
        print(f"{name:<31}{100.0 * total_out / total_in:>17.2f}%{float(seconds):>11.2f}s{float(cpu):>10.2f}s{changed:>16}")
print(f"\ninput: {len(names)} files, {total_in} bytes")
PY
