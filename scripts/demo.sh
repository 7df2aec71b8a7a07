#!/usr/bin/env bash
# `make demo`: the main job of shelf on SampleMedia, in a throwaway catalogue and folder.
set -euo pipefail
shelf=$(realpath "${1:-.build/release/shelf}")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SHELF_DB="$work/catalog.sqlite" PAGER=cat

step() {
  if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then printf '\n\033[1m$ %s\033[0m\n' "$*"; else printf '\n$ %s\n' "$*"; fi
  "$@"
}

step "$shelf" index SampleMedia
step "$shelf" ls
step "$shelf" ls kind:audio --long
step "$shelf" stats
step "$shelf" info SampleMedia/Documents/holiday.jpg
step "$shelf" show SampleMedia/Documents/gradient-rgba.png
step "$shelf" show SampleMedia/Documents/Notes/welcome-utf8.txt
cp SampleMedia/Documents/gradient-rgba.png "$work/"
step "$shelf" crush -o "$work/crushed" "$work/gradient-rgba.png"

# Play to the default device when there is a sound card, else to ALSA's null device.
device=default
if ! grep -q '^ *[0-9]' /proc/asound/cards 2>/dev/null; then
  echo "note: no sound card found; playing to ALSA's null device instead"
  device=null
fi
step "$shelf" play --no-interactive -D "$device" SampleMedia/Documents/tone-440-mono.wav
