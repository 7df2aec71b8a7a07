#!/usr/bin/env python3
"""Accuracy check of shelf's image facts: builds a corpus of images made by other programs
(ImageMagick, heif-enc, cwebp, gif2webp, png2icns, ffmpeg, Pillow, Debian's icon and wallpaper
packages) plus SampleMedia's images, runs `shelf info --json` on each and compares width,
height and frames with Pillow, or with ImageMagick's `identify` where Pillow cannot open the
format (HEIC, PAM, SVG), or with what made the file where neither reads it (a HEIC whose item
type was made `unci`, which libheif 1.15 refuses: heif-enc's input size).

Frames follow each format's rule: GIF/WebP/TIFF/AVIF as Pillow's n_frames (pages of a TIFF,
not its sub-IFDs; an AVIF sequence's frames), ICO/CUR entries as identify counts them, ICNS
sizes as Pillow lists them, PSD layers as Pillow counts them (1 when there are none), DCX pages
as Pillow counts them, HEIF/HEIC/AVIF top-level images as heif-info lists them (Pillow and
identify see only the primary image), an APNG's frames as ffprobe counts them (Pillow trusts
acTL; the `apng-lying` family has an acTL that claims another count).

Prints one line per format family with its agreement, the agreement over the files Pillow
opens and every mismatch; exits 1 when a family of the older formats (PCX, DCX, SGI, Sun, XBM,
DDS, EPS, FITS, ICNS, APNG, AVIF sequences, unci HEIF) or the files Pillow opens as a whole are
under 99.5 %, or when one of those families has fewer than 30 files.
"""

import argparse
import glob
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import zlib

from PIL import Image

IMAGE_EXTENSIONS = {"png", "jpg", "jpeg", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "bmp", "dib", "ico",
                    "cur", "icns", "psd", "tga", "qoi", "pbm", "pgm", "ppm", "pam", "xpm", "jp2", "j2k", "svg",
                    "pcx", "dcx", "sgi", "rgb", "ras", "xbm", "dds", "eps", "epsi", "fits", "fit", "fts"}
SIZES = [(1, 1), (7, 5), (16, 16), (33, 17), (64, 48), (100, 1), (1, 90), (255, 256), (320, 240), (513, 129)]


def run(*args, **kwargs):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)


def magick_source(path, width, height, alpha=False, seed=1):
    """An image with structure (a seeded plasma, so lossy coders have work to do)."""
    args = ["convert", "-seed", str(seed), "-size", f"{width}x{height}", "plasma:red-blue"]
    if alpha:
        args += ["(", "-size", f"{width}x{height}", "gradient:white-black", ")", "-alpha", "off",
                 "-compose", "copy_opacity", "-composite"]
    run(*args, path)


class Corpus:
    def __init__(self, folder):
        self.folder = folder
        self.files = []  # (path, family)
        self.count = 0
        os.makedirs(folder, exist_ok=True)

    def path(self, family, ext):
        self.count += 1
        return os.path.join(self.folder, f"{self.count:04d}-{family}.{ext}")

    def add(self, path, family):
        if os.path.exists(path) and os.path.getsize(path) > 0:
            self.files.append((path, family))

    def tool(self, family, ext, *args):
        """Runs a tool that writes `{out}`; a tool that fails on an input adds nothing."""
        out = self.path(family, ext)
        try:
            run(*[out if a == "{out}" else a for a in args])
        except subprocess.CalledProcessError:
            return
        self.add(out, family)

    def png_source(self, width, height, alpha=False, seed=1):
        path = os.path.join(self.folder, "src", f"{width}x{height}-{int(alpha)}-{seed}.png")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            magick_source(path, width, height, alpha, seed)
        return path

    def magick(self, family, ext, size, options=(), alpha=False, prefix="", seed=1, inputs=None):
        out = self.path(family, ext)
        sources = inputs or [self.png_source(*size, alpha=alpha, seed=seed)]
        try:
            run("convert", *sources, *options, prefix + out)
        except subprocess.CalledProcessError:
            return
        self.add(out, family)

    def pillow(self, family, ext, size, mode="RGB", **save):
        out = self.path(family, ext)
        image = Image.open(self.png_source(*size, alpha=True)).convert(mode)
        image.save(out, **save)
        self.add(out, family)


def build(corpus):
    c = corpus
    # JPEG: baseline, progressive, gray, CMYK (Adobe APP14), Pillow's, junk before a marker,
    # a truncated APP14.
    for i, size in enumerate(SIZES):
        c.magick("jpeg", "jpg", size, ["-quality", str(50 + i * 5)])
        c.magick("jpeg", "jpg", size, ["-interlace", "Plane"])
        c.magick("jpeg", "jpg", size, ["-colorspace", "Gray"])
        c.magick("jpeg", "jpg", size, ["-colorspace", "CMYK"])
        c.magick("jpeg", "jpg", size, ["-define", "jpeg:arithmetic-coding=true"])
        c.pillow("jpeg", "jpg", size, progressive=i % 2 == 0, subsampling=i % 3)
    for size in SIZES[2:]:
        c.magick("jpeg", "jpg", size)
        data = open(c.files[-1][0], "rb").read()
        # junk between the APP0 segment and the next marker, as libjpeg tolerates
        app0_end = 4 + struct.unpack(">H", data[4:6])[0]
        out = c.path("jpeg", "jpg")
        with open(out, "wb") as f:
            f.write(data[:app0_end] + b"\x00junk\x12" + data[app0_end:])
        c.add(out, "jpeg")
        out = c.path("jpeg", "jpg")
        with open(out, "wb") as f:  # an APP14 too short to hold the Adobe transform
            f.write(data[:2] + b"\xff\xee\x00\x07Adobe" + data[2:])
        c.add(out, "jpeg")
    # PNG: ImageMagick's variants (the PNG reader is ShelfPNG's; a sanity check).
    for size in SIZES[:5]:
        c.magick("png", "png", size, ["-define", "png:color-type=2"])
        c.magick("png", "png", size, ["-interlace", "PNG"], alpha=True)
    # GIF: still, animated, interlaced, transparent.
    for i, size in enumerate(SIZES):
        c.magick("gif", "gif", size)
        c.magick("gif", "gif", size, ["-interlace", "GIF"], alpha=True)
        frames = [c.png_source(*size, seed=s) for s in range(1, 3 + i % 4)]
        c.magick("gif", "gif", size, ["-set", "delay", "10", "-loop", "0"], inputs=frames)
    # WebP: cwebp lossy, lossless and with alpha; gif2webp animations; Pillow's.
    for i, size in enumerate(SIZES):
        src = c.png_source(*size, alpha=i % 2 == 1)
        for options in (["-q", "70"], ["-lossless"], ["-q", "50", "-alpha_q", "50"]):
            c.tool("webp", "webp", "cwebp", "-quiet", *options, src, "-o", "{out}")
    for path, family in list(c.files):
        if family == "gif" and len(c.files) < 10_000 and Image.open(path).n_frames > 1:
            c.tool("webp", "webp", "gif2webp", "-quiet", path, "-o", "{out}")
    for size in SIZES[2:6]:
        c.pillow("webp", "webp", size, mode="RGBA", lossless=True)
    # TIFF: single, multi-page, big-endian, BigTIFF, 16-bit, gray, CMYK, compressed, Pillow's.
    for i, size in enumerate(SIZES):
        c.magick("tiff", "tif", size)
        c.magick("tiff", "tif", size, ["-endian", "MSB", "-compress", "LZW"])
        pages = [c.png_source(*size, seed=s) for s in range(1, 2 + i % 5)]
        c.magick("tiff", "tif", size, ["-compress", "Zip"], inputs=pages)
        c.magick("tiff", "tif", size, ["-depth", "16", "-colorspace", "Gray"])
        c.magick("tiff", "tif", size, ["-colorspace", "CMYK"])
        c.magick("tiff", "tif", size, [], prefix="TIFF64:", inputs=pages)
        c.pillow("tiff", "tif", size, mode="RGBA", compression="tiff_deflate")
    # HEIF: heif-enc (HEVC, alpha, several top-level images, a thumbnail); ImageMagick's and Pillow's AVIF.
    for i, size in enumerate(SIZES[2:9]):
        src = c.png_source(*size, alpha=i % 2 == 0)
        c.tool("heic", "heic", "heif-enc", "-q", "50", src, "-o", "{out}")
        # Debian 12's heif-enc aborts in libaom for AVIF (subsampling assertion): ImageMagick
        # drives libheif for AVIF instead.
        c.magick("avif", "avif", size, ["-quality", "50"], alpha=i % 2 == 0)
        pages = [c.png_source(*size, seed=s) for s in range(1, 2 + i % 3)]
        c.tool("heic", "heic", "heif-enc", "-q", "40", "-t", "8", *pages, "-o", "{out}")
        c.pillow("avif", "avif", size, mode="RGBA", quality=60)
    # AVIF with `irot`/`imir`: Pillow turns an EXIF orientation into them when it writes AVIF.
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        c.pillow("avif", "avif", (96, 40), quality=60, exif=exif.tobytes())
    # BMP and DIB: every bit count and header version ImageMagick writes, OS/2, alpha masks,
    # Pillow's, and bare DIBs (the BMP file header cut off).
    for i, size in enumerate(SIZES):
        for fmt in ("BMP2", "BMP3", "BMP"):
            c.magick("bmp", "bmp", size, [], prefix=f"{fmt}:")
        c.magick("bmp", "bmp", size, ["-type", "Palette"], prefix="BMP3:")
        c.magick("bmp", "bmp", size, ["-type", "Bilevel"], prefix="BMP3:")
        c.magick("bmp", "bmp", size, ["-define", "bmp:subtype=RGB565"], prefix="BMP:")
        c.magick("bmp", "bmp", size, ["-define", "bmp:subtype=ARGB4444"], prefix="BMP:", alpha=True)
        c.magick("bmp", "bmp", size, [], prefix="BMP:", alpha=True)
        c.pillow("bmp", "bmp", size, mode=["RGB", "L", "1", "P", "RGBA"][i % 5])
        bmp = c.files[-1][0]
        data = open(bmp, "rb").read()
        out = c.path("dib", "dib")
        with open(out, "wb") as f:
            f.write(data[14:])
        c.add(out, "dib")
    # ICO and CUR: several entries (BMP and PNG ones), ImageMagick's and Pillow's.
    for i, size in enumerate(SIZES[2:9]):
        w, h = size
        c.magick("ico", "ico", size, ["-define", "icon:auto-resize=" + ",".join(str(s) for s in (16, 32, 48, min(256, max(w, h))))])
        c.magick("ico", "ico", (min(w, 256), min(h, 256)), [])
        c.magick("cur", "cur", (min(w, 256), min(h, 256)), [])
        # ImageMagick's `.cur` is an icon (type 1); a cursor says type 2.
        data = open(c.files[-1][0], "rb").read()
        out = c.path("cur", "cur")
        with open(out, "wb") as f:
            f.write(data[:2] + b"\x02\x00" + data[4:])
        c.add(out, "cur")
        c.pillow("ico", "ico", (64, 64), mode="RGBA", sizes=[(16, 16), (32, 32), (64, 64)][: 1 + i % 3])
    # ICNS: png2icns and Pillow.
    for sizes in ([16], [16, 32], [16, 32, 48, 128], [32, 128, 256], [16, 32, 128, 256, 512], [48], [128],
                  [256], [512], [16, 48], [32, 48], [48, 128], [16, 256], [32, 512], [128, 512], [16, 32, 48],
                  [48, 256, 512], [16, 128, 256, 512], [16, 32, 48, 128, 256, 512]):
        c.tool("icns", "icns", "png2icns", "{out}", *[c.png_source(s, s, alpha=True) for s in sizes])
    for s in (16, 32, 64, 128, 256, 512, 1024, 20, 40, 100, 200, 300, 600):
        c.pillow("icns", "icns", (s, s), mode="RGBA")
    # PSD: ImageMagick's, 8-bit (which Pillow reads) and 16-bit, flattened and with layers.
    for i, size in enumerate(SIZES):
        c.magick("psd", "psd", size, ["-depth", "8"])
        c.magick("psd", "psd", size, ["-depth", "8"], alpha=True)
        c.magick("psd", "psd", size, ["-depth", "8"], inputs=[c.png_source(*size, seed=s) for s in range(1, 3 + i % 2)])
        c.magick("psd", "psd", size, ["-depth", "16"], inputs=[c.png_source(*size, seed=s) for s in range(1, 3 + i % 2)])
    # TGA: ImageMagick's and Pillow's, RLE, gray, palette, alpha.
    for i, size in enumerate(SIZES):
        c.magick("tga", "tga", size)
        c.magick("tga", "tga", size, ["-compress", "RLE"], alpha=True)
        c.magick("tga", "tga", size, ["-colorspace", "Gray"])
        c.magick("tga", "tga", size, ["-type", "Palette"])
        c.pillow("tga", "tga", size, mode=["RGB", "RGBA", "L", "P"][i % 4], rle=i % 2 == 0)
    # QOI: Pillow's.
    for size in SIZES:
        c.pillow("qoi", "qoi", size, mode="RGB")
        c.pillow("qoi", "qoi", size, mode="RGBA")
    # Netpbm: raw and plain (ASCII) PBM, PGM, PPM, 16-bit, and PAM.
    for size in SIZES:
        for ext in ("pbm", "pgm", "ppm"):
            c.magick("pnm", ext, size)
            c.magick("pnm", ext, size, ["-compress", "none"])
        c.magick("pnm", "pgm", size, ["-depth", "16"])
        c.magick("pam", "pam", size, [], alpha=True)
    # XPM: ImageMagick's.
    for size in SIZES[:8]:
        c.magick("xpm", "xpm", size, ["-colors", "16"])
    # JPEG 2000: JP2 files and raw codestreams, ImageMagick's and Pillow's.
    for i, size in enumerate(SIZES):
        c.magick("jp2", "jp2", size)
        c.magick("j2k", "j2k", size)
        c.pillow("jp2", "jp2", size, mode=["RGB", "RGBA", "L"][i % 3])
    # SVG: width/height in pixels, viewBox only, both.
    for i, (w, h) in enumerate(SIZES[2:]):
        for attributes in (f'width="{w}" height="{h}"', f'viewBox="0 0 {w} {h}"',
                           f'width="{w}px" height="{h}px" viewBox="0 0 10 10"'):
            out = c.path("svg", "svg")
            with open(out, "w") as f:
                f.write(f'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" {attributes}>'
                        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#c33"/></svg>\n')
            c.add(out, "svg")
    # PCX and DCX: ImageMagick's (true colour, palette, gray, bilevel; DCX of 1 to 4 pages) and Pillow's.
    for i, size in enumerate(SIZES):
        c.magick("pcx", "pcx", size)
        c.magick("pcx", "pcx", size, ["-type", "Palette"])
        c.magick("pcx", "pcx", size, ["-type", "Bilevel"])
        c.pillow("pcx", "pcx", size, mode=["RGB", "L", "1", "P"][i % 4])
        pages = [c.png_source(*size, seed=s) for s in range(1, 2 + i % 4)]
        c.magick("dcx", "dcx", size, inputs=pages)
        c.magick("dcx", "dcx", size, ["-type", "Palette"], inputs=pages)
        c.magick("dcx", "dcx", size, ["-type", "Bilevel"], inputs=pages[:1])
    # SGI: ImageMagick's (RGB, RGBA, gray, 16-bit, RLE) and Pillow's (L, RGB, RGBA, 16-bit).
    for i, size in enumerate(SIZES):
        c.magick("sgi", "sgi", size)
        c.magick("sgi", "sgi", size, [], alpha=True)
        c.magick("sgi", "sgi", size, ["-colorspace", "Gray", "-depth", "16"])
        c.magick("sgi", "sgi", size, ["-compress", "RLE"])
        c.pillow("sgi", "sgi", size, mode=["L", "RGB", "RGBA"][i % 3], bpc=1 + i % 2)
    # Sun raster: ImageMagick's (true colour, palette, bilevel, alpha, RLE).
    for i, size in enumerate(SIZES):
        c.magick("sun", "ras", size)
        c.magick("sun", "ras", size, ["-type", "Palette"])
        c.magick("sun", "ras", size, ["-type", "Bilevel"])
        c.magick("sun", "ras", size, [], alpha=True)
        c.magick("sun", "ras", size, ["-compress", "RLE"])
    # XBM: ImageMagick's and Pillow's.
    for size in SIZES:
        c.magick("xbm", "xbm", size)
        c.magick("xbm", "xbm", size, ["-dither", "FloydSteinberg"])
        c.pillow("xbm", "xbm", size, mode="1")
    # DDS: ImageMagick's (DXT1, DXT5, uncompressed, with and without mipmaps) and Pillow's.
    for i, size in enumerate(SIZES):
        c.magick("dds", "dds", size, ["-define", "dds:compression=dxt1"])
        c.magick("dds", "dds", size, ["-define", "dds:compression=dxt5"], alpha=True)
        c.magick("dds", "dds", size, ["-define", "dds:compression=none", "-define", "dds:mipmaps=0"])
        c.pillow("dds", "dds", size, mode=["RGB", "RGBA", "L"][i % 3])
    # EPS: ImageMagick's EPSF, level 2 and 3, EPSI (a preview in the PostScript), DOS EPS with a
    # TIFF preview (EPT2, EPT3; Debian's ImageMagick policy refuses plain EPS and EPT), Pillow's.
    for i, size in enumerate(SIZES):
        c.magick("eps", "eps", size, [], prefix="EPSF:")
        c.magick("eps", "eps", size, [], prefix="EPS2:")
        c.magick("eps", "eps", size, [], prefix="EPS3:")
        c.magick("eps", "epsi", size, [], prefix="EPSI:")
        c.magick("eps-dos", "eps", size, [], prefix="EPT2:")
        c.magick("eps-dos", "eps", size, [], prefix="EPT3:")
        c.magick("eps-dos", "eps", size, ["-colorspace", "Gray"], prefix="EPT2:")
        c.magick("eps-dos", "eps", size, ["-colorspace", "Gray"], prefix="EPT3:")
        c.pillow("eps", "eps", size, mode=["RGB", "L", "CMYK"][i % 3])
    # FITS: ImageMagick's, 8, 16 and 32 bits, gray and colour.
    for size in SIZES:
        c.magick("fits", "fits", size, ["-depth", "8"])
        c.magick("fits", "fits", size, ["-depth", "16", "-colorspace", "Gray"])
        c.magick("fits", "fts", size, ["-depth", "32"])
    # APNG: ffmpeg's and Pillow's, and the same with acTL made to claim other frame counts
    # than there are (the frames are the fcTL chunks).
    for i, size in enumerate(SIZES * 2):
        frames = [c.png_source(*size, seed=s) for s in range(1, 3 + i % 3)]
        out = c.path("apng", "png")
        try:
            run("ffmpeg", "-y", "-framerate", "5", "-i", os.path.join(os.path.dirname(frames[0]), f"{size[0]}x{size[1]}-0-%d.png"),
                "-frames:v", str(len(frames)), "-plays", "0", "-f", "apng", out)
            c.add(out, "apng")
        except subprocess.CalledProcessError:
            pass
        out = c.path("apng", "png")
        images = [Image.open(f).convert("RGBA") for f in frames]
        images[0].save(out, save_all=True, append_images=images[1:], duration=100, loop=0)
        c.add(out, "apng")
    for path, family in list(c.files):
        if family != "apng":
            continue
        data = bytearray(open(path, "rb").read())
        at = data.find(b"acTL")
        if at < 0:
            continue
        for claim in (1, struct.unpack(">I", data[at + 4:at + 8])[0] + 2):
            data[at + 4:at + 8] = struct.pack(">I", claim)
            data[at + 12:at + 16] = struct.pack(">I", zlib.crc32(bytes(data[at:at + 12])))
            out = c.path("apng-lying", "png")
            open(out, "wb").write(data)
            c.add(out, "apng-lying")
    # AVIF sequences: Pillow's animated AVIF (an `avis` picture track; its samples are the frames).
    for i, size in enumerate(SIZES * 3):
        frames = [Image.open(c.png_source(*size, seed=s)).convert("RGBA" if i % 2 else "RGB")
                  for s in range(1, 2 + i % 5)]
        out = c.path("avif-sequence", "avif")
        try:
            frames[0].save(out, save_all=True, append_images=frames[1:], duration=100, quality=50)
        except (OSError, ValueError):
            continue
        c.add(out, "avif-sequence")
    # HEIF whose primary item libheif 1.15 cannot decode: heif-enc's files with the item type
    # made `unci` (ISO 23001-17 uncompressed); the size is heif-enc's input's.
    for i, size in enumerate(SIZES[:6] * 5):
        src = c.png_source(*size, alpha=i % 2 == 0, seed=1 + i // 6)
        out = c.path("heif-unci", "heic")
        try:
            run("heif-enc", "-q", "50", src, "-o", out)
        except subprocess.CalledProcessError:
            continue
        data = open(out, "rb").read()
        infe = data.find(b"infe")
        open(out, "wb").write(data[:infe] + data[infe:infe + 20].replace(b"hvc1", b"unci") + data[infe + 20:])
        KNOWN[os.path.abspath(out)] = (size[0], size[1], 1)
        c.add(out, "heif-unci")
    # SampleMedia's images (the backups' files are stored under hashed names: not walked).
    sample_media = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "SampleMedia")
    for path in sorted(glob.glob(os.path.join(sample_media, "**", "*"), recursive=True)):
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if os.path.isfile(path) and "Backups" not in path and ext in IMAGE_EXTENSIONS:
            out = c.path("samplemedia", ext)
            shutil.copyfile(path, out)
            c.add(out, "samplemedia")
    # Debian's icons, wallpapers and pixmaps, a fixed sample.
    system = []
    for pattern in ("/usr/share/icons/**/*.png", "/usr/share/icons/**/*.svg", "/usr/share/backgrounds/**/*",
                    "/usr/share/images/desktop-base/**/*", "/usr/share/pixmaps/**/*"):
        system += sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    random.Random(11).shuffle(system)
    picked = {}
    for path in system:
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext not in ("png", "svg", "jpg", "jpeg", "webp", "xpm", "jxl", "ico"):
            continue
        if picked.get(ext, 0) >= (120 if ext in ("png", "svg") else 40):
            continue
        picked[ext] = picked.get(ext, 0) + 1
        out = c.path("system-" + ext, ext)
        shutil.copyfile(path, out)
        c.add(out, "system-" + ext)


FAMILY_REFERENCE = {"heic": "identify", "pam": "identify", "svg": "identify", "system-svg": "identify"}
# The families each held to 99.5 % and 30 files on their own.
CHECKED_FAMILIES = ["pcx", "dcx", "sgi", "sun", "xbm", "dds", "eps", "eps-dos", "fits", "icns", "apng",
                    "apng-lying", "avif-sequence", "heif-unci"]
# Sizes and frames known from what made the file (the input of a converter), by path.
KNOWN = {}


# The Pillow format of the families whose magic another Pillow plugin also accepts (its GIMP
# brush reader takes a 1×1 Sun raster for a brush): Pillow is told the format, as the name says.
PILLOW_FORMAT = {"pcx": "PCX", "dcx": "DCX", "sgi": "SGI", "sun": "SUN", "xbm": "XBM", "dds": "DDS", "eps": "EPS",
                 "eps-dos": "EPS", "fits": "FITS"}


def exiftool_bounding_box(path):
    """An EPS's size from the %%BoundingBox exiftool reads, each corner truncated as Pillow does
    (for the EPS files Pillow refuses: binary data with a long line that starts with `%`)."""
    out = subprocess.run(["exiftool", "-j", "-BoundingBox", path], capture_output=True, text=True, timeout=60)
    try:
        corners = [int(float(v)) for v in json.loads(out.stdout)[0]["BoundingBox"].split()]
    except (ValueError, KeyError, IndexError):
        return None
    return corners[2] - corners[0], corners[3] - corners[1], 1


def ffprobe_frames(path):
    """The frames FFmpeg's APNG demuxer reads (it follows the fcTL chunks, not acTL)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                          "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True, timeout=60)
    return int(out.stdout.strip()) if out.stdout.strip().isdigit() else None


def identify(path):
    out = subprocess.run(["identify", "-format", "%w %h\n", path], capture_output=True, text=True, timeout=120)
    sizes = [tuple(map(int, line.split())) for line in out.stdout.split("\n") if line.strip()]
    if not sizes:
        return None
    width, height = max(sizes, key=lambda s: s[0] * s[1])
    return width, height, len(sizes)


def heif_top_level_images(path):
    out = subprocess.run(["heif-info", path], capture_output=True, text=True, timeout=60).stdout
    return sum(1 for line in out.split("\n") if line.startswith("image:"))


def reference(path, family):
    """(source, width, height, frames), frames None when not compared."""
    ext = os.path.splitext(path)[1].lower()
    if path in KNOWN:
        return ("known", *KNOWN[path])
    if family not in FAMILY_REFERENCE:
        try:
            formats = [PILLOW_FORMAT[family]] if family in PILLOW_FORMAT else None
            with Image.open(path, formats=formats) as image:
                if image.format == "ICO" or image.format == "CUR":
                    image.load()
                width, height = image.size
                frames = getattr(image, "n_frames", 1)
                if image.format in ("ICO", "CUR"):
                    frames = identify(path)[2]
                elif image.format == "ICNS":
                    frames = len(image.info.get("sizes", [])) or 1
                elif image.format == "PSD":
                    frames = max(frames, 1)
                elif image.format == "PNG" and family.startswith("apng"):
                    frames = ffprobe_frames(path)
                elif image.format == "AVIF":
                    # A sequence's frames as Pillow (libavif) counts them, else the top-level images.
                    frames = frames if frames > 1 else heif_top_level_images(path)
                    # Pillow gives the stored size and reports `irot`/`imir` as an EXIF
                    # orientation; the displayed size is what exif_transpose gives.
                    if image.getexif().get(0x0112, 1) in (5, 6, 7, 8):
                        width, height = height, width
                return "pillow", width, height, frames
        except Exception:
            pass
    if ext in (".eps", ".epsi"):  # Debian's ImageMagick policy keeps identify from reading EPS
        found = exiftool_bounding_box(path)
        return None if found is None else ("exiftool", *found)
    found = identify(path)
    if found is None:
        return None
    width, height, frames = found
    if ext in (".heic", ".heif", ".avif"):
        frames = heif_top_level_images(path)
    elif ext == ".svg" or ext == ".pam":
        frames = 1
    elif ext == ".psd":  # identify lists the composite and then each layer
        frames = max(frames - 1, 1)
    return "identify", width, height, frames


def shelf_facts(shelf, paths):
    facts = {}
    for start in range(0, len(paths), 200):
        batch = paths[start:start + 200]
        out = subprocess.run([shelf, "info", "--json", *batch], capture_output=True, text=True)
        for entry in json.loads(out.stdout or "[]"):
            facts[entry["path"]] = entry
    return facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shelf", required=True)
    parser.add_argument("--corpus", required=True, help="folder to build the corpus in (emptied first)")
    args = parser.parse_args()
    shutil.rmtree(args.corpus, ignore_errors=True)
    corpus = Corpus(args.corpus)
    build(corpus)
    files = [(os.path.abspath(p), f) for p, f in corpus.files]
    facts = shelf_facts(args.shelf, [p for p, _ in files])
    by_family = {}
    mismatches = []
    pillow_total = pillow_equal = other_total = other_equal = 0
    for path, family in files:
        expected = reference(path, family)
        if expected is None:
            continue
        source, width, height, frames = expected
        image = facts.get(path, {}).get("image") or {}
        got = (image.get("width"), image.get("height"), image.get("frames"))
        equal = got == (width, height, frames)
        stats = by_family.setdefault(family, [0, 0])
        stats[0] += 1
        stats[1] += equal
        if source == "pillow":
            pillow_total += 1
            pillow_equal += equal
        else:
            other_total += 1
            other_equal += equal
        if not equal:
            error = facts.get(path, {}).get("error", "")
            mismatches.append(f"  {os.path.basename(path)}: shelf {got} {error}, {source} {(width, height, frames)}")
    print(f"{'family':<16}{'files':>6}{'equal':>7}{'%':>9}")
    for family in sorted(by_family):
        total, equal = by_family[family]
        print(f"{family:<16}{total:>6}{equal:>7}{100.0 * equal / total:>9.2f}")
    short = [f for f in CHECKED_FAMILIES
             if by_family.get(f, [0, 0])[0] < 30 or by_family[f][1] < 0.995 * by_family[f][0]]
    share = 100.0 * pillow_equal / max(pillow_total, 1)
    print(f"files Pillow opens: {pillow_equal}/{pillow_total} equal (width, height, frames): {share:.2f} %")
    print(f"files Pillow does not open (identify, exiftool, known inputs): {other_equal}/{other_total} equal")
    if mismatches:
        print("mismatches:")
        print("\n".join(mismatches))
    if short:
        print("families under 99.5 % or 30 files: " + ", ".join(short))
    return 0 if share >= 99.5 and pillow_total + other_total >= 500 and not short else 1


if __name__ == "__main__":
    sys.exit(main())
