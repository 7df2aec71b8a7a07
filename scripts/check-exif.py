#!/usr/bin/env python3
"""EXIF accuracy: `shelf info --json` against `exiftool -json -n` on photos other programs wrote.

    python3 scripts/check-exif.py [--shelf .build/release/shelf] [--work DIR]

Makes 600 photos in five containers (JPEG, PNG, WebP, TIFF, HEIC) with varied EXIF: cameras
whose model repeats the make or not, every orientation, dates with and without an offset or
blank (`0000:00:00 00:00:00`), positions in every hemisphere, above and below sea level, missing
fields, non-ASCII text. Half are written by Pillow, half by exiftool into files that ImageMagick
and heif-enc made. SampleMedia's photos are checked too. For each field, the share of files on
which shelf says what exiftool says (nothing where exiftool reports nothing) is printed; the
target is 100 %.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exif_photos  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAMERAS = [("Apple", "iPhone 13"), ("Canon", "Canon EOS R5"), ("NIKON CORPORATION", "NIKON Z 6"),
           ("samsung", "SM-G991B"), ("FUJIFILM", "X-T4"), ("OLYMPUS IMAGING CORP.", "E-M5"),
           ("HUAWEI", "ELE-L29"), ("Google", "Pixel 8"), (None, "DMC-GX8"), ("Leica Camera AG", None)]
LENSES = [None, "EF24-105mm f/4L IS USM", "iPhone 13 back dual wide camera 5.1mm f/1.6", "XF18-55mmF2.8-4 R LM OIS"]
SOFTWARE = [None, "17.4.1", "Adobe Photoshop Lightroom Classic 13.2 (Macintosh)", "Photos 1.0 – édition", "GIMP 2.10"]


def variant(rng):
    """One photo's EXIF facts, drawn at random (some missing)."""
    make, model = rng.choice(CAMERAS)
    taken = None
    roll = rng.random()
    if roll < 0.8:
        taken = "%04d:%02d:%02d %02d:%02d:%02d" % (rng.randint(1999, 2025), rng.randint(1, 12), rng.randint(1, 28),
                                                   rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
    elif roll < 0.9:
        taken = "0000:00:00 00:00:00"
    offset = rng.choice([None, "+02:00", "-07:00", "+05:30", "+00:00"]) if taken else None
    gps = None
    if rng.random() < 0.7:
        lat = round(rng.uniform(-89.9, 89.9), 6)
        lon = round(rng.uniform(-179.9, 179.9), 6)
        alt = rng.choice([None, round(rng.uniform(-400, 8000), 2)])
        gps = (lat, lon, alt)
    return dict(make=make, model=model, orientation=rng.choice([None, 1, 2, 3, 4, 5, 6, 7, 8]),
                software=rng.choice(SOFTWARE), taken=taken, offset=offset, lens=rng.choice(LENSES), gps=gps)


def exiftool_tags(facts):
    """The same facts as exiftool assignments."""
    tags = []
    for key, tag in (("make", "Make"), ("model", "Model"), ("software", "Software"), ("taken", "DateTimeOriginal"),
                     ("offset", "OffsetTimeOriginal"), ("lens", "LensModel")):
        if facts[key] is not None:
            tags.append("-%s=%s" % (tag, facts[key]))
    if facts["orientation"] is not None:
        tags.append("-Orientation#=%d" % facts["orientation"])
    if facts["gps"] is not None:
        lat, lon, alt = facts["gps"]
        tags += ["-GPSLatitude=%f" % abs(lat), "-GPSLatitudeRef=%s" % ("N" if lat >= 0 else "S"),
                 "-GPSLongitude=%f" % abs(lon), "-GPSLongitudeRef=%s" % ("E" if lon >= 0 else "W")]
        if alt is not None:
            tags += ["-GPSAltitude=%s" % abs(alt), "-GPSAltitudeRef#=%d" % (0 if alt >= 0 else 1)]
    return tags


def make_corpus(folder, count=600):
    rng = random.Random(20261130)
    os.makedirs(folder)
    bases = os.path.join(folder, ".bases")
    os.makedirs(bases)
    magick = {}
    for ext in ("jpg", "png", "tif", "webp"):
        magick[ext] = os.path.join(bases, "base." + ext)
        subprocess.run(["convert", "-size", "96x64", "plasma:", "-depth", "8", magick[ext]], check=True)
    magick["heic"] = os.path.join(bases, "base.heic")
    subprocess.run(["heif-enc", "-q", "50", magick["jpg"], "-o", magick["heic"]], check=True,
                   stdout=subprocess.DEVNULL)
    arguments = []
    pillow_formats = [("jpg", {"quality": 85}), ("png", {}), ("webp", {"quality": 80}), ("tiff", {})]
    for i in range(count):
        facts = variant(rng)
        if i % 2 == 0:
            ext, options = pillow_formats[(i // 2) % len(pillow_formats)]
            path = os.path.join(folder, "pillow-%04d.%s" % (i, ext))
            exif = exif_photos.pillow_exif(**facts)
            exif_photos.picture(64, 48, seed=i).save(path, exif=exif, **options)
        else:
            ext = ("jpg", "png", "tif", "webp", "heic")[(i // 2) % 5]
            path = os.path.join(folder, "exiftool-%04d.%s" % (i, ext))
            shutil.copyfile(magick[ext], path)
            if i % 10 == 1:
                arguments.append("-ExifByteOrder=II")
            arguments += exiftool_tags(facts) + [path, "-execute"]
    argfile = os.path.join(bases, "args.txt")
    with open(argfile, "w", encoding="utf-8") as fh:
        fh.write("\n".join(arguments) + "\n")
    subprocess.run(["exiftool", "-@", argfile, "-common_args", "-q", "-q", "-overwrite_original", "-charset",
                    "utf8"], check=True)
    shutil.rmtree(bases)


def expected(tags):
    """What shelf should report, spelled out from exiftool's tags."""
    def text(key):
        value = tags.get(key)
        return None if value is None else str(value).strip() or None
    out = {}
    date = text("DateTimeOriginal")
    out["taken"] = None
    if date and not date.startswith("0000") and len(date) >= 19:
        out["taken"] = date[:4] + "-" + date[5:7] + "-" + date[8:10] + "T" + date[11:19] + \
            (text("OffsetTimeOriginal") or "")
    make, model = text("Make"), text("Model")
    if make and model:
        word = make.split()[0].lower()
        out["camera"] = model if model.lower().startswith(word) else make + " " + model
    else:
        out["camera"] = model or make
    out["lens"] = text("LensModel")
    orientation = tags.get("Orientation")
    out["orientation"] = orientation if isinstance(orientation, int) and 1 <= orientation <= 8 else None
    out["software"] = text("Software")
    if isinstance(tags.get("GPSLatitude"), (int, float)) and isinstance(tags.get("GPSLongitude"), (int, float)):
        alt = tags.get("GPSAltitude")
        out["gps"] = {"lat": tags["GPSLatitude"], "lon": tags["GPSLongitude"],
                      "alt": alt if isinstance(alt, (int, float)) else None}
    else:
        out["gps"] = None
    return out


def same(field, got, want):
    if field != "gps" or got is None or want is None:
        return got == want
    return all((got[k] is None) == (want[k] is None) and abs((got[k] or 0) - (want[k] or 0)) < 1e-6
               for k in ("lat", "lon", "alt"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shelf", default=os.path.join(ROOT, ".build", "release", "shelf"))
    ap.add_argument("--work", default=os.path.join(ROOT, ".build", "check-exif"))
    args = ap.parse_args()
    corpus = os.path.join(args.work, "photos")
    if not os.path.isdir(corpus):
        make_corpus(corpus)
    files = sorted(os.path.join(corpus, n) for n in os.listdir(corpus))
    for sample in ("Documents/Camera/IMG_0001.HEIC", "Documents/Camera/DSC01234.JPG"):
        files.append(os.path.join(ROOT, "SampleMedia", sample))
    tool = json.loads(subprocess.run(
        ["exiftool", "-json", "-n", "-charset", "utf8", "-DateTimeOriginal", "-OffsetTimeOriginal", "-Make", "-Model",
         "-LensModel", "-Orientation", "-Software", "-Composite:GPSLatitude", "-Composite:GPSLongitude",
         "-Composite:GPSAltitude"] + files, check=True, capture_output=True, text=True).stdout)
    shelf = json.loads(subprocess.run([args.shelf, "info", "--json"] + files, check=True, capture_output=True,
                                      text=True).stdout)
    by_path = {entry["path"]: entry for entry in shelf}
    fields = ["taken", "camera", "lens", "orientation", "gps", "software"]
    agree = {f: 0 for f in fields}
    present = {f: 0 for f in fields}
    problems = []
    for tags in tool:
        path = os.path.abspath(tags["SourceFile"])
        image = by_path.get(path, {}).get("image") or {}
        want = expected(tags)
        for field in fields:
            if want[field] is not None:
                present[field] += 1
            if same(field, image.get(field), want[field]):
                agree[field] += 1
            else:
                problems.append("%s: %s is %r, exiftool says %r" % (os.path.basename(path), field, image.get(field),
                                                                     want[field]))
    total = len(tool)
    print("check-exif: %d files (%d made here, SampleMedia's 2 photos); exiftool -json -n against shelf info --json"
          % (total, total - 2))
    for field in fields:
        print("  %-12s %4d of %d agree (%.1f %%), %d with a value" % (field, agree[field], total,
                                                                    100.0 * agree[field] / total, present[field]))
    for problem in problems[:20]:
        print("  differs: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
