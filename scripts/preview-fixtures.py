"""Makes one small picture in every format `shelf show` previews, each written by another program
(ImageMagick, cwebp, heif-enc, png2icns, qoiconv, exiftool), and prints Pillow's decode of each
(of an SVG drawing, rsvg-convert's rendering) as JSON: size upright by its EXIF orientation and
the colour at the centre of each quadrant.

usage: preview-fixtures.py FOLDER > reference.json

The picture is four flat quadrants (so resampling does not move the centre colours); the ICO and
ICNS files hold a small black entry besides it (a preview shows the largest); the GIF and TIFF
have a black second frame (a preview shows the first); one JPEG says EXIF orientation 6.
Pillow reads neither HEIF nor PAM: those are converted to PNG by heif-convert and ImageMagick
first. The PNG's exact RGBA goes to FOLDER/source.rgba.
"""
import json, os, shutil, subprocess, sys
from PIL import Image, ImageOps

folder = sys.argv[1]
os.chdir(folder)
QUADRANTS = ["rgb(220,20,60)", "rgb(30,160,70)", "rgb(40,60,200)", "rgb(240,200,40)"]

def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def quadrants(name, width, height):
    w, h = width // 2, height // 2
    run("convert", "(", "-size", f"{w}x{h}", "xc:" + QUADRANTS[0], "xc:" + QUADRANTS[1], "+append", ")",
        "(", "-size", f"{w}x{h}", "xc:" + QUADRANTS[2], "xc:" + QUADRANTS[3], "+append", ")",
        "-append", "PNG24:" + name)

quadrants("source.png", 160, 120)
quadrants("square.png", 128, 128)
run("convert", "-size", "32x32", "xc:black", "PNG24:black32.png")
files = {"png": "source.png"}
run("convert", "source.png", "-quality", "95", "photo.jpg"); files["jpeg"] = "photo.jpg"
run("convert", "source.png", "-interlace", "JPEG", "-quality", "95", "progressive.jpg"); files["jpeg-progressive"] = "progressive.jpg"
run("convert", "source.png", "-colorspace", "Gray", "-quality", "95", "gray.jpg"); files["jpeg-gray"] = "gray.jpg"
run("convert", "source.png", "(", "-size", "160x120", "xc:black", ")", "animated.gif"); files["gif"] = "animated.gif"
run("cwebp", "-quiet", "-q", "95", "source.png", "-o", "picture.webp"); files["webp"] = "picture.webp"
run("convert", "source.png", "(", "-size", "160x120", "xc:black", ")", "pages.tiff"); files["tiff"] = "pages.tiff"
run("convert", "source.png", "picture.bmp"); files["bmp"] = "picture.bmp"
run("heif-enc", "-q", "95", "source.png", "-o", "photo.heic"); files["heic"] = "photo.heic"
run("heif-enc", "-A", "-q", "95", "source.png", "-o", "photo.avif"); files["avif"] = "photo.avif"
# The small black entry comes first: the preview must pick the largest.
run("convert", "(", "-size", "16x12", "xc:black", ")", "(", "source.png", "-resize", "64x48", ")", "icon.ico"); files["ico"] = "icon.ico"
run("png2icns", "icon.icns", "black32.png", "square.png"); files["icns"] = "icon.icns"
run("convert", "source.png", "layers.psd"); files["psd"] = "layers.psd"
run("convert", "source.png", "picture.tga"); files["tga"] = "picture.tga"
run("qoiconv", "source.png", "picture.qoi"); files["qoi"] = "picture.qoi"
run("convert", "source.png", "binary.ppm"); files["ppm"] = "binary.ppm"
run("convert", "source.png", "-compress", "none", "ascii.ppm"); files["ppm-ascii"] = "ascii.ppm"
run("convert", "source.png", "picture.pam"); files["pam"] = "picture.pam"
run("convert", "source.png", "picture.jp2"); files["jp2"] = "picture.jp2"
shutil.copy("photo.jpg", "rotated.jpg")
run("exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", "rotated.jpg"); files["jpeg-orientation-6"] = "rotated.jpg"

reference = {}
for kind, name in files.items():
    decodable = name
    if kind in ("heic", "avif"):
        decodable = name + ".png"
        run("heif-convert", name, decodable)
    elif kind == "pam":  # Pillow reads P1-P6, not P7
        decodable = name + ".png"
        run("convert", name, "PNG32:" + decodable)
    image = ImageOps.exif_transpose(Image.open(decodable)).convert("RGBA")
    width, height = image.size
    centres = [(width // 4, height // 4), (3 * width // 4, height // 4),
               (width // 4, 3 * height // 4), (3 * width // 4, 3 * height // 4)]
    reference[kind] = {"path": os.path.join(folder, name), "width": width, "height": height,
                       "colours": [list(image.getpixel(c)[:3]) for c in centres]}
    if kind == "png":
        with open("source.rgba", "wb") as out:
            out.write(image.tobytes())

# A drawing 40x32 CSS pixels large (viewBox 160x128): quadrants, a circle and a gradient, and
# rsvg-convert's rendering of it enlarged to 100x80, the size that fills a 100x80 box, whose
# exact RGBA goes to FOLDER/drawing.rgba. The quadrants' edges fall between pixels (rsvg leaves
# an edge inside a pixel partly transparent).
with open("drawing.svg", "w") as out:
    out.write('''<?xml version="1.0" encoding="UTF-8"?>
<!-- a test drawing -->
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="32" viewBox="0 0 160 128">
  <defs><linearGradient id="fade"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></linearGradient></defs>
  <rect width="80" height="64" fill="rgb(220,20,60)"/>
  <rect x="80" width="80" height="64" fill="rgb(30,160,70)"/>
  <rect y="64" width="80" height="64" fill="rgb(40,60,200)"/>
  <rect x="80" y="64" width="80" height="64" fill="rgb(240,200,40)"/>
  <circle cx="80" cy="64" r="24" fill="url(#fade)"/>
</svg>
''')
subprocess.run(["rsvg-convert", "-w", "100", "-h", "80", "-o", "drawing.svg.png", "drawing.svg"], check=True)
image = Image.open("drawing.svg.png").convert("RGBA")
width, height = image.size
centres = [(width // 4, height // 4), (3 * width // 4, height // 4),
           (width // 4, 3 * height // 4), (3 * width // 4, 3 * height // 4)]
reference["svg"] = {"path": os.path.join(folder, "drawing.svg"), "width": width, "height": height,
                    "colours": [list(image.getpixel(c)[:3]) for c in centres]}
with open("drawing.rgba", "wb") as out:
    out.write(image.tobytes())
json.dump(reference, sys.stdout)
