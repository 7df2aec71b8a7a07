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

# --- one run of each contender, best of three ------------------------------------------------
seconds() { python3 -c 'import sys,time; print(f"{time.monotonic():.6f}")'; }
best() { # best NAME COMMAND...: the shortest of three runs, in seconds
  local name=$1
  shift
  local top=""
  for _ in 1 2 3; do
    rm -rf "$WORK/out" "$WORK/db.sqlite"*
    local start end
    start=$(seconds)
    "$@" >/dev/null
    end=$(seconds)
    top=$(python3 -c "a='$top'; b=$end-$start; print(f'{b:.3f}' if not a or b < float(a) else a)")
  done
  printf '%s' "$top"
}

shelf_plain() {
  "$SHELF" --db "$WORK/db.sqlite" index "$PLAIN"
  "$SHELF" --db "$WORK/db.sqlite" extract "root:$PLAIN" -o "$WORK/out"
}
shelf_plain_extract() { "$SHELF" --db "$WORK/db.sqlite" extract "root:$PLAIN" -o "$WORK/out"; }
shelf_encrypted() {
  SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" index "$ENCRYPTED"
  SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" extract "root:$ENCRYPTED" -o "$WORK/out"
}
shelf_encrypted_extract() {
  SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" extract "root:$ENCRYPTED" -o "$WORK/out"
}
copy_plain() { cp -r "$PLAIN" "$WORK/out"; }
decrypt_python() {
  python3 - "$ENCRYPTED" "$WORK/out" "$PASSWORD" <<'PY'
import sys
from iphone_backup_decrypt import EncryptedBackup
backup = EncryptedBackup(backup_directory=sys.argv[1], passphrase=sys.argv[3])
backup.extract_files(relative_paths_like="%", output_folder=sys.argv[2], preserve_folders=True, domain_subfolders=True)
PY
}
# extract alone needs a catalogue made once beforehand (best() clears it for the others).
with_index() { # with_index BACKUP FUNCTION: index once, then time only FUNCTION
  local backup=$1 run=$2 top=""
  for _ in 1 2 3; do
    rm -rf "$WORK/out" "$WORK/db.sqlite"*
    SHELF_BACKUP_PASSWORD=$PASSWORD "$SHELF" --db "$WORK/db.sqlite" index "$backup" >/dev/null
    local start end
    start=$(seconds)
    "$run" >/dev/null
    end=$(seconds)
    top=$(python3 -c "a='$top'; b=$end-$start; print(f'{b:.3f}' if not a or b < float(a) else a)")
  done
  printf '%s' "$top"
}

echo "backup: $FILES files, $((BYTES / 1048576)) MB ($(nproc) cores; best of 3; the machine may be shared)"
cp_time=$(best cp copy_plain)
plain_all=$(best shelf shelf_plain)
plain_extract=$(with_index "$PLAIN" shelf_plain_extract)
python_time=$(best python decrypt_python)
enc_all=$(best shelf shelf_encrypted)
enc_extract=$(with_index "$ENCRYPTED" shelf_encrypted_extract)

# Every recovered file is checked once: shelf's output equals the decryptor's, byte for byte.
rm -rf "$WORK/out" "$WORK/check" "$WORK/db.sqlite"*
shelf_encrypted >/dev/null
mv "$WORK/out" "$WORK/check"
decrypt_python
diff -r "$WORK/check" "$WORK/out" >/dev/null && same="identical" || same="DIFFERENT"

ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
printf '\n%-58s %9s %9s\n' "plain backup" "seconds" "vs cp -r"
printf '%-58s %9s %9s\n' "cp -r of the stored files" "$cp_time" "1.00"
printf '%-58s %9s %9s\n' "shelf extract (catalogue made beforehand)" "$plain_extract" "$(ratio "$plain_extract" "$cp_time")"
printf '%-58s %9s %9s\n' "shelf index + shelf extract" "$plain_all" "$(ratio "$plain_all" "$cp_time")"
printf '\n%-58s %9s %9s\n' "encrypted backup" "seconds" "speed-up"
printf '%-58s %9s %9s\n' "iphone_backup_decrypt extract_files" "$python_time" "1.00"
printf '%-58s %9s %9s\n' "shelf extract (catalogue made beforehand)" "$enc_extract" "$(ratio "$python_time" "$enc_extract")"
printf '%-58s %9s %9s\n' "shelf index + shelf extract" "$enc_all" "$(ratio "$python_time" "$enc_all")"
echo
echo "shelf's and iphone_backup_decrypt's extracted trees: $same"
rm -rf "$WORK/out" "$WORK/check" "$WORK/db.sqlite"*
