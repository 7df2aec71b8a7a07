#!/usr/bin/env python3
"""EXIF accuracy: `shelf info --json` against `exiftool -json -n` on photos other programs wrote.

    python3 scripts/check-exif.py [--shelf .build/release/shelf] [--work DIR]

Makes 600 photos in five containers (JPEG, PNG, WebP, TIFF, HEIC) with varied EXIF: cameras
whose model repeats the make or not, every orientation, dates with and without an offset or
blank (`0000:00:00 00:00:00`), positions in every hemisphere, above and below sea level, missing
fields, non-ASCII text. Half are written by Pillow, half by exiftool into files that ImageMagick
and heif-enc made. SampleMedia's photos are checked too.

Then 40 files in each class of where else formats keep EXIF (`formats/`):
  tiff-late    TIFFs ImageMagick wrote (strips first), tagged by exiftool, then rewritten by
               libtiff's tiffset, which moves IFD0 after the strips; every other one carries a
               120 KiB XMP packet in IFD0, which puts the Exif and GPS IFDs past 64 KiB
  psd          Photoshop files ImageMagick wrote, EXIF written by exiftool (image resource 1058)
  png-profile  PNGs whose EXIF (written by exiftool) is in a "Raw profile type exif"/"APP1" text
               chunk (tEXt, zTXt or iTXt, written by Pillow in ImageMagick's raw-profile form),
               and PNGs ImageMagick converted from exiftool-tagged JPEGs (its eXIf after IDAT)
  jp2          JPEG 2000 files ImageMagick (OpenJPEG) wrote, EXIF written by exiftool (uuid box)
  created      JPEG, TIFF, PNG and WebP files with exiftool's CreateDate but no DateTimeOriginal
  xmp          JPEG, PNG, WebP, TIFF, PSD, JP2 and HEIC files with XMP only, written by exiftool:
               exif:DateTimeOriginal, photoshop:DateCreated or xmp:CreateDate, tiff:Orientation,
               tiff:Make/Model/Software, exifEX:LensModel
For each class and field, the share of files on which shelf says what exiftool says (nothing
where exiftool reports nothing) is printed; the target is at least 99.5 % per class and field.
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


def run_exiftool(arguments, bases):
    argfile = os.path.join(bases, "args-%d.txt" % len(os.listdir(bases)))
    with open(argfile, "w", encoding="utf-8") as fh:
        fh.write("\n".join(arguments) + "\n")
    subprocess.run(["exiftool", "-@", argfile, "-common_args", "-q", "-q", "-overwrite_original", "-charset",
                    "utf8"], check=True)


def xmp_tags(rng, facts):
    """The facts as XMP-only exiftool assignments: one of the three dates, with or without an
    offset or fractions of a second."""
    tags = []
    if facts["taken"] and not facts["taken"].startswith("0000"):
        date = facts["taken"] + rng.choice(["", ".25", ".5"]) + (facts["offset"] or "")
        tag = rng.choice(["XMP-exif:DateTimeOriginal", "XMP-photoshop:DateCreated", "XMP-xmp:CreateDate"])
        tags.append("-%s=%s" % (tag, date))
    for key, tag in (("make", "XMP-tiff:Make"), ("model", "XMP-tiff:Model"), ("software", "XMP-tiff:Software"),
                     ("lens", "XMP-exifEX:LensModel")):
        if facts[key] is not None:
            tags.append("-%s=%s" % (tag, facts[key]))
    if facts["orientation"] is not None:
        tags.append("-XMP-tiff:Orientation#=%d" % facts["orientation"])
    return tags


def raw_profile(name, data):
    """ImageMagick's raw-profile text: name, length, then the bytes in hex, 36 to a line."""
    hexed = data.hex()
    lines = [hexed[i:i + 72] for i in range(0, len(hexed), 72)]
    return "\n%s\n%8d\n%s\n" % (name, len(data), "\n".join(lines))


def make_formats(folder, per_class=40):
    """The classes of other places formats keep EXIF (see the module's description)."""
    from PIL import Image, PngImagePlugin
    rng = random.Random(20261206)
    os.makedirs(folder)
    bases = os.path.join(folder, ".bases")
    os.makedirs(bases)
    base = {}
    for ext, size in (("tif", "400x300"), ("psd", "64x48"), ("jp2", "64x48"), ("jpg", "64x48"), ("png", "64x48"),
                      ("webp", "64x48")):
        base[ext] = os.path.join(bases, "base." + ext)
        subprocess.run(["convert", "-size", size, "plasma:", "-depth", "8"] +
                       (["-compress", "none"] if ext == "tif" else []) + [base[ext]], check=True)
    base["heic"] = os.path.join(bases, "base.heic")
    subprocess.run(["heif-enc", "-q", "50", base["png"], "-o", base["heic"]], check=True, stdout=subprocess.DEVNULL)
    big_xmp = os.path.join(bases, "description.txt")
    with open(big_xmp, "w") as fh:
        fh.write("scanned " * 15000)
    arguments = []
    late, later = [], []
    for i in range(per_class):
        facts = variant(rng)
        # tiff-late: exiftool first (it puts IFD0 at the front), tiffset after (libtiff moves it back).
        path = os.path.join(folder, "tiff-late-%03d.tif" % i)
        shutil.copyfile(base["tif"], path)
        extra = ["-XMP-dc:Description<=" + big_xmp] if i % 2 else []
        arguments += exiftool_tags(facts) + extra + [path, "-execute"]
        late.append(path)
        # psd and jp2: exiftool into ImageMagick's files.
        for cls in ("psd", "jp2"):
            path = os.path.join(folder, "%s-%03d.%s" % (cls, i, cls))
            shutil.copyfile(base[cls], path)
            arguments += exiftool_tags(variant(rng)) + [path, "-execute"]
        # created: CreateDate (and its offset) only.
        facts = variant(rng)
        ext = ("jpg", "tif", "png", "webp")[i % 4]
        path = os.path.join(folder, "created-%03d.%s" % (i, ext))
        shutil.copyfile(base[ext], path)
        tags = [t.replace("-DateTimeOriginal=", "-CreateDate=").replace("-OffsetTimeOriginal=", "-OffsetTimeDigitized=")
                for t in exiftool_tags(facts)]
        arguments += tags + [path, "-execute"]
        # xmp: XMP only.
        ext = ("jpg", "png", "webp", "tif", "psd", "jp2", "heic")[i % 7]
        path = os.path.join(folder, "xmp-%03d.%s" % (i, ext))
        shutil.copyfile(base[ext], path)
        arguments += xmp_tags(rng, variant(rng)) + [path, "-execute"]
        # png-profile: EXIF that exiftool wrote into a JPEG, carried into a PNG text chunk by Pillow
        # (three in four) or by ImageMagick's conversion of the JPEG (its eXIf chunk).
        source = os.path.join(bases, "profile-%03d.jpg" % i)
        shutil.copyfile(base["jpg"], source)
        arguments += exiftool_tags(variant(rng)) + [source, "-execute"]
        later.append((i, source))
    run_exiftool(arguments, bases)
    for path in late:
        subprocess.run(["tiffset", "-s", "270", "scan", path], check=True)
    for i, source in later:
        path = os.path.join(folder, "png-profile-%03d.png" % i)
        if i % 4 == 3:
            subprocess.run(["convert", source, path], check=True)
            continue
        exif = subprocess.run(["exiftool", "-b", "-EXIF", source], check=True, capture_output=True).stdout
        if not exif:
            exif = b"MM\0*\0\0\0\x08\0\0\0\0\0\0"
        name = "exif" if i % 2 == 0 else "APP1"
        data = b"Exif\0\0" + exif if (name == "APP1" or i % 8 == 2) else exif
        info = PngImagePlugin.PngInfo()
        text = raw_profile(name.lower() if name == "exif" else name, data)
        chunk = ("tEXt", "zTXt", "iTXt")[i % 3]
        info.add_itxt("Raw profile type " + name, text, zip=True) if chunk == "iTXt" else \
            info.add_text("Raw profile type " + name, text, zip=chunk == "zTXt")
        Image.open(base["png"]).save(path, pnginfo=info)
    shutil.rmtree(bases)


def iso(value, offset=None):
    """An exiftool date (`2024:05:17 10:30:00`, XMP's with `.25` and `+02:00` after it) as shelf
    shows it; None when blank, zero or without seconds."""
    value = None if value is None else str(value).strip()
    if not value or value.startswith("0000") or len(value) < 19 or value[16] != ":":
        return None
    date = value[:4] + "-" + value[5:7] + "-" + value[8:10] + "T" + value[11:19]
    rest = value[19:]
    if rest.startswith("."):
        rest = rest[1:].lstrip("0123456789")
    rest = rest or (str(offset).strip() if offset else "")
    # shelf writes RFC 3339: Z for offset zero.
    return date + ("Z" if rest in ("+00:00", "-00:00") else rest)


def expected(tags):
    """What shelf should report, spelled out from exiftool's tags."""
    def text(key):
        value = tags.get(key)
        return None if value is None else str(value).strip() or None
    out = {}
    # exiftool's MWG composites: DateTimeOriginal (EXIF, else XMP), XMP-photoshop:DateCreated, then
    # CreateDate (EXIF DateTimeDigitized, else XMP).
    out["taken"] = iso(text("DateTimeOriginal"), text("OffsetTimeOriginal")) or iso(text("DateCreated")) or \
        iso(text("CreateDate"), text("OffsetTimeDigitized"))
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
    formats = os.path.join(args.work, "formats")
    if not os.path.isdir(formats):
        make_formats(formats)
    files = sorted(os.path.join(corpus, n) for n in os.listdir(corpus))
    files += sorted(os.path.join(formats, n) for n in os.listdir(formats))
    for sample in ("Documents/Camera/IMG_0001.HEIC", "Documents/Camera/DSC01234.JPG"):
        files.append(os.path.join(ROOT, "SampleMedia", sample))
    tool = json.loads(subprocess.run(
        ["exiftool", "-json", "-n", "-charset", "utf8", "-DateTimeOriginal", "-OffsetTimeOriginal", "-DateCreated", "-CreateDate",
         "-OffsetTimeDigitized", "-Make", "-Model",
         "-LensModel", "-Orientation", "-Software", "-Composite:GPSLatitude", "-Composite:GPSLongitude",
         "-Composite:GPSAltitude"] + files, check=True, capture_output=True, text=True).stdout)
    shelf = json.loads(subprocess.run([args.shelf, "info", "--json"] + files, check=True, capture_output=True,
                                      text=True).stdout)
    by_path = {entry["path"]: entry for entry in shelf}
    fields = ["taken", "camera", "lens", "orientation", "gps", "software"]
    agree, present, counts = {}, {}, {}
    problems = []
    for tags in tool:
        path = os.path.abspath(tags["SourceFile"])
        cls = file_class(path)
        counts[cls] = counts.get(cls, 0) + 1
        image = by_path.get(path, {}).get("image") or {}
        want = expected(tags)
        for field in fields:
            key = (cls, field)
            if want[field] is not None:
                present[key] = present.get(key, 0) + 1
            if same(field, image.get(field), want[field]):
                agree[key] = agree.get(key, 0) + 1
            else:
                problems.append("%s: %s is %r, exiftool says %r" % (os.path.basename(path), field, image.get(field),
                                                                     want[field]))
    total = len(tool)
    print("check-exif: %d files (%d made here, SampleMedia's 2 photos); exiftool -json -n against shelf info --json"
          % (total, total - 2))
    late = [f for f in files if os.path.basename(f).startswith("tiff-late-")]
    print("  tiff-late layout: IFD0 past the strips (past 64 KiB) in %d of %d, Exif IFD past 64 KiB in %d"
          % tuple(tiff_layout(late)))
    print("  %-16s %5s  " % ("class", "files") + "  ".join("%-17s" % f for f in fields))
    worst = 100.0
    for cls in sorted(counts):
        n = counts[cls]
        cells = []
        for field in fields:
            share = 100.0 * agree.get((cls, field), 0) / n
            worst = min(worst, share)
            cells.append("%5.1f %% (%3d set)" % (share, present.get((cls, field), 0)))
        print("  %-16s %5d  " % (cls, n) + "  ".join(cells))
    print("  lowest agreement of any class and field: %.1f %%" % worst)
    for problem in problems[:20]:
        print("  differs: " + problem)
    sys.exit(1 if worst < 99.5 else 0)


def file_class(path):
    """The class a file is counted in: the container of the 600 photos, the formats' classes by
    name, SampleMedia's photos."""
    name = os.path.basename(path)
    if os.path.basename(os.path.dirname(path)) == "photos":
        return "photos-" + name.rsplit(".", 1)[-1].lower().replace("tiff", "tif")
    if os.path.basename(os.path.dirname(path)) == "formats":
        return name.rsplit("-", 1)[0]
    return "samplemedia"


def tiff_layout(paths):
    """How many TIFFs have IFD0 past 64 KiB and how many the Exif IFD (read with tiffdump)."""
    ifd0_late = exif_late = 0
    for path in paths:
        dump = subprocess.run(["tiffdump", path], check=True, capture_output=True, text=True).stdout
        for line in dump.splitlines():
            if line.startswith("Directory 0: offset") and int(line.split()[3]) >= 65536:
                ifd0_late += 1
            if line.startswith("34665 (0x8769)") and int(line.rsplit("<", 1)[1].rstrip(">"), 0) >= 65536:
                exif_late += 1
    return [ifd0_late, len(paths), exif_late]


if __name__ == "__main__":
    main()
