#!/usr/bin/env bash
# Image-preview benchmark: `shelf show` of a 12-megapixel JPEG (made by ImageMagick from a
# Debian wallpaper photograph, gnome-backgrounds' wood-d.webp) against `chafa` on the same file
# at the same size, side by side in one run: half-block characters (chafa --symbols vhalf, the
# same drawing as shelf's), chafa's default symbol set, and sixels of the same pixel size.
# Prints the median wall and CPU times of RUNS runs of each and the ratios chafa / shelf (above
# 1: shelf is faster).
# `make bench-show` passes the release build. Besides the 12-megapixel JPEG, a PNG screenshot
# (the same photograph converted, 1920x1080) shows the libvips path.
# Usage: bench-show.sh SHELF [RUNS]
set -euo pipefail
shelf=${1:?usage: bench-show.sh SHELF [RUNS]}
runs=${2:-11}
for tool in chafa convert python3; do
  command -v "$tool" >/dev/null || { echo "bench-show needs $tool (apt-get install -y chafa imagemagick)" >&2; exit 1; }
done
source_photo=/usr/share/backgrounds/gnome/wood-d.webp
[[ -f $source_photo ]] || { echo "bench-show needs $source_photo (apt-get install -y gnome-backgrounds)" >&2; exit 1; }
work=${TMPDIR:-/tmp}/shelf-bench-show
mkdir -p "$work"
photo=$work/photo-12mp.jpg
if [[ ! -f $photo ]]; then
  convert "$source_photo" -resize 4000x3000^ -gravity center -extent 4000x3000 -quality 92 "$photo"
fi
echo "shelf: $shelf ($(file -b "$shelf" | cut -d, -f1-2)); chafa: $(chafa --version | head -1)"
echo "input: $photo ($(identify -format '%wx%h' "$photo"), $(stat -c %s "$photo") bytes); $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

# The medians over $runs runs of a command's wall time and CPU time (user + system), in
# milliseconds, as "WALL CPU"; output to /dev/null. On a shared, busy machine the CPU time is
# the steadier of the two.
medians_ms() {
  local walls=() cpus=() report
  report=$(mktemp)
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$report" "$@" >/dev/null
    read -r wall user system <"$report"
    walls+=("$(python3 -c "print(round($wall * 1000))")")
    cpus+=("$(python3 -c "print(round(($user + $system) * 1000))")")
  done
  rm -f "$report"
  local middle=$(((runs + 1) / 2))
  echo "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "${middle}p")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "${middle}p")"
}

# 100 columns: 4000×3000 fits as 100×75 half-block pixels, 38 rows; sixels at 10×20-pixel cells
# fit 1000×750 pixels.
columns=100
rows=38
printf '%-36s %16s %16s %14s\n' "drawing" "shelf wall/cpu" "chafa wall/cpu" "ratio wall/cpu"
compare() {
  local label=$1 shelf_wall shelf_cpu chafa_wall chafa_cpu
  read -r shelf_wall shelf_cpu <<<"$(medians_ms "${shelf_command[@]}")"
  read -r chafa_wall chafa_cpu <<<"$(medians_ms "${chafa_command[@]}")"
  printf '%-36s %7d/%5d ms %7d/%5d ms %6.2fx/%5.2fx\n' "$label" "$shelf_wall" "$shelf_cpu" \
    "$chafa_wall" "$chafa_cpu" "$(python3 -c "print($chafa_wall / max($shelf_wall, 1))")" \
    "$(python3 -c "print($chafa_cpu / max($shelf_cpu, 1))")"
}
shelf_command=("$shelf" show --color always --width "$columns" "$photo")
chafa_command=(chafa --format symbols --symbols vhalf --colors full --size "${columns}x${rows}" --animate off "$photo")
compare "half blocks (chafa --symbols vhalf)"
chafa_command=(chafa --format symbols --colors full --size "${columns}x${rows}" --animate off "$photo")
compare "half blocks (chafa default symbols)"
shelf_command=("$shelf" show --graphics sixel --width "$columns" "$photo")
chafa_command=(chafa --format sixels --size "${columns}x${rows}" --animate off "$photo")
compare "sixels, 1000x750 pixels"
screenshot=$work/screenshot-1080p.png
[[ -f $screenshot ]] || convert "$photo" -resize 1920x1080^ -gravity center -extent 1920x1080 "$screenshot"
shelf_command=("$shelf" show --color always --width "$columns" "$screenshot")
chafa_command=(chafa --format symbols --symbols vhalf --colors full --size "${columns}x${rows}" --animate off "$screenshot")
compare "PNG 1920x1080, half blocks"
