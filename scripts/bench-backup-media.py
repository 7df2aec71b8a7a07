#!/usr/bin/env python3
"""Builds bench-backup's two backups (Manifest.db era, plain and encrypted) from real media.

usage: bench-backup-media.py WORK FILES MEAN_KB [POOL]

The content is what a phone holds, so sizes and content are realistic and `shelf index` has
real facts to read:
  photos (70 %)       JPEGs recompressed by libvips (`vips thumbnail`) from the raster
                      wallpapers of /usr/share/backgrounds and /usr/share/images/desktop-base
                      (and desktop-base's themes) at several widths and qualities
  voice memos (10 %)  AAC in M4A (ffmpeg's native encoder, 64 kbit/s mono) of speech that
                      espeak-ng reads from the licence texts, shaped by sox, 5 s to 3 min
  text notes (20 %)   slices of the licence texts in /usr/share/common-licenses, 1 to 40 KB

A pool of distinct files of each kind is made once (POOL, by default WORK/pool) and each backup file takes one
of them, chosen so that the mean size is MEAN_KB: photo variants are weighted towards the
smaller ones as far as the mean needs. The backups are written by scripts/make-backups.py's
writers.
"""

import glob
import importlib.util
import math
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTHS = [320, 640, 1280, 2048, 3024]
QUALITIES = [75, 90]
LICENCES = sorted(glob.glob("/usr/share/common-licenses/*"))


def run(arguments):
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def photo_sources():
    found = []
    for pattern in ("/usr/share/backgrounds/**/*", "/usr/share/images/desktop-base/*",
                    "/usr/share/desktop-base/*-theme/*/*"):
        for path in glob.glob(pattern, recursive=True):
            real = os.path.realpath(path)
            if not real.startswith(("/usr/share/backgrounds/", "/usr/share/images/", "/usr/share/desktop-base/")):
                continue
            if (os.path.isfile(real) and real.lower().endswith((".webp", ".jpg", ".jpeg", ".png"))
                    and os.path.getsize(real) > 20_000 and real not in found):
                found.append(real)
    return sorted(found)


def make_photos(pool):
    photos = []
    for number, source in enumerate(photo_sources()):
        for width in WIDTHS:
            for quality in QUALITIES:
                out = os.path.join(pool, f"photo-{number:02d}-{width}-q{quality}.jpg")
                if not os.path.exists(out):
                    try:
                        run(["vips", "thumbnail", source, f"{out}[Q={quality},strip]", str(width)])
                    except subprocess.CalledProcessError:
                        continue
                photos.append(out)
    return photos


def licence_text():
    text = []
    for path in LICENCES:
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as fh:
                text.append(fh.read())
    return "\n".join(text)


def make_memos(pool, text):
    memos = []
    words = text.split()
    for number, seconds in enumerate([5, 9, 14, 20, 30, 45, 60, 80, 100, 130, 160, 180]):
        out = os.path.join(pool, f"memo-{number:02d}.m4a")
        if not os.path.exists(out):
            speech = os.path.join(pool, "speech.wav")
            shaped = os.path.join(pool, "shaped.wav")
            start = number * 400 % max(1, len(words) - 700)
            # About 2.5 words a second at espeak-ng's default rate.
            passage = " ".join(words[start:start + int(seconds * 2.6)])
            run(["espeak-ng", "-v", "en", "-s", "160", "-w", speech, passage])
            run(["sox", speech, "-r", "44100", "-c", "1", shaped, "highpass", "80", "gain", "-n", "-3",
                 "pad", "0.3", "0.5", "trim", "0", str(seconds)])
            run(["ffmpeg", "-y", "-loglevel", "error", "-i", shaped, "-c:a", "aac", "-b:a", "64k",
                 "-movflags", "+faststart", out])
            os.remove(speech)
            os.remove(shaped)
        memos.append(out)
    return memos


def make_notes(pool, text, rng):
    notes = []
    data = text.encode("utf-8")
    for number in range(40):
        out = os.path.join(pool, f"note-{number:02d}.txt")
        if not os.path.exists(out):
            size = int(1024 * 40 ** rng.random())
            start = rng.randrange(0, max(1, len(data) - size))
            chunk = data[start:start + size].decode("utf-8", errors="ignore")
            with open(out, "w", encoding="utf-8") as fh:
                fh.write(chunk)
        notes.append(out)
    return notes


def photo_weights(photos, sizes, mean_bytes, fixed_bytes):
    """Weights exp(-size/scale) over the photo variants, the scale found by bisection so that
    the expected photo size makes the overall mean `mean_bytes` (`fixed_bytes` is what memos
    and notes add to it)."""
    target = (mean_bytes - fixed_bytes) / 0.7

    def expected(scale):
        weights = [math.exp(-sizes[p] / scale) for p in photos]
        return sum(w * sizes[p] for w, p in zip(weights, photos)) / sum(weights), weights

    low, high = 1e3, 1e9
    for _ in range(80):
        middle = math.sqrt(low * high)
        value, _ = expected(middle)
        if value < target:
            low = middle
        else:
            high = middle
    return expected(high)[1]


def main():
    work, count, mean_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    pool = sys.argv[4] if len(sys.argv) > 4 else os.path.join(work, "pool")
    os.makedirs(pool, exist_ok=True)
    rng = random.Random(13)
    text = licence_text()
    photos, memos, notes = make_photos(pool), make_memos(pool, text), make_notes(pool, text, rng)
    if not photos or not memos or not notes:
        sys.exit("bench-backup-media: no photos, memos or notes could be made (vips, espeak-ng, sox, ffmpeg?)")
    sizes = {p: os.path.getsize(p) for p in photos + memos + notes}
    fixed = 0.1 * sum(sizes[m] for m in memos) / len(memos) + 0.2 * sum(sizes[n] for n in notes) / len(notes)
    weights = photo_weights(photos, sizes, mean_kb * 1024, fixed)

    spec = importlib.util.spec_from_file_location("make_backups", os.path.join(ROOT, "scripts", "make-backups.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    contents, files = {}, []
    for n in range(count):
        if n % 10 == 0:
            domain, path = "MediaDomain", f"Media/Recordings/{20240000 + n} 0930.m4a"
            source = rng.choice(memos)
        elif n % 10 in (1, 2):
            domain, path = "AppDomain-com.example.notes", f"Documents/note-{n}.txt"
            source = rng.choice(notes)
        else:
            domain, path = "CameraRollDomain", f"Media/DCIM/{100 + n // 1000}APPLE/IMG_{n:05d}.JPG"
            source = rng.choices(photos, weights)[0]
        if source not in contents:
            with open(source, "rb") as fh:
                contents[source] = fh.read()
        files.append((domain, path, source, 3))
    gen.read_sample = lambda source: contents[source]
    for era in ("manifest-db", "manifest-db-encrypted"):
        gen.build(os.path.join(work, era), era, files, [])
    total = sum(len(contents[f[2]]) for f in files)
    print(f"{count} files, {total / 1e6:.0f} MB: {len(photos)} photo variants, {len(memos)} memos, "
          f"{len(notes)} notes in the pool")


if __name__ == "__main__":
    main()
