#!/usr/bin/env python3
"""The corpus of `make bench-png`: real photographs, icons and plots from Debian packages.

usage: bench-png-corpus.py UNPACKED OUT

UNPACKED holds the packages `scripts/bench-png.sh` downloads and unpacks (dpkg -x): opencv-doc
(the photographs of its samples), python-matplotlib-data (Grace Hopper's portrait, an MRI slice,
an elevation model and the stock, EEG and census tables the plots draw), lomiri-wallpapers and
lomiri-wallpapers-20.04 (photographs), gimp-data (photographed textures and GIMP's icons),
tango-icon-theme and elementary-xfce-icon-theme (icons). None of these is a source of the
corpus the benchmark used before (PngSuite, /usr/share/icons, /usr/share/doc, generated plots,
scikit-image, libvips' owl, gnome-backgrounds, desktop-base).

Writes OUT/photo-*.png, OUT/icon-*.png and OUT/plot-*.png, the same files on every run:
every choice is by sorted name, Pillow and gnuplot (Debian 12's) draw the pixels.
  photographs  every photograph at most 640 pixels on its longer side as 8-bit RGB, and a
               240-pixel one (the files of the highest-level table); every third also in
               gray, every fourth as an RGBA cut-out with a feathered edge; the MRI slice and
               the elevation model as 16-bit gray, two photographs resampled to 16-bit RGB;
               the photographs opencv-doc ships as PNG are copied as they are.
  icons        every Nth PNG (sorted) of Tango, elementary-xfce and GIMP's legacy icons, as
               shipped.
  plots        gnuplot (pngcairo, antialiased, and libgd's png) drawing the real tables at
               three sizes: lines, filled curves, points, boxes and heat maps.
"""
import glob
import gzip
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
OPENCV = f"{src}/usr/share/doc/opencv-doc/examples/data"
MPL = f"{src}/usr/share/matplotlib/mpl-data/sample_data"


def capped(image, side):
    scale = min(1.0, side / max(image.size))
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image if scale == 1.0 else image.resize(size, Image.LANCZOS)


def write16(path, samples):
    """A 16-bit gray (2-D) or RGB (3-D) PNG through pypng: exact samples."""
    import png
    height, width = samples.shape[:2]
    planes = 1 if samples.ndim == 2 else samples.shape[2]
    with open(path, "wb") as f:
        png.Writer(width, height, greyscale=planes == 1, bitdepth=16, compression=6).write(
            f, samples.reshape(height, width * planes).astype(np.uint16).tolist())


# --- photographs -------------------------------------------------------------------------------
colour = [f"{OPENCV}/{n}" for n in (
    "aero1.jpg", "aero3.jpg", "aloeL.jpg", "apple.jpg", "baboon.jpg", "board.jpg",
    "building.jpg", "butterfly.jpg", "ela_original.jpg", "fruits.jpg", "home.jpg", "left.jpg",
    "leuvenA.jpg", "licenseplate_motion.jpg", "messi5.jpg", "orange.jpg", "squirrel_cls.jpg",
    "starry_night.jpg", "HappyFish.jpg")]
colour += sorted(glob.glob(f"{src}/usr/share/doc/opencv-doc/examples/text/scenetext0*.jpg"))
colour += [f"{MPL}/grace_hopper.jpg"]
colour += sorted(glob.glob(f"{src}/usr/share/backgrounds/*.jpg"))
colour += sorted(glob.glob(f"{src}/usr/share/gimp/2.0/scripts/images/texture*.jpg"))
gray = [f"{OPENCV}/{n}" for n in ("left01.jpg", "right07.jpg", "ellipses.jpg")]
as_shipped = [f"{OPENCV}/{n}" for n in (
    "basketball1.png", "box_in_scene.png", "graf1.png", "rubberwhale1.png", "smarties.png",
    "sudoku.png", "chicky_512.png", "pic2.png", "pic4.png")]

n = 0


def save(image, tag):
    global n
    image.save(f"{out}/photo-{n:02d}-{tag}.png", compress_level=6)
    n += 1


for i, path in enumerate(colour):
    image = Image.open(path).convert("RGB")
    name = os.path.splitext(os.path.basename(path))[0].split("_by_")[0]
    save(capped(image, 640), f"{name}-rgb")
    save(capped(image, 240), f"{name}-rgb-small")
    if i % 3 == 0:
        save(capped(image, 480).convert("L"), f"{name}-gray")
    if i % 4 == 1:
        cut = capped(image, 400)
        mask = Image.new("L", cut.size, 0)
        ImageDraw.Draw(mask).ellipse(
            (cut.width * 0.08, cut.height * 0.08, cut.width * 0.92, cut.height * 0.92), fill=255)
        cut.putalpha(mask.filter(ImageFilter.GaussianBlur(6)))
        save(cut, f"{name}-rgba")
    if i in (2, 13):
        # 16-bit RGB: resampled in floating point from the full-size photograph.
        small = capped(image, 360)
        planes = [np.asarray(image.getchannel(c), dtype=np.float32) for c in range(3)]
        resized = [np.asarray(Image.fromarray(p).resize(small.size, Image.LANCZOS)) for p in planes]
        write16(f"{out}/photo-{n:02d}-{name}-rgb16.png",
                np.clip(np.stack(resized, axis=2) * 257.0, 0, 65535))
        n += 1
for path in gray:
    save(capped(Image.open(path).convert("L"), 640), os.path.splitext(os.path.basename(path))[0] + "-gray")
for path in as_shipped:
    with open(path, "rb") as f, open(f"{out}/photo-{n:02d}-{os.path.basename(path)}", "wb") as g:
        g.write(f.read())
    n += 1
# An MRI slice (256x256, 16-bit big-endian samples) and a digital elevation model (metres).
with gzip.open(f"{MPL}/s1045.ima.gz") as f:
    mri = np.frombuffer(f.read(), dtype=">u2").reshape(256, 256).astype(np.float64)
write16(f"{out}/photo-{n:02d}-mri-gray16.png", mri * (65535.0 / max(1.0, mri.max())))
n += 1
dem = np.load(f"{MPL}/jacksboro_fault_dem.npz")["elevation"].astype(np.float64)
write16(f"{out}/photo-{n:02d}-elevation-gray16.png",
        (dem - dem.min()) * (65535.0 / max(1.0, dem.max() - dem.min())))
n += 1
print(f"photographs: {n}")

# --- icons -------------------------------------------------------------------------------------
icons = sorted(glob.glob(f"{src}/usr/share/icons/Tango/**/*.png", recursive=True))
icons += sorted(glob.glob(f"{src}/usr/share/icons/elementary-xfce/**/*.png", recursive=True))
icons += sorted(glob.glob(f"{src}/usr/share/gimp/2.0/icons/Legacy/**/*.png", recursive=True))
icons = [p for p in icons if os.path.getsize(p) > 0 and not os.path.islink(p)]
step = max(1, len(icons) // 180)
for k, path in enumerate(icons[::step][:180]):
    with open(path, "rb") as f, open(f"{out}/icon-{k:03d}-{os.path.basename(path)}", "wb") as g:
        g.write(f.read())
print(f"icons: {min(180, len(icons[::step]))}")

# --- plots -------------------------------------------------------------------------------------
data = f"{out}/.plot-data"
os.makedirs(data, exist_ok=True)
stocks = np.genfromtxt(f"{MPL}/Stocks.csv", delimiter=",", skip_header=2, usecols=range(1, 11))
np.savetxt(f"{data}/stocks.dat", np.column_stack([np.arange(len(stocks)), stocks]), fmt="%.6g")
women = np.genfromtxt(f"{MPL}/percent_bachelors_degrees_women_usa.csv", delimiter=",", skip_header=1)
np.savetxt(f"{data}/women.dat", women, fmt="%.6g")
msft = np.genfromtxt(f"{MPL}/msft.csv", delimiter=",", skip_header=1, usecols=range(1, 6))[::-1]
np.savetxt(f"{data}/msft.dat", np.column_stack([np.arange(len(msft)), msft]), fmt="%.6g")
eeg = np.fromfile(f"{MPL}/eeg.dat", dtype=np.int16).astype(np.float64).reshape(-1, 8)[:800]
np.savetxt(f"{data}/eeg.dat", np.column_stack([np.arange(len(eeg)), eeg + 300 * np.arange(8)]), fmt="%.6g")
membrane = np.fromfile(f"{MPL}/membrane.dat", dtype=np.float32)[:3000]
np.savetxt(f"{data}/membrane.dat", np.column_stack([np.arange(len(membrane)), membrane]), fmt="%.6g")
np.savetxt(f"{data}/dem.dat", dem[::4, ::4], fmt="%.6g")
topo = np.load(f"{MPL}/topobathy.npz")["topo"]
np.savetxt(f"{data}/topo.dat", topo, fmt="%.6g")

PLOTS = {
    "stocks": "set key left top; set logscale y; plot for [c=2:11] 'stocks.dat' using 1:c with lines lw 1.5 title columnhead(c)",
    "women": "set key outside right; set yrange [0:100]; plot for [c=2:18] 'women.dat' using 1:c with lines lw 2 notitle",
    "msft": "plot 'msft.dat' using 1:2:4:3:5 with candlesticks notitle, '' using 1:5 with lines lw 2 notitle",
    "msft-volume": "set style fill solid 0.6; plot 'msft.dat' using 1:($6/1e6) with boxes notitle",
    "eeg": "unset ytics; plot for [c=2:9] 'eeg.dat' using 1:c with lines notitle",
    "membrane": "plot 'membrane.dat' using 1:2 with lines lw 1 notitle",
    "membrane-points": "plot 'membrane.dat' every 5 using 1:2 with points pt 7 ps 0.5 notitle",
    "women-filled": "set style fill transparent solid 0.4; plot 'women.dat' using 1:2 with filledcurves y1=0 notitle, '' using 1:9 with filledcurves y1=0 notitle, '' using 1:10 with filledcurves y1=0 notitle",
    "dem": "set view map; unset key; plot 'dem.dat' matrix with image",
    "topo": "set view map; unset key; set palette rgbformulae 33,13,10; plot 'topo.dat' matrix with image",
    "dem-contour": "unset key; set contour; unset surface; set view map; set cntrparam levels 12; splot 'dem.dat' matrix with lines",
}
sizes = [("large", 800, 600), ("medium", 560, 420), ("small", 280, 210)]
k = 0
for name in sorted(PLOTS):
    for size_name, width, height in sizes:
        for terminal in ("pngcairo", "png"):
            if terminal == "png" and size_name == "medium":
                continue
            target = f"{out}/plot-{k:02d}-{name}-{size_name}-{terminal}.png"
            script = (f"set terminal {terminal} size {width},{height}; set output '{target}'; "
                      f"set grid; {PLOTS[name]}")
            subprocess.run(["gnuplot", "-e", script], cwd=data, check=True,
                           stderr=subprocess.DEVNULL)
            k += 1
print(f"plots: {k}")
for f in glob.glob(f"{data}/*"):
    os.remove(f)
os.rmdir(data)
