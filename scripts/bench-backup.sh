#!/usr/bin/env bash
# make bench-backup: recovering every file of a generated iPhone backup (Manifest.db era),
# plain and encrypted. shelf index + shelf extract of everything against, for the encrypted
# backup, iphone_backup_decrypt's extract_files (PyPI), and for the plain one, `cp -r` of the
# stored (hash-named) files. Everything runs in one session on the same inputs; the ratios are
# what count (absolute times move with the machine's load).
#
# The issue asks for 20,000 files / 2 GB; the default here is BENCH_FILES=2000 files of about
# 100 KB (about 200 MB), which a shared 2-core machine measures in a few minutes. Set
# BENCH_FILES and BENCH_MEAN_KB for the full size.
#
# usage: scripts/bench-backup.sh [path/to/shelf]
set -euo pipefail

SHELF=${1:-.build/release/shelf}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-backup}
FILES=${BENCH_FILES:-2000}
MEAN_KB=${BENCH_MEAN_KB:-100}
PASSWORD=shelf-test-password
[[ -x "$SHELF" ]] || { echo "bench-backup: $SHELF not found; run 'make release' first" >&2; exit 1; }
SHELF=$(cd "$(dirname "$SHELF")" && pwd)/$(basename "$SHELF")

python3 -c "import iphone_backup_decrypt, cryptography" 2>/dev/null || {
  echo "bench-backup: installing iphone_backup_decrypt (PyPI)" >&2
  pip install --quiet iphone_backup_decrypt cryptography
}

# --- the generated backups (through scripts/make-backups.py's writers) ----------------------
STAMP="$FILES files, mean $MEAN_KB KB"
if [[ ! -f $WORK/.generated ]] || [[ $(cat "$WORK/.generated") != "$STAMP" ]]; then
  rm -rf "$WORK"
  mkdir -p "$WORK"
  python3 - "$ROOT/scripts/make-backups.py" "$WORK" "$FILES" "$MEAN_KB" <<'PY'
import importlib.util, os, random, sys
script, work, count, mean_kb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
spec = importlib.util.spec_from_file_location("make_backups", script)
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
random.seed(13)
# Media-like sizes: log-uniform between a tenth and about four times the mean.
low, high = mean_kb * 1024 // 10, mean_kb * 1024 * 4
data, files = {}, []
for n in range(count):
    size = int(low * (high / low) ** random.random())
    if n % 10 == 0:
        domain, path = "MediaDomain", f"Media/Recordings/{20240000 + n} 0930.m4a"
    elif n % 10 == 1:
        domain, path = "AppDomain-com.example.notes", f"Documents/note-{n}.txt"
    else:
        domain, path = "CameraRollDomain", f"Media/DCIM/{100 + n // 1000}APPLE/IMG_{n:05d}.HEIC"
    data[path] = random.randbytes(size)
    files.append((domain, path, path, 3))
gen.read_sample = lambda source: data[source]
for era in ("manifest-db", "manifest-db-encrypted"):
    gen.build(os.path.join(work, era), era, files, [])
PY
  echo "$STAMP" > "$WORK/.generated"
fi
PLAIN=$WORK/manifest-db
ENCRYPTED=$WORK/manifest-db-encrypted
BYTES=$(du -sb "$PLAIN" | cut -f1)

# --- one run of each contender, best of three (wall and CPU seconds) ----------------------------
# measure COMMAND...: prints "WALL CPU" (CPU = user + system of every process it ran).
measure() {
  local TIMEFORMAT='%R %U %S' line
  line=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  python3 -c "r,u,s='$line'.split(); print(f'{float(r):.3f} {float(u)+float(s):.3f}')"
}
# best PREPARE COMMAND: the shortest wall and CPU time of three runs, PREPARE run untimed first.
best() {
  local prepare=$1 run=$2 wall="" cpu=""
  for _ in 1 2 3; do
    rm -rf "$WORK/out" "$WORK/db.sqlite"*
    "$prepare" >/dev/null 2>&1
    read -r w c < <(measure "$run")
    wall=$(python3 -c "a='$wall'; print('$w' if not a or $w < float(a) else a)")
    cpu=$(python3 -c "a='$cpu'; print('$c' if not a or $c < float(a) else a)")
  done
  printf '%s %s\n' "$wall" "$cpu"
}

nothing() { :; }
index_plain() { "$SHELF" --db "$WORK/db.sqlite" index "$PLAIN"; }
index_encrypted() { SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" index "$ENCRYPTED"; }
shelf_plain_extract() { "$SHELF" --db "$WORK/db.sqlite" extract "root:$PLAIN" -o "$WORK/out"; }
shelf_plain() { index_plain && shelf_plain_extract; }
shelf_encrypted_extract() {
  SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" extract "root:$ENCRYPTED" -o "$WORK/out"
}
shelf_encrypted() { index_encrypted && shelf_encrypted_extract; }
copy_plain() { cp -r "$PLAIN" "$WORK/out"; }
decrypt_python() {
  python3 - "$ENCRYPTED" "$WORK/out" "$PASSWORD" <<'PY'
import sys
from iphone_backup_decrypt import EncryptedBackup
backup = EncryptedBackup(backup_directory=sys.argv[1], passphrase=sys.argv[3])
backup.extract_files(relative_paths_like="%", output_folder=sys.argv[2], preserve_folders=True, domain_subfolders=True)
PY
}

echo "backup: $FILES files, $((BYTES / 1048576)) MB; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); best of 3"
read -r cp_wall cp_cpu < <(best nothing copy_plain)
read -r plain_wall plain_cpu < <(best nothing shelf_plain)
read -r plainx_wall plainx_cpu < <(best index_plain shelf_plain_extract)
read -r py_wall py_cpu < <(best nothing decrypt_python)
read -r enc_wall enc_cpu < <(best nothing shelf_encrypted)
read -r encx_wall encx_cpu < <(best index_encrypted shelf_encrypted_extract)

# Every recovered file is checked once: shelf's output equals the decryptor's, byte for byte.
rm -rf "$WORK/out" "$WORK/check" "$WORK/db.sqlite"*
shelf_encrypted >/dev/null 2>&1
mv "$WORK/out" "$WORK/check"
decrypt_python
diff -r "$WORK/check" "$WORK/out" >/dev/null && same="identical" || same="DIFFERENT"

ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
row() { printf '%-44s %8s %8s %8s %8s\n' "$@"; }
echo
row "plain backup" "wall s" "vs cp" "CPU s" "vs cp"
row "cp -r of the stored files" "$cp_wall" "1.00" "$cp_cpu" "1.00"
row "shelf extract (catalogue made beforehand)" "$plainx_wall" "$(ratio "$plainx_wall" "$cp_wall")" "$plainx_cpu" "$(ratio "$plainx_cpu" "$cp_cpu")"
row "shelf index + shelf extract" "$plain_wall" "$(ratio "$plain_wall" "$cp_wall")" "$plain_cpu" "$(ratio "$plain_cpu" "$cp_cpu")"
echo
row "encrypted backup" "wall s" "speed-up" "CPU s" "less"
row "iphone_backup_decrypt extract_files" "$py_wall" "1.00" "$py_cpu" "1.00"
row "shelf extract (catalogue made beforehand)" "$encx_wall" "$(ratio "$py_wall" "$encx_wall")" "$encx_cpu" "$(ratio "$py_cpu" "$encx_cpu")"
row "shelf index + shelf extract" "$enc_wall" "$(ratio "$py_wall" "$enc_wall")" "$enc_cpu" "$(ratio "$py_cpu" "$enc_cpu")"
echo
echo "shelf's and iphone_backup_decrypt's extracted trees: $same"
rm -rf "$WORK/out" "$WORK/check" "$WORK/db.sqlite"*
