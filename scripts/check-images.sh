#!/usr/bin/env bash
# Accuracy check of shelf's image facts against Pillow and ImageMagick on a corpus of at least
# 500 images made by other programs (see scripts/check-images.py). Usage:
#   scripts/check-images.sh SHELF_BINARY [CORPUS_FOLDER]
# The corpus folder (default: a temporary one, removed afterwards) is emptied first.
set -euo pipefail
shelf=${1:?usage: check-images.sh SHELF_BINARY [CORPUS_FOLDER]}
here=$(cd "$(dirname "$0")" && pwd)
python3 -c "import PIL" 2>/dev/null || { echo "check-images: Pillow is missing (run scripts/setup.sh)" >&2; exit 1; }
for tool in convert identify heif-enc heif-info cwebp gif2webp png2icns ffmpeg ffprobe exiftool; do
  command -v "$tool" >/dev/null || { echo "check-images: $tool is missing (run scripts/setup.sh)" >&2; exit 1; }
done
if [[ $# -ge 2 ]]; then
  corpus=$2
else
  corpus=$(mktemp -d)
  trap 'rm -rf "$corpus"' EXIT
fi
python3 "$here/check-images.py" --shelf "$shelf" --corpus "$corpus"
