#!/usr/bin/env bash
# Installs what building and testing shelf needs on Debian: the C libraries' -dev packages
# and the tools the tests drive (tmux for interactive tests, alsa-utils, sox, python3).
# As root it runs apt-get; otherwise it prints the exact apt-get line and stops.
set -euo pipefail

packages=(
  # C libraries shelf links against
  libasound2-dev libsndfile1-dev libpng-dev libsqlite3-dev libdeflate-dev libzopfli-dev
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libssl-dev
  # tools the tests use
  tmux alsa-utils sox libsox-fmt-all python3 man-db file zsh fish util-linux ffmpeg
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "shelf needs these Debian packages: ${missing[*]}" >&2
  echo "run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
