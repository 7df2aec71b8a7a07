#!/usr/bin/env bash
# make bench-dupes: `shelf dupes` against jdupes -r, fdupes -r, rmlint and rdfind on one real
# tree: /usr/share/doc and /usr/share/icons/hicolor with a second copy of part of each (some of
# the copies then changed in the middle, so that sizes, heads and tails still match), the real
# photographs of mate-backgrounds and plasma-workspace-wallpapers three times (a folder, a phone's
# camera uploads, an old phone's copy), and SampleMedia with its iPhone backups. shelf indexes the tree once; "first" is a `dupes` with no hash cached (the
# catalogue's content_hashes emptied before each run), "second" one with the hashes of the run
# before. Warm cache; every contestant runs once a round, in an order that rotates from round to
# round; the medians of the rounds and the ratios are printed, and the groups shelf finds are
# compared with jdupes' (the names of one inode counted once). Issue 25's targets: first no
# slower than jdupes -r, second at least 10x faster.
#
# usage: scripts/bench-dupes.sh [path/to/shelf]
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-dupes}
ROUNDS=${BENCH_ROUNDS:-3}
[[ -x "$SHELF" ]] || { echo "bench-dupes: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

missing=()
for tool in jdupes fdupes rmlint rdfind python3; do command -v $tool >/dev/null || missing+=("$tool"); done
for folder in /usr/share/backgrounds/mate /usr/share/wallpapers; do
  [[ -d $folder ]] || missing+=("$folder")
done
if ((${#missing[@]})); then
  echo "bench-dupes: missing ${missing[*]}: run scripts/setup.sh" >&2
  exit 1
fi

TREE=$WORK/tree
if [[ ! -f $WORK/.generated ]]; then
  rm -rf "$WORK"
  mkdir -p "$TREE"
  cp -r /usr/share/doc "$TREE/doc"
  cp -r /usr/share/icons/hicolor "$TREE/icons"
  cp -r "$ROOT/SampleMedia" "$TREE/SampleMedia"
  mkdir -p "$TREE/Pictures" "$TREE/Camera Uploads"
  python3 - "$TREE" <<'PY'
import os, random, shutil, sys
tree = sys.argv[1]
random.seed(25)
# The photographs, each named for the wallpaper it comes from (Plasma's share file names).
for source in ("/usr/share/backgrounds/mate", "/usr/share/wallpapers"):
    for folder, _, names in os.walk(source):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith((".jpg", ".png")) and os.path.getsize(path) > 100_000:
                label = os.path.relpath(path, source).replace("/contents/images/", "-").replace("/", "-")
                shutil.copy2(path, os.path.join(tree, "Pictures", label))
# A second copy of a third of the documentation and of the icons, and of every photograph
# under another name; one copy in five of those then changed in its middle byte.
copies = []
for part in ("doc", "icons"):
    for folder, _, names in os.walk(os.path.join(tree, part)):
        for name in sorted(names):
            source = os.path.join(folder, name)
            if os.path.islink(source) or random.random() > 1 / 3:
                continue
            target = os.path.join(tree, "copies", os.path.relpath(source, tree))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
            copies.append(target)
# The photographs again as a phone's camera uploads and as an old phone's copy: a media
# library's duplicates are mostly photographs, which is where the bytes to compare are.
os.makedirs(os.path.join(tree, "Old Phone", "DCIM"), exist_ok=True)
for name in sorted(os.listdir(os.path.join(tree, "Pictures"))):
    for target in (os.path.join(tree, "Camera Uploads", "IMG_" + name), os.path.join(tree, "Old Phone", "DCIM", name)):
        shutil.copy2(os.path.join(tree, "Pictures", name), target)
        copies.append(target)
for path in copies:
    size = os.path.getsize(path)
    if size > 16384 and random.random() < 0.2:
        with open(path, "r+b") as f:
            f.seek(size // 2)
            byte = f.read(1)
            f.seek(size // 2)
            f.write(bytes([byte[0] ^ 0x20]))
PY
  touch "$WORK/.generated"
fi

CATALOG=$WORK/catalog.sqlite
rm -f "$CATALOG" "$CATALOG"-*
"$SHELF" --db "$CATALOG" index "$TREE" >/dev/null 2>&1 || true
files=$(find "$TREE" -type f | wc -l)
bytes=$(du -sb "$TREE" | cut -f1)
echo "bench-dupes: $files files, $((bytes / 1048576)) MiB in $TREE; $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$SHELF" "$CATALOG" "$TREE" "$ROUNDS" "$WORK" <<'PY'
import os, resource, sqlite3, statistics, subprocess, sys, time
shelf, catalog, tree, rounds, work = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]

def forget_hashes():
    with sqlite3.connect(catalog) as db:
        db.execute("DELETE FROM content_hashes")

contestants = {
    "shelf dupes (first)": ([shelf, "--db", catalog, "dupes", "-0"], forget_hashes),
    "shelf dupes (second)": ([shelf, "--db", catalog, "dupes", "-0"], None),
    "jdupes -r": (["jdupes", "-r", "-q", tree], None),
    "fdupes -r": (["fdupes", "-r", "-q", tree], None),
    # Their reports go to files of their own: rdfind replaces its output file by renaming a new
    # one over it (never give it /dev/null).
    "rmlint": (["rmlint", "-o", "fdupes:" + work + "/rmlint.out", tree], None),
    "rdfind": (["rdfind", "-dryrun", "true", "-outputname", work + "/rdfind.out", tree], None),
}
# The second run needs the first's hashes: it always follows it.
order = list(contestants)
runs = {name: [] for name in order}
for number in range(rounds):
    rotated = order[number % len(order):] + order[:number % len(order)]
    if rotated.index("shelf dupes (second)") < rotated.index("shelf dupes (first)"):
        rotated.remove("shelf dupes (second)")
        rotated.insert(rotated.index("shelf dupes (first)") + 1, "shelf dupes (second)")
    for name in rotated:
        command, before = contestants[name]
        if before:
            before()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        subprocess.run(command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs[name].append((wall, after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime))

medians = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in runs.items()}
jdupes = medians["jdupes -r"]
print(f"{'contestant':24} {'wall':>9} {'cpu':>9}   jdupes -r wall / this")
for name in order:
    wall, cpu = medians[name]
    print(f"{name:24} {wall:8.3f}s {cpu:8.3f}s   {jdupes[0] / wall:6.2f}x")
first, second = medians["shelf dupes (first)"][0], medians["shelf dupes (second)"][0]
print(f"targets: first no slower than jdupes -r: {jdupes[0] / first:.2f}x ({'met' if first <= jdupes[0] else 'NOT met'}); "
      f"second >= 10x faster: {jdupes[0] / second:.1f}x ({'met' if jdupes[0] >= 10 * second else 'NOT met'})")

# The same groups: jdupes' (paths of one inode as one file) against shelf's.
def inode(path):
    status = os.lstat(path)
    return (status.st_dev, status.st_ino)
out = subprocess.run(["jdupes", "-r", "-q", tree], capture_output=True, text=True, errors="surrogateescape").stdout
# A backup's stored files are catalogued by their real names (entries that exist only in the
# catalogue), so the groups are compared outside the backups.
backups = tree + "/SampleMedia/Backups/"
theirs = {frozenset(inode(p) for p in block.split("\n") if not p.startswith(backups))
          for block in out.strip().split("\n\n") if block}
theirs = {group for group in theirs if len(group) > 1}
import json
listed = subprocess.run([shelf, "--db", catalog, "dupes", "--json", f"root:{tree}"], capture_output=True, text=True).stdout
ours = {frozenset(inode(f["path"]) for f in group["files"] if not f["path"].startswith(backups))
        for group in json.loads(listed or "[]")}
ours = {group for group in ours if len(group) > 1}
print(f"groups: shelf {len(ours)}, jdupes {len(theirs)}, {'the same' if ours == theirs else 'DIFFERENT'}")
PY
