#!/usr/bin/env bash
# Installs what building and testing shelf needs on Debian: the C libraries' -dev packages
# and the tools the tests drive (tmux for interactive tests, alsa-utils, sox, python3, a
# PostgreSQL server), and generates the Turkish UTF-8 locale one catalogue test needs.
# As root it runs apt-get; otherwise it prints the exact apt-get line and stops.
set -euo pipefail

packages=(
  # C libraries shelf links against
  libasound2-dev libsndfile1-dev libpng-dev libsqlite3-dev libdeflate-dev libzopfli-dev
  zlib1g-dev
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libssl-dev libuchardet-dev
  libexif-dev libheif-dev libpq-dev libseccomp-dev libxxhash-dev
  # image previews: libvips (opened on first use), libicns for ICNS, the reference QOI decoder
  libvips-dev libicns-dev libqoi-dev libswscale-dev
  # the throwaway PostgreSQL 15 server the catalogue tests run against (scripts/test-postgres.sh;
  # its unaccent and pg_trgm extensions come in the same package)
  postgresql
  # tools the tests use
  tmux alsa-utils sox libsox-fmt-all python3 man-db file zsh fish util-linux ffmpeg
  libimage-exiftool-perl lame imagemagick
  # files made by other encoders: Musepack (mpcenc, mpcdec), Monkey's Audio (jmac, a Java
  # program), AMR-WB (VisualOn's library, driven by scripts/make-amr-wb.py: Debian's sox is
  # built without its encoder)
  musepack-tools libjmac-java default-jre-headless libvo-amrwbenc0
  # independent image tools the image tests and the accuracy check compare shelf against
  libheif-examples webp icnsutils librsvg2-bin
  # libtiff's tiffset and tiffdump: TIFFs whose IFD0 lies after the strips (check-exif, EXIFTests)
  libtiff-tools
  # Chromaprint's header (the library is loaded on first use) for `dupes --similar` on audio,
  # and the real photographs and music its tests compare (PerceptualHashTests,
  # AudioFingerprintTests)
  libchromaprint-dev mate-backgrounds plasma-workspace-wallpapers xmoto-data
  # programs that write the preview tests' pictures, and the show benchmark's anchor and photo
  qoi libvips-tools chafa gnome-backgrounds
  # the EXIF tests' and SampleMedia's photo writers besides those: Pillow; bench-index-photos'
  # wallpapers (with gnome-backgrounds above)
  python3-pil desktop-base
  # speech for the benchmarks' long recordings
  espeak-ng
  # the duplicate finders shelf dupes is checked against (tests and make bench-dupes)
  jdupes fdupes rmlint rdfind findimagedupes
  # the music-library player: loudness (shelf gain), MPRIS through sd-bus, and the programs
  # they are checked against (loudgain's gains, playerctl driving a playing shelf over a
  # private dbus-daemon, mpv's CPU while playing)
  libebur128-dev libsystemd-dev dbus-daemon loudgain playerctl mpv
  # ReplayGain tags written onto FLAC test files
  flac
  # ID3 writers of their own (eyeD3, id3lib) for the tag check (scripts/check-tags.py)
  eyed3 id3v2
  # make check-media's second reference, and the tracker modules (MOD, S3M, XM, IT) that
  # Debian's games ship, which the media tests and check read
  mediainfo pingus-data tecnoballz-data njam-data
  # the independent ADIF decoder check-media decodes every ADIF file it makes with
  faad
  # localedef and the locale sources: the catalogue tests make a database whose LC_CTYPE is
  # Turkish (tr_TR.UTF-8, generated below), where the server folds case its own way
  locales
  # the backup generator's encrypting side, and pip for the independent backup readers below
  python3-cryptography python3-pip
  # bench-backup's media (photos from the wallpaper packages above): voice memos spoken by
  # espeak-ng
  espeak-ng
)

# PyPI modules the tests use (MODULE or MODULE=PACKAGE when the names differ): independent
# iPhone-backup readers that the backup tests compare shelf against (mvt pins the
# iphone_backup_decrypt release it builds on; pip resolves both together), and the strict PNG
# decoders (pypng, Pillow) that must read what `shelf crush` writes; Pillow also decodes the
# reference pictures of the image-preview tests.
python_modules=(pyiosbackup iphone_backup_decrypt mvt png=pypng PIL=Pillow mutagen)

install_python_modules() {
  local missing_modules=()
  for entry in "${python_modules[@]}"; do
    python3 -c "import ${entry%%=*}" 2>/dev/null || missing_modules+=("${entry#*=}")
  done
  ((${#missing_modules[@]} == 0)) && return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "the tests need these PyPI packages: ${missing_modules[*]}" >&2
    echo "run:  python3 -m pip install ${missing_modules[*]}" >&2
    return 1
  fi
  echo "installing from PyPI: ${missing_modules[*]}" >&2
  python3 -m pip install --quiet "${missing_modules[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "${missing_modules[@]}"
}

# Generates the Turkish UTF-8 locale the PostgreSQL tests create a database in, when missing.
generate_locales() {
  locale -a 2>/dev/null | grep -qx 'tr_TR.utf8' && return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "the tests need the tr_TR.UTF-8 locale; run as root:  localedef -i tr_TR -f UTF-8 tr_TR.UTF-8" >&2
    return 1
  fi
  localedef -i tr_TR -f UTF-8 tr_TR.UTF-8
}

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  install_python_modules && generate_locales
  exit $?
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "shelf needs these Debian packages: ${missing[*]}" >&2
  echo "run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# When another apt or dpkg runs (unattended-upgrades, a second `make`), wait for it up to
# 5 minutes instead of failing: apt waits for the dpkg lock itself (DPkg::Lock::Timeout); the
# package-lists lock of `apt-get update` is retried here until the same deadline.
lock_timeout=300
deadline=$((SECONDS + lock_timeout))
until update_output=$(apt-get -o DPkg::Lock::Timeout=$lock_timeout update -qq 2>&1); do
  if [[ "$update_output" == *"Could not get lock"* ]] && ((SECONDS < deadline)); then
    echo "waiting for another apt to finish (up to $((deadline - SECONDS)) s more)" >&2
    sleep 5
    continue
  fi
  echo "$update_output" >&2
  exit 1
done
apt-get -o DPkg::Lock::Timeout=$lock_timeout install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
install_python_modules
generate_locales
