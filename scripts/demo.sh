#!/usr/bin/env bash
# `make demo`: the four jobs of shelf (catalogue, iPhone backups, PNG, audio) on SampleMedia, in a
# throwaway catalogue and folder. SampleMedia/Backups holds one small backup per era; the
# encrypted ones take the sample password from SHELF_BACKUP_PASSWORD.
set -euo pipefail
shelf=$(realpath "${1:-.build/release/shelf}")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SHELF_DB="$work/catalog.sqlite" PAGER=cat SHELF_BACKUP_PASSWORD=shelf-test-password

job() {
  if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then printf '\n\033[1;4m%s\033[0m\n' "$*"; else printf '\n== %s ==\n' "$*"; fi
}

step() {
  if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then printf '\n\033[1m$ %s\033[0m\n' "$*"; else printf '\n$ %s\n' "$*"; fi
  "$@"
}

job "1. Catalogue"
step "$shelf" index SampleMedia
step "$shelf" ls kind:audio "root:*/SampleMedia" --long   # the sandbox itself, not its backups
step "$shelf" stats
step "$shelf" info SampleMedia/Documents/holiday.jpg
step "$shelf" show SampleMedia/Documents/gradient-rgba.png
step "$shelf" show SampleMedia/Documents/Notes/welcome-utf8.txt

job "2. iPhone backups (found inside SampleMedia, catalogued by real names)"
step "$shelf" roots
step "$shelf" ls area:camera-roll
step "$shelf" extract area:recordings -o "$work/recovered"
(cd "$work/recovered" && step find . -type f -name "*.wav" | sort)

job "3. PNG"
cp SampleMedia/Documents/gradient-rgba.png "$work/"
step "$shelf" crush -o "$work/crushed" "$work/gradient-rgba.png"

job "4. Audio"
# Play to the default device when there is a sound card, else into a WAV file through ALSA's
# file plugin.
device=default
if ! grep -q '^ *[0-9]' /proc/asound/cards 2>/dev/null; then
  echo "note: no sound card found; playing into a WAV file instead"
  device="file:$work/played.wav"
fi
step "$shelf" play --no-interactive -D "$device" SampleMedia/Documents/tone-440-mono.wav
if [[ $device == file:* ]]; then step "$shelf" info "$work/played.wav"; fi
