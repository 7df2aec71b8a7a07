#!/usr/bin/env python3
"""Photos with EXIF, written by other programs, for shelf's EXIF tests and SampleMedia.

    python3 scripts/exif_photos.py OUT_DIR     # writes the test set into OUT_DIR

Each file's EXIF is written by an independent writer: Pillow (JPEG, PNG eXIf, WebP, TIFF,
with an Apple MakerNote carrying a Live Photo content identifier), libheif's heif-enc (which
copies a JPEG's EXIF into a HEIC `Exif` item), and exiftool (into files ImageMagick made).
The tests compare shelf with `exiftool -json -n` on these files, so nothing here states what
the right answer is.
"""

import os
import struct
import subprocess
import sys

from PIL import Image

# EXIF tag numbers used below.
MAKE, MODEL, ORIENTATION, SOFTWARE = 0x010F, 0x0110, 0x0112, 0x0131
EXIF_IFD, GPS_IFD = 0x8769, 0x8825
DATE_TIME_ORIGINAL, OFFSET_TIME_ORIGINAL, LENS_MODEL, MAKER_NOTE = 0x9003, 0x9011, 0xA434, 0x927C


def apple_maker_note(content_identifier):
    """An `Apple iOS` MakerNote holding tag 17, the content identifier of a Live Photo.

    Layout as iPhones write it: "Apple iOS\\0", version 1, "MM", then a big-endian IFD whose
    value offsets count from the note's first byte.
    """
    value = content_identifier.encode() + b"\0"
    head = b"Apple iOS\0" + b"\x00\x01" + b"MM"
    entries = 2
    data_offset = len(head) + 2 + 12 * entries + 4
    ifd = struct.pack(">H", entries)
    ifd += struct.pack(">HHI", 0x0001, 9, 1) + struct.pack(">i", 14)  # MakerNoteVersion
    ifd += struct.pack(">HHII", 0x0011, 2, len(value), data_offset)
    ifd += b"\0\0\0\0"
    return head + ifd + value


def pillow_exif(make=None, model=None, orientation=None, software=None, taken=None, offset=None, lens=None,
                gps=None, content_identifier=None):
    """A Pillow `Image.Exif` with the given facts; gps is (lat, lon, alt), signed."""
    exif = Image.Exif()
    for tag, value in ((MAKE, make), (MODEL, model), (ORIENTATION, orientation), (SOFTWARE, software)):
        if value is not None:
            exif[tag] = value
    sub = exif.get_ifd(EXIF_IFD)
    for tag, value in ((DATE_TIME_ORIGINAL, taken), (OFFSET_TIME_ORIGINAL, offset), (LENS_MODEL, lens)):
        if value is not None:
            sub[tag] = value
    if content_identifier is not None:
        sub[MAKER_NOTE] = apple_maker_note(content_identifier)
    if gps is not None:
        lat, lon, alt = gps
        g = exif.get_ifd(GPS_IFD)
        g[1] = "N" if lat >= 0 else "S"
        g[2] = dms(abs(lat))
        g[3] = "E" if lon >= 0 else "W"
        g[4] = dms(abs(lon))
        if alt is not None:
            g[5] = 0 if alt >= 0 else 1
            g[6] = abs(alt)
    return exif


def dms(value):
    """Degrees, minutes and seconds as EXIF stores them."""
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = round((value - degrees - minutes / 60) * 3600, 4)
    return (float(degrees), float(minutes), seconds)


def picture(width=64, height=48, seed=0):
    """A small picture with some structure (not one flat colour)."""
    im = Image.new("RGB", (width, height))
    im.putdata([((x * 4 + seed) % 256, (y * 5 + seed * 3) % 256, ((x + y) * 3) % 256)
                for y in range(height) for x in range(width)])
    return im


IPHONE = dict(make="Apple", model="iPhone 12 Pro", orientation=6, software="17.4.1",
              taken="2024:05:17 10:30:00", offset="+02:00",
              lens="iPhone 12 Pro back triple camera 4.2mm f/1.6", gps=(48.8583, 2.2945, 35.5))


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def exiftool_write(path, tags):
    """Writes tags with exiftool (`Tag=value`, `Tag#=number`), in place."""
    run("exiftool", "-q", "-overwrite_original", *[f"-{tag}={value}" for tag, value in tags], path)


def write_test_set(out):
    """The files the EXIF tests compare with exiftool, one per writer and container."""
    os.makedirs(out, exist_ok=True)
    iphone = pillow_exif(**IPHONE, content_identifier="4E2F7B8A-1C3D-4E5F-8A9B-0C1D2E3F4A5B")
    picture(seed=1).save(f"{out}/pillow-iphone.jpg", exif=iphone, quality=90)
    south_west = pillow_exif(make="Canon", model="Canon EOS 5D", orientation=3, software="GIMP 2.10",
                             taken="2019:12:31 23:59:58", lens="EF24-105mm f/4L IS USM",
                             gps=(-33.856784, -70.651123, -12.25))
    picture(seed=2).save(f"{out}/pillow-canon.png", exif=south_west)
    nikon = pillow_exif(make="NIKON CORPORATION", model="NIKON D750", orientation=8,
                        taken="2021:07:04 08:15:00", offset="-04:00")
    picture(seed=3).save(f"{out}/pillow-nikon.webp", exif=nikon, quality=80)
    picture(seed=4).save(f"{out}/pillow-iphone.tiff", exif=iphone)
    # heif-enc copies the JPEG's EXIF block (MakerNote included) into the HEIC's Exif item.
    run("heif-enc", "-q", "50", f"{out}/pillow-iphone.jpg", "-o", f"{out}/heif-enc-iphone.heic")
    tags = [("Make", "Google"), ("Model", "Pixel 8"), ("Orientation#", "5"), ("Software", "HDR+ 1.0.5"),
            ("DateTimeOriginal", "2023:02:28 17:45:12"), ("OffsetTimeOriginal", "+09:00"),
            ("LensModel", "Pixel 8 back camera 6.9mm f/1.68"),
            ("GPSLatitude", "35.658581"), ("GPSLatitudeRef", "N"), ("GPSLongitude", "139.745433"),
            ("GPSLongitudeRef", "E"), ("GPSAltitude", "333"), ("GPSAltitudeRef#", "0")]
    for ext in ("jpg", "png", "tif", "webp", "heic"):
        path = f"{out}/imagemagick-exiftool.{ext}"
        run("convert", "-size", "64x48", "gradient:red-blue", path)
        exiftool_write(path, tags)
    # The same tags in a little-endian (Intel) EXIF block.
    path = f"{out}/imagemagick-exiftool-intel.jpg"
    run("convert", "-size", "64x48", "gradient:green-white", path)
    exiftool_write(path, [("ExifByteOrder", "II")] + tags)
    picture(seed=5).save(f"{out}/no-exif.jpg", quality=90)


if __name__ == "__main__":
    write_test_set(sys.argv[1])
