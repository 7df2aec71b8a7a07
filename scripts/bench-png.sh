#!/usr/bin/env bash
# make bench-png: shelf crush against oxipng (PyPI pyoxipng), optipng -o2 and zopflipng on a
# corpus of >= 400 PNGs: PngSuite, icons from /usr/share/icons, PNGs from /usr/share/doc, real
# photographs (scikit-image's, libvips' owl, Debian's wallpapers; 8-bit RGB, RGBA, gray and
# 16-bit), generated plots and screenshots. Every tool runs in the same session with 2 workers.
# Prints, per tool: total output as % of input, wall and CPU time, how many outputs changed a
# pixel (checked independently with pypng, 16-bit samples exact), and a row per category.
#
# usage: scripts/bench-png.sh [path/to/shelf]
#   BENCH_SKIP_MAX=1 skips the max-level table; BENCH_MAX_PIXELS=N (default 65000) sets the
#   largest photograph and document (in pixels) that table includes; BENCH_SKIP_OTHERS=1 skips
#   optipng and zopflipng. BENCH_CATEGORY=photographs (or plots, icons, screenshots, PngSuite,
#   documents) runs the default-level table on that category only (and skips the max table).
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
[[ -d /usr/share/backgrounds/gnome ]] || need_apt+=(gnome-backgrounds)
[[ -d /usr/share/desktop-base ]] || need_apt+=(desktop-base)
if ((${#need_apt[@]})); then
  echo "bench-png: installing ${need_apt[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bench-png: run as root: apt-get install -y ${need_apt[*]}" >&2; exit 1
  fi
fi
if ! python3 -c 'import oxipng, png, PIL, numpy, skimage' 2>/dev/null; then
  echo "bench-png: installing pyoxipng, pypng, Pillow and scikit-image from PyPI" >&2
  python3 -m pip install -q pyoxipng pypng Pillow scikit-image 2>/dev/null \
    || python3 -m pip install -q --break-system-packages pyoxipng pypng Pillow scikit-image
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
  # Photographs: real photographs shipped by scikit-image (astronaut, coffee, chelsea, camera,
  # the Hubble deep field, ...), libvips' owl, and Debian's wallpapers (gnome-backgrounds,
  # desktop-base: decoded from WebP/JPEG), saved as PNG by Pillow at several sizes, as 8-bit
  # RGB, RGBA (a feathered cut-out), gray and a few 16-bit (resampled in floating point, so
  # the low bytes carry detail).
  python3 - "$CORPUS" <<'PY'
import glob, os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageFilter
import skimage.data
out = sys.argv[1]
data = skimage.data.data_dir
colour = [os.path.join(data, n) for n in (
    "astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "hubble_deep_field.jpg",
    "retina.jpg", "ihc.png", "motorcycle_left.png", "motorcycle_right.png")]
colour += ["/usr/share/gtk-doc/html/libvips/owl.jpg"]
colour += sorted(glob.glob("/usr/share/backgrounds/gnome/wood-*.webp"))
colour += sorted(glob.glob("/usr/share/backgrounds/gnome/adwaita-l.webp"))
colour += sorted(glob.glob("/usr/share/backgrounds/gnome/licorice-d.webp"))
colour += [f"/usr/share/desktop-base/{theme}-theme/login/sddm-preview.jpg" for theme in (
    "joy", "lines", "softwaves", "spacefun")]
gray = [os.path.join(data, n) for n in (
    "camera.png", "moon.png", "coins.png", "grass.png", "gravel.png", "brick.png",
    "clock_motion.png", "microaneurysms.png", "cell.png", "page.png", "text.png")]
n = 0
def save(image, tag):
    global n
    image.save(f"{out}/photo-{n:02d}-{tag}.png", compress_level=6)
    n += 1
def capped(image, side):
    scale = min(1.0, side / max(image.size))
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image if scale == 1.0 else image.resize(size, Image.LANCZOS)
for i, path in enumerate(colour):
    if not os.path.exists(path):
        continue
    image = Image.open(path).convert("RGB")
    name = os.path.splitext(os.path.basename(path))[0]
    if os.path.dirname(path).endswith("login"):
        name = os.path.basename(os.path.dirname(os.path.dirname(path)))
    big = capped(image, 800)
    save(big, f"{name}-rgb")
    if i % 2 == 0:
        save(capped(image, 320), f"{name}-rgb-small")
    if i % 3 == 0:
        save(capped(image, 640).convert("L"), f"{name}-gray")
    if i % 4 == 1:
        # A cut-out: an ellipse with a feathered edge as the alpha channel.
        cut = capped(image, 480)
        mask = Image.new("L", cut.size, 0)
        ImageDraw.Draw(mask).ellipse(
            (cut.width * 0.08, cut.height * 0.08, cut.width * 0.92, cut.height * 0.92), fill=255)
        cut.putalpha(mask.filter(ImageFilter.GaussianBlur(6)))
        save(cut, f"{name}-rgba")
    if i % 4 == 2:
        # 16-bit: resampled in floating point from the full-size photograph.
        small = capped(image, 400)
        planes = [np.asarray(image.getchannel(c), dtype=np.float32) for c in range(3)]
        resized = [np.asarray(Image.fromarray(p).resize(small.size, Image.LANCZOS)) for p in planes]
        samples = np.clip(np.stack(resized, axis=2) * 257.0, 0, 65535).astype(">u2")
        height, width = samples.shape[:2]
        import png
        with open(f"{out}/photo-{n:02d}-{name}-rgb16.png", "wb") as f:
            png.Writer(width, height, greyscale=False, bitdepth=16, compression=6).write(
                f, samples.reshape(height, width * 3).tolist())
        n += 1
for i, path in enumerate(gray):
    image = Image.open(path).convert("L")
    name = os.path.splitext(os.path.basename(path))[0]
    save(capped(image, 800), f"{name}-gray")
    if i % 4 == 0:
        small = capped(image, 256)
        plane = np.asarray(image, dtype=np.float32)
        resized = np.asarray(Image.fromarray(plane).resize(small.size, Image.LANCZOS))
        samples = np.clip(resized * 257.0, 0, 65535).astype(np.uint16)
        Image.fromarray(samples).save(f"{out}/photo-{n:02d}-{name}-gray16.png")
        n += 1
print(f"photographs: {n}")
PY
  python3 - "$CORPUS" <<'PY'
import png, random, sys, math, zlib
out = sys.argv[1]
rnd = random.Random(20261129)

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

if [[ -n ${BENCH_CATEGORY:-} ]]; then
  case $BENCH_CATEGORY in
    photographs) prefix=photo ;; plots) prefix=plot ;; icons) prefix=icon ;;
    screenshots) prefix=screen ;; PngSuite) prefix=suite ;; documents) prefix=doc ;;
    *) echo "bench-png: unknown BENCH_CATEGORY $BENCH_CATEGORY (photographs, plots, icons, screenshots, PngSuite, documents)" >&2; exit 64 ;;
  esac
  SELECTED=$WORK/category-$prefix
  rm -rf "$SELECTED"; mkdir -p "$SELECTED"
  cp "$CORPUS/$prefix"-*.png "$SELECTED/"
  CORPUS=$SELECTED
  BENCH_SKIP_MAX=1
  echo "category $BENCH_CATEGORY: $(find "$CORPUS" -name '*.png' | wc -l) PNGs" >&2
fi

# The corpus of the highest levels: oxipng's strongest setting (level 6 with zopfli)
# compresses every filter strategy with zopfli: about a minute for one 320x180 photograph or
# one 725x212 diagram on a busy 2-core machine, hours for the 56 photographs or the 2100x2100
# plots among the documents. So the photographs and documents above BENCH_MAX_PIXELS pixels
# (default 65000: 52 of the 56 photographs, 18 of the 22 documents) are left out; every other
# file of every category is in.
MAX_PIXELS=${BENCH_MAX_PIXELS:-65000}
MAXSET=$WORK/max-corpus-$MAX_PIXELS
if [[ -z ${BENCH_SKIP_MAX:-} && ! -f $MAXSET/.complete ]]; then
  rm -rf "$MAXSET"; mkdir -p "$MAXSET"
  python3 - "$CORPUS" "$MAXSET" "$MAX_PIXELS" <<'PY'
import os, shutil, struct, sys
corpus, out, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name in sorted(os.listdir(corpus)):
    if not name.endswith(".png"):
        continue
    path = os.path.join(corpus, name)
    if name.startswith(("photo-", "doc-")):
        with open(path, "rb") as f:
            width, height = struct.unpack(">II", f.read(24)[16:24])
        if width * height > limit:
            continue
    shutil.copy(path, out)
PY
  touch "$MAXSET/.complete"
fi

# --- runs ----------------------------------------------------------------------------------
RESULTS=$WORK/results.tsv
: > "$RESULTS"
now() { date +%s.%N; }

run_tool() {  # name, input folder, output folder, command (reads the input, writes the output)
  local name=$1 in=$2 out=$3; shift 3
  rm -rf "$out"; mkdir -p "$out"
  local start end cpu
  start=$(now)
  # CPU seconds (user + system of the tool and its children): on a shared machine they
  # compare better than wall time, which depends on the other load.
  cpu=$( { TIMEFORMAT='%U %S'; time { "$@" >"$out.log" 2>&1 || true; }; } 2>&1 | awk '{ printf "%.2f", $1 + $2 }')
  end=$(now)
  # Any file a tool did not write counts as its input (a tool that gives up keeps the original).
  for f in "$in"/*.png; do
    [[ -s "$out/$(basename "$f")" ]] || cp "$f" "$out/$(basename "$f")"
  done
  local seconds
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  echo -e "$name\t$in\t$out\t$seconds\t$cpu" >> "$RESULTS"
  echo "  $name: $seconds s wall, $cpu s CPU" >&2
}

shelf_run() { local in=$1 level=$2 out=$3; shift 3; "$SHELF" crush --jobs $WORKERS --level "$level" "$@" -o "$out" "$in"/*.png; }
optipng_run() { find "$1" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do optipng -quiet -o2 -out "$0/$(basename "$f")" "$f"; done' "$2"; }
zopflipng_run() { find "$1" -name '*.png' -print0 | xargs -0 -P $WORKERS -n 8 sh -c 'for f; do zopflipng -y "$f" "$0/$(basename "$f")" >/dev/null; done' "$2"; }
# oxipng has no command-line build on PyPI or in Debian 12: its Python binding (pyoxipng, the
# same Rust library and bundled libdeflate) runs in 2 worker processes.
oxipng_run() {  # input folder, level, output folder, [zopfli]
  python3 - "$1" "$3" "$2" $WORKERS "${4:-}" <<'PY'
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

echo "running (2 workers each):" >&2
run_tool "shelf crush (level 2)" "$CORPUS" "$WORK/shelf-2" shelf_run "$CORPUS" 2 "$WORK/shelf-2"
run_tool "oxipng (default, -o2)" "$CORPUS" "$WORK/oxipng-2" oxipng_run "$CORPUS" 2 "$WORK/oxipng-2"
if [[ -z ${BENCH_SKIP_OTHERS:-} ]]; then
  run_tool "optipng -o2" "$CORPUS" "$WORK/optipng" optipng_run "$CORPUS" "$WORK/optipng"
  run_tool "zopflipng" "$CORPUS" "$WORK/zopflipng" zopflipng_run "$CORPUS" "$WORK/zopflipng"
fi
if [[ -z ${BENCH_SKIP_MAX:-} ]]; then
  echo "highest levels on $(find "$MAXSET" -name '*.png' | wc -l) PNGs (photographs and documents above $MAX_PIXELS pixels left out):" >&2
  run_tool "max: shelf --level max" "$MAXSET" "$WORK/max-shelf" shelf_run "$MAXSET" max "$WORK/max-shelf"
  run_tool "max: oxipng -o max" "$MAXSET" "$WORK/max-oxipng" oxipng_run "$MAXSET" 6 "$WORK/max-oxipng"
  run_tool "max: oxipng -o 6 --zopfli" "$MAXSET" "$WORK/max-oxipng-zopfli" oxipng_run "$MAXSET" 6 "$WORK/max-oxipng-zopfli" zopfli
fi

# --- sizes and the independent pixel check ------------------------------------------------
python3 - "$RESULTS" $WORKERS <<'PY'
import os, sys, png
from concurrent.futures import ProcessPoolExecutor
results, workers = sys.argv[1], int(sys.argv[2])
CATEGORIES = [("photo", "photographs"), ("plot", "plots"), ("icon", "icons"),
              ("screen", "screenshots"), ("suite", "PngSuite"), ("doc", "documents")]

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
    print(f"{'tool':<34}{'output % of input':>18}{'bytes':>11}{'wall time':>11}{'CPU time':>10}{'pixels changed':>16}")
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

full = [r for r in rows if not r[0].startswith("max:")]
highest = [r for r in rows if r[0].startswith("max:")]
table(full, "corpus")
if highest:
    table(highest, "highest levels, every file but the photographs and documents above the pixel limit")
PY
