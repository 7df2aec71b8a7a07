#!/usr/bin/env python3
"""Generate the committed sample sandbox `SampleMedia/` and its facts manifest.

    python3 scripts/make-sample-media.py            # regenerate + verify
    python3 scripts/make-sample-media.py --no-verify
    python3 scripts/make-sample-media.py --shelf .build/debug/shelf   # also the CgBI file

Reproducible: the same bytes on every run (fixed patterns, integer pixel maths, no
timestamps, sox run with -R and no dither, Ogg serial numbers rewritten, MP3 tags and
the Xing/Info + LAME header written here). Needs Python 3 and sox with libsox-fmt-all
(FLAC, Ogg Vorbis and MP3 encoding); the phone and music-library media (M4A, ALAC, AMR,
MOV, an MP3 without a Xing header, AIFF with an ID3 chunk, FLAC with repeated comments)
also need ffmpeg, lame and mutagen (pip install mutagen), run with bit-exact flags.
Verification uses `soxi` and, when present, libsndfile through ctypes for the WAV/FLAC/
Ogg/MP3 samples, and ffprobe plus ffmpeg's decoded sample counts for the others.

Writes:
  SampleMedia/**                       the sandbox (wiped and rewritten)
  Tests/Fixtures/sample-media.json     one entry per file with the facts tests assert
"""

import argparse
import ctypes
import ctypes.util
import hashlib
import json
import math
import os
import plistlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exif_photos  # noqa: E402  (Pillow; the EXIF test photos' writers)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 44100

# ---------------------------------------------------------------------------
# PNG encoder (stdlib: zlib + struct)
# ---------------------------------------------------------------------------

COLOR_TYPES = {"gray": 0, "rgb": 2, "palette": 3, "gray-alpha": 4, "rgba": 6}
CHANNELS = {"gray": 1, "rgb": 3, "palette": 1, "gray-alpha": 2, "rgba": 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _pack_row(samples, bit_depth):
    """Pack one row of sample values (already flattened per channel) into bytes."""
    if bit_depth == 8:
        return bytes(samples)
    if bit_depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    per_byte = 8 // bit_depth
    out = bytearray()
    for i in range(0, len(samples), per_byte):
        group = samples[i:i + per_byte]
        byte = 0
        for j in range(per_byte):
            v = group[j] if j < len(group) else 0
            byte |= v << (8 - bit_depth * (j + 1))
        out.append(byte)
    return bytes(out)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _filter_rows(rows, bpp, first_filter):
    """Filter each row; row i uses filter type (first_filter + i) % 5 so every decoder
    path (None, Sub, Up, Average, Paeth) is exercised."""
    out = bytearray()
    prev = bytes(len(rows[0])) if rows else b""
    for i, row in enumerate(rows):
        ft = (first_filter + i) % 5
        f = bytearray()
        for x in range(len(row)):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 0:
                v = row[x]
            elif ft == 1:
                v = row[x] - a
            elif ft == 2:
                v = row[x] - b
            elif ft == 3:
                v = row[x] - ((a + b) >> 1)
            else:
                v = row[x] - _paeth(a, b, c)
            f.append(v & 0xFF)
        out.append(ft)
        out += f
        prev = row
    return bytes(out)


def encode_png(width, height, color, bit_depth, pixel, interlaced=False, palette=None, trns=None, text=None):
    """pixel(x, y) -> tuple of channel samples (palette: (index,))."""
    ch = CHANNELS[color]
    bpp = max(1, ch * bit_depth // 8)

    def rows_for(xs, ys):
        rows = []
        for y in ys:
            samples = []
            for x in xs:
                samples.extend(pixel(x, y))
            rows.append(_pack_row(samples, bit_depth))
        return rows

    if interlaced:
        raw = bytearray()
        for (x0, y0, dx, dy) in ADAM7:
            xs, ys = list(range(x0, width, dx)), list(range(y0, height, dy))
            if xs and ys:
                raw += _filter_rows(rows_for(xs, ys), bpp, y0 + x0)
    else:
        raw = _filter_rows(rows_for(range(width), range(height)), bpp, 0)
    out = b"\x89PNG\r\n\x1a\n"
    out += png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, COLOR_TYPES[color], 0, 0,
                                          1 if interlaced else 0))
    if palette is not None:
        out += png_chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    if trns is not None:
        out += png_chunk(b"tRNS", bytes(trns))
    if text:
        for k, v in text:
            out += png_chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1"))
    out += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    out += png_chunk(b"IEND", b"")
    return out


def image_facts(width, height, color, bit_depth, interlaced=False, trns=False, cgbi=False):
    return {"width": width, "height": height, "bit_depth": bit_depth, "color_type": color,
            "alpha": color in ("rgba", "gray-alpha") or trns, "interlaced": interlaced, "cgbi": cgbi}


# Deterministic images: integer maths only.

def img_rgba_gradient():
    w, h = 64, 48

    def px(x, y):
        r = x * 255 // (w - 1)
        g = y * 255 // (h - 1)
        b = ((x ^ y) * 4) & 0xFF
        a = 255 if (x // 8 + y // 8) % 2 == 0 else 64 + (x * 3) % 128
        return (r, g, b, a)
    return encode_png(w, h, "rgba", 8, px), image_facts(w, h, "rgba", 8)


def img_gray_checker():
    w, h = 32, 32
    return (encode_png(w, h, "gray", 8, lambda x, y: (((x // 4 + y // 4) % 2) * 160 + x * 2 + y,)),
            image_facts(w, h, "gray", 8))


def img_palette_trns():
    w, h = 48, 32
    palette = [((i * 37) % 256, (i * 91) % 256, (255 - i * 16) % 256) for i in range(16)]
    trns = [0, 128] + [255] * 6  # index 0 transparent, 1 half; shorter than PLTE on purpose
    png = encode_png(w, h, "palette", 4, lambda x, y: (((x // 6) + (y // 4) * 3) % 16,),
                     palette=palette, trns=trns)
    return png, image_facts(w, h, "palette", 4, trns=True)


def img_rgb16():
    w, h = 40, 30

    def px(x, y):
        return (x * 65535 // (w - 1), y * 65535 // (h - 1), ((x * y * 977) + 12345) & 0xFFFF)
    return encode_png(w, h, "rgb", 16, px), image_facts(w, h, "rgb", 16)


def img_interlaced():
    w, h = 35, 29  # odd sizes: some Adam7 passes are partial

    def px(x, y):
        return ((x * 7) & 0xFF, (y * 9) & 0xFF, ((x + y) * 5) & 0xFF)
    return (encode_png(w, h, "rgb", 8, px, interlaced=True), image_facts(w, h, "rgb", 8, interlaced=True))


def img_gray_alpha():
    w, h = 32, 32

    def px(x, y):
        d2 = (x - 16) * (x - 16) + (y - 16) * (y - 16)
        return ((x * 8) & 0xFF, 255 if d2 < 100 else (0 if d2 > 225 else 255 - (d2 - 100) * 2))
    return encode_png(w, h, "gray-alpha", 8, px), image_facts(w, h, "gray-alpha", 8)


def img_icon():
    w = h = 120

    def px(x, y):
        # rounded square (radius 24) with a diagonal gradient and a white "S"-ish bar
        r = 24
        cx = min(max(x, r), w - 1 - r)
        cy = min(max(y, r), h - 1 - r)
        d2 = (x - cx) ** 2 + (y - cy) ** 2
        if d2 > r * r:
            return (0, 0, 0, 0)
        a = 255 if d2 <= (r - 1) * (r - 1) else 128
        if 30 <= x < 90 and (30 <= y < 42 or 54 <= y < 66 or 78 <= y < 90):
            return (255, 255, 255, a)
        return (20 + x, 60 + y, 200, a)
    return encode_png(w, h, "rgba", 8, px), image_facts(w, h, "rgba", 8)


def img_thumbnail():
    w, h = 32, 24
    return (encode_png(w, h, "rgb", 8, lambda x, y: (x * 8, y * 10, 128)), image_facts(w, h, "rgb", 8))


def img_mislabelled():
    w, h = 32, 24
    return (encode_png(w, h, "rgb", 8, lambda x, y: (200, (x * y) & 0xFF, 40),
                       text=[("Comment", "a PNG with a .jpg name")]),
            image_facts(w, h, "rgb", 8))


# ---------------------------------------------------------------------------
# Audio
# ---------------------------------------------------------------------------

TAG_COMMON = {"artist": "Shelf Test Signals", "album": "Shelf Sample Media", "date": "2024"}


def synth(seconds, channels, voices):
    """voices: per channel, a function t -> float in [-1, 1]. Returns 16-bit LE PCM bytes.
    A 10 ms fade in/out avoids clicks."""
    n = int(round(seconds * RATE))
    fade = RATE // 100
    out = bytearray()
    for i in range(n):
        t = i / RATE
        g = min(1.0, i / fade, (n - 1 - i) / fade)
        for c in range(channels):
            v = int(round(voices[c](t) * g * 32767 * 0.5))
            out += struct.pack("<h", max(-32768, min(32767, v)))
    return bytes(out), n


def sine(f):
    return lambda t: math.sin(2 * math.pi * f * t)


def chord(*fs):
    return lambda t: sum(math.sin(2 * math.pi * f * t) for f in fs) / len(fs)


def sweep(f0, f1, dur):
    k = math.log(f1 / f0) / dur
    return lambda t: math.sin(2 * math.pi * f0 * (math.exp(k * t) - 1) / k)


def beeps(f, period):
    return lambda t: math.sin(2 * math.pi * f * t) if (t % period) < period * 0.6 else 0.0


def wav_bytes(pcm, channels, tags=None):
    fmt = struct.pack("<HHIIHH", 1, channels, RATE, RATE * channels * 2, channels * 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(pcm)) + pcm + (b"\0" if len(pcm) % 2 else b"")
    if tags:
        info = b"INFO"
        for cid, key in ((b"INAM", "title"), (b"IART", "artist"), (b"IPRD", "album"), (b"ICRD", "date"),
                         (b"ITRK", "track"), (b"IGNR", "genre")):
            v = tags[key].encode("ascii") + b"\0"
            info += cid + struct.pack("<I", len(v)) + v + (b"\0" if len(v) % 2 else b"")
        body += b"LIST" + struct.pack("<I", len(info)) + info
    return b"RIFF" + struct.pack("<I", len(body)) + body


def sox(*args):
    subprocess.run(["sox", "-R", "-V1", *args], check=True)


def vorbis_comment_args(tags):
    keys = (("TITLE", "title"), ("ARTIST", "artist"), ("ALBUM", "album"), ("DATE", "date"),
            ("TRACKNUMBER", "track"), ("GENRE", "genre"))
    args = ["--comment", "%s=%s" % (keys[0][0], tags[keys[0][1]])]
    for k, f in keys[1:]:
        args += ["--add-comment", "%s=%s" % (k, tags[f])]
    return args


# Ogg: rewrite the stream serial number and recompute each page's CRC.

def _ogg_crc_table():
    table = []
    for i in range(256):
        r = i << 24
        for _ in range(8):
            r = ((r << 1) ^ 0x04C11DB7) if r & 0x80000000 else (r << 1)
        table.append(r & 0xFFFFFFFF)
    return table


OGG_CRC = _ogg_crc_table()


def ogg_crc(data):
    crc = 0
    for b in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ OGG_CRC[((crc >> 24) ^ b) & 0xFF]
    return crc


def ogg_fix_serial(data, serial=0x53484C46):  # "SHLF"
    out = bytearray()
    pos = 0
    while pos < len(data):
        if data[pos:pos + 4] != b"OggS":
            raise SystemExit("make-sample-media: unexpected bytes in Ogg stream at %d" % pos)
        nseg = data[pos + 26]
        seglen = sum(data[pos + 27:pos + 27 + nseg])
        page = bytearray(data[pos:pos + 27 + nseg + seglen])
        struct.pack_into("<I", page, 14, serial)
        struct.pack_into("<I", page, 22, 0)
        struct.pack_into("<I", page, 22, ogg_crc(page))
        out += page
        pos += len(page)
    return bytes(out)


def ogg_last_granule(data):
    pos, granule = 0, 0
    while pos < len(data):
        nseg = data[pos + 26]
        granule = struct.unpack_from("<q", data, pos + 6)[0]
        pos += 27 + nseg + sum(data[pos + 27:pos + 27 + nseg])
    return granule


# MP3: strip sox's ID3 tags, add an Xing/Info frame with a LAME header (encoder delay and
# padding, so decoders trim to the exact frame count) and our own ID3v2.3 tag.

MP3_BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
MP3_RATES = [44100, 48000, 32000, 0]


def _crc16_arc(data, crc=0):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def _strip_id3(data):
    if data[:3] == b"ID3":
        s = data[6:10]
        size = (s[0] << 21) | (s[1] << 14) | (s[2] << 7) | s[3]
        data = data[10 + size + (10 if data[5] & 0x10 else 0):]
    if len(data) >= 128 and data[-128:-125] == b"TAG":
        data = data[:-128]
    return data


def _mp3_frames(data):
    frames, pos = [], 0
    while pos + 4 <= len(data):
        h = struct.unpack_from(">I", data, pos)[0]
        if (h >> 21) != 0x7FF or ((h >> 19) & 3) != 3 or ((h >> 17) & 3) != 1:
            raise SystemExit("make-sample-media: expected an MPEG-1 layer III frame at %d" % pos)
        br = MP3_BITRATES[(h >> 12) & 0xF] * 1000
        sr = MP3_RATES[(h >> 10) & 3]
        size = 144 * br // sr + ((h >> 9) & 1)
        frames.append((pos, size, h))
        pos += size
    if pos != len(data):
        raise SystemExit("make-sample-media: MP3 stream does not end on a frame boundary")
    return frames


def id3v23(tags):
    def text_frame(fid, value):
        payload = b"\x00" + value.encode("latin-1")  # encoding 0 = ISO-8859-1
        return fid + struct.pack(">I", len(payload)) + b"\x00\x00" + payload
    body = b"".join(text_frame(fid, tags[k]) for fid, k in (
        (b"TIT2", "title"), (b"TPE1", "artist"), (b"TALB", "album"), (b"TYER", "date"),
        (b"TRCK", "track"), (b"TCON", "genre")))
    size = len(body)
    syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
    return b"ID3\x03\x00\x00" + syncsafe + body


def mp3_finish(data, samples, tags):
    """Return (file bytes, number of audio frames) for sox/LAME output `data`."""
    audio = _strip_id3(data)
    frames = _mp3_frames(audio)
    first_size, h = frames[0][1], frames[0][2]
    h &= ~(1 << 9)  # Info frame without the padding bit
    size = 144 * MP3_BITRATES[(h >> 12) & 0xF] * 1000 // MP3_RATES[(h >> 10) & 3]
    mono = ((h >> 6) & 3) == 3
    side = 17 if mono else 32
    nframes = len(frames)
    delay = 576  # LAME's encoder delay
    padding = nframes * 1152 - delay - samples
    if not 0 <= padding < 4096:
        raise SystemExit("make-sample-media: unexpected MP3 padding %d" % padding)
    total_bytes = size + len(audio)
    f = bytearray(size)
    struct.pack_into(">I", f, 0, h)
    off = 4 + side
    toc = bytes(min(255, i * 256 // 100) for i in range(100))
    f[off:off + 120] = b"Info" + struct.pack(">III", 0x0F, nframes, total_bytes) + toc + struct.pack(">I", 0)
    lame = off + 120
    f[lame:lame + 9] = b"LAME3.100"
    f[lame + 9] = 0x01        # tag revision 0, VBR method 1 = CBR
    f[lame + 10] = 170        # lowpass 17000 Hz / 100
    f[lame + 20] = min(255, MP3_BITRATES[(h >> 12) & 0xF])
    f[lame + 21:lame + 24] = bytes([delay >> 4, ((delay & 0xF) << 4) | (padding >> 8), padding & 0xFF])
    f[lame + 24] = (1 << 6) | ((0 if mono else 3) << 2)  # 44.1 kHz source, mono / joint stereo
    struct.pack_into(">I", f, lame + 28, total_bytes)
    struct.pack_into(">H", f, lame + 32, _crc16_arc(audio))
    struct.pack_into(">H", f, lame + 34, _crc16_arc(bytes(f[:lame + 34])))
    return id3v23(tags) + bytes(f) + audio, nframes


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------

def text_facts(raw, encoding, bom):
    codec = {"ascii": "ascii", "utf-8": "utf-8", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be",
             "utf-32le": "utf-32-le", "latin-1": "latin-1", "windows-1251": "cp1251", "koi8-r": "koi8-r",
             "shift_jis": "cp932", "gb18030": "gb18030"}[encoding]
    body = raw
    if bom:
        body = raw[{"utf-8": 3, "utf-16le": 2, "utf-16be": 2, "utf-32le": 4}[encoding]:]
    text = body.decode(codec)
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    kinds = [k for k, n in (("crlf", crlf), ("cr", cr), ("lf", lf)) if n]
    endings = "none" if not kinds else (kinds[0] if len(kinds) == 1 else "mixed")
    breaks = crlf + cr + lf
    last_open = bool(text) and not text.endswith(("\n", "\r"))
    return {"encoding": encoding, "bom": bom, "line_endings": endings,
            "lines": breaks + (1 if last_open else 0), "words": len(text.split()), "chars": len(text)}


# Notes in legacy encodings and BOM-less or UTF-32 Unicode: real sentences in each language.
NOTE_WINDOWS_1251 = """Список дел на выходные
Купить хлеб, молоко и свежие овощи на рынке.
Позвонить бабушке и поздравить её с днём рождения.
Дочитать книгу, которую мне подарили друзья прошлой зимой.
"""

NOTE_KOI8_R = """Письмо другу
Привет, Саша! Как твои дела? У нас всё хорошо.
Летом мы собираемся поехать на море всей семьёй.
Напиши, когда будешь свободен, и мы встретимся.
"""

NOTE_SHIFT_JIS = """旅行の予定
来週の月曜日に京都へ行きます。
お寺を見学して、夜は友達と一緒に食事をする予定です。
天気が良ければ、嵐山まで足を延ばしたいと思います。
"""

NOTE_GB18030 = """会议记录
今天下午三点在会议室讨论了新产品的发布计划。
大家一致认为应该先在北京和上海进行试点。
下次会议定于下周三上午十点召开。
"""

NOTE_UTF16BE = """Σημειώσεις για το ταξίδι
Το πλοίο για τη Σαντορίνη φεύγει στις οκτώ το πρωί.
Πρέπει να κλείσουμε δωμάτιο στο ξενοδοχείο πριν από την Παρασκευή.
"""

NOTE_UTF32LE = """오늘의 할 일
아침에 공원에서 산책을 했습니다.
오후에는 도서관에 가서 책을 빌릴 예정입니다.
저녁에는 가족과 함께 김치찌개를 먹었습니다.
"""


def add_encoded_notes(box):
    """Notes in windows-1251, KOI8-R, Shift_JIS, GB18030, UTF-16BE without BOM and UTF-32LE with
    BOM, as people's old notes are: shelf detects, counts, indexes and shows each."""
    box.text("Documents/Notes/todo-windows1251.txt", NOTE_WINDOWS_1251.encode("cp1251"), "windows-1251")
    box.text("Documents/Notes/letter-koi8r.txt", NOTE_KOI8_R.encode("koi8-r"), "koi8-r")
    box.text("Documents/Notes/trip-shiftjis.txt", NOTE_SHIFT_JIS.encode("cp932"), "shift_jis")
    box.text("Documents/Notes/minutes-gb18030.txt", NOTE_GB18030.encode("gb18030"), "gb18030")
    box.text("Documents/Notes/ferry-utf16be.txt", NOTE_UTF16BE.encode("utf-16-be"), "utf-16be")
    box.text("Documents/Notes/today-utf32le.txt", b"\xff\xfe\x00\x00" + NOTE_UTF32LE.encode("utf-32-le"),
             "utf-32le", bom=True)


NOTE_UTF8 = """Welcome to Shelf
================

This sandbox holds sample media for tests and demos.
Café, naïve, Straße, Ærøskøbing, Ελληνικά, Русский, 日本語, 한국어.
Music note: 🎵 (one scalar, one grapheme).
"""

NOTE_UTF16 = """Shopping list (UTF-16 LE with BOM)
- crème fraîche
- jalapeños
- 豆腐
"""

NOTE_LATIN1 = """Résumé of the café meeting
Participants: José, Zoë, Françoise, Jürgen.
Budget: £120 or ¥2000, ±5%.
Señal ¿qué? ¡Olé!
"""

NOTE_CRLF = "README for Windows users\r\nLines end with CR LF.\r\nPlain ASCII only.\r\n"

NOTE_MD = """# Release notes

## 1.0 — first cut

- Index the sandbox with `shelf index SampleMedia`.
- Crush PNGs: `shelf crush -o out/ Documents/*.png`.
- *Play* a clip: `shelf play Documents/tone-440-mono.wav`.

> Tip: keep notes short.
"""

SCRATCH = "upload in progress; part 3 of 7"  # no trailing newline: line_endings none


# ---------------------------------------------------------------------------
# Plists
# ---------------------------------------------------------------------------

FIXED_DATE = datetime(2024, 5, 1, 12, 0, 0)

INFO_PLIST = {
    "CFBundleDevelopmentRegion": "en",
    "CFBundleDisplayName": "Shelf Demo",
    "CFBundleExecutable": "Demo",
    "CFBundleIcons": {"CFBundlePrimaryIcon": {"CFBundleIconFiles": ["AppIcon60x60"]}},
    "CFBundleIdentifier": "com.example.shelfdemo",
    "CFBundleInfoDictionaryVersion": "6.0",
    "CFBundleName": "Demo",
    "CFBundlePackageType": "APPL",
    "CFBundleShortVersionString": "1.0",
    "CFBundleSupportedPlatforms": ["iPhoneOS"],
    "CFBundleVersion": "1",
    "LSRequiresIPhoneOS": True,
    "MinimumOSVersion": "15.0",
    "UIDeviceFamily": [1],
    "UISupportedInterfaceOrientations": ["UIInterfaceOrientationPortrait"],
}

DOC_SETTINGS = {
    "Playlists": [{"Name": "Tones", "Items": ["tone-440-mono.wav", "chord-stereo.flac"]},
                  {"Name": "Everything", "Items": []}],
    "LastOpened": FIXED_DATE,
    "Volume": 0.75,
    "Shuffle": False,
    "Version": 3,
}

DOC_RECENT = [
    {"Path": "Documents/sweep-stereo.ogg", "Opened": FIXED_DATE, "Count": 4},
    {"Path": "Documents/beeps-stereo.mp3", "Opened": FIXED_DATE, "Count": 1},
    "Documents/Notes/welcome-utf8.txt",
    42,
    b"\x00\x01\x02shelf",
]

PREFS_BINARY = {
    "AppleLanguages": ["en", "fr"],
    "LaunchCount": 17,
    "HasSeenOnboarding": True,
    "LastSync": FIXED_DATE,
    "Token": b"\xde\xad\xbe\xef",
    "PlaybackRate": 1.25,
}

PREFS_XML = {
    "Theme": "dark",
    "FontSize": 14,
    "ShowHiddenFiles": False,
    "Columns": ["name", "kind", "size"],
}

APP_SUPPORT_STATE = {"SchemaVersion": 2, "Folders": ["Documents", "Library/Caches"], "Indexed": 23}


def plist_facts(obj, fmt):
    root = "dictionary" if isinstance(obj, dict) else "array"
    return {"format": fmt, "root": root, "keys": sorted(obj) if root == "dictionary" else []}


# ---------------------------------------------------------------------------
# Other
# ---------------------------------------------------------------------------

def blob(n, seed=0x5EED1234):
    """Deterministic binary blob: xorshift32 bytes after a made-up, non-media magic."""
    x = seed
    out = bytearray(b"SHLFBLOB\x00\x01\x00\x00")
    while len(out) < n:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out.append(x & 0xFF)
    return bytes(out)


# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------

MIME = {"png": "image/png", "wav": "audio/wav", "flac": "audio/flac", "ogg": "audio/ogg", "mp3": "audio/mpeg",
        "txt": "text/plain", "md": "text/markdown", "xml-plist": "application/x-plist",
        "binary-plist": "application/x-bplist", "other": "application/octet-stream"}


def area_of(rel):
    if rel.startswith("Demo.app/"):
        return "bundle"
    if rel.startswith("Documents/"):
        return "documents"
    if rel.startswith("Library/Preferences/"):
        return "preferences"
    if rel.startswith("Library/Caches/"):
        return "caches"
    if rel.startswith("Library/"):
        return "library"
    if rel.startswith("tmp/"):
        return "tmp"
    raise ValueError(rel)


class Sandbox:
    def __init__(self, root):
        self.root = root
        self.entries = []

    def put(self, rel, data, kind, mime, facts=None, note=None, mislabelled=False):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        e = {"path": rel, "kind": kind, "mime": mime, "size": len(data), "area": area_of(rel),
             "sha256": hashlib.sha256(data).hexdigest()}
        if facts is not None:
            e[kind] = facts
        if mislabelled:
            e["mislabelled"] = True
        if note:
            e["note"] = note
        self.entries.append(e)

    def image(self, rel, made, note=None, mislabelled=False):
        data, facts = made
        self.put(rel, data, "image", MIME["png"], facts, note, mislabelled)

    def text(self, rel, raw, encoding, bom=False, mime="text/plain"):
        self.put(rel, raw, "text", mime, text_facts(raw, encoding, bom))

    def plist(self, rel, obj, fmt):
        data = plistlib.dumps(obj, fmt=plistlib.FMT_BINARY if fmt == "binary" else plistlib.FMT_XML,
                              sort_keys=True)
        self.put(rel, data, "plist", MIME["binary-plist" if fmt == "binary" else "xml-plist"],
                 plist_facts(obj, fmt))


AUDIO = [
    # file, format, channels, seconds, voices, title, track, genre
    ("Documents/tone-440-mono.wav", "wav", 1, 1.0, [sine(440)], "A440 Tone", "1", "Test Tone"),
    ("Documents/chord-stereo.flac", "flac", 2, 2.0,
     [chord(261.63, 329.63, 392.0), chord(329.63, 392.0, 523.25)], "C Major Chord", "2", "Ambient"),
    ("Documents/sweep-stereo.ogg", "ogg-vorbis", 2, 1.5,
     [sweep(220, 880, 1.5), sweep(880, 220, 1.5)], "Sweep 220-880 Hz", "3", "Electronic"),
    ("Documents/beeps-stereo.mp3", "mp3", 2, 2.0, [beeps(660, 0.5), beeps(990, 0.5)], "Four Beeps", "4", "Blues"),
]


def build_audio(box, work):
    for rel, fmt, channels, seconds, voices, title, track, genre in AUDIO:
        tags = dict(TAG_COMMON, title=title, track=track, genre=genre)
        pcm, frames = synth(seconds, channels, voices)
        src = os.path.join(work, "src.wav")
        with open(src, "wb") as fh:
            fh.write(wav_bytes(pcm, channels))
        if fmt == "wav":
            data = wav_bytes(pcm, channels, tags)
        else:
            ext = {"flac": "flac", "ogg-vorbis": "ogg", "mp3": "mp3"}[fmt]
            out = os.path.join(work, "out." + ext)
            extra = {"flac": ["-C", "8"], "ogg-vorbis": ["-C", "3"], "mp3": ["-C", "128"]}[fmt]
            comments = vorbis_comment_args(tags) if fmt != "mp3" else ["--comment", ""]
            sox("-D", src, *comments, *extra, out)
            with open(out, "rb") as fh:
                data = fh.read()
            if fmt == "ogg-vorbis":
                data = ogg_fix_serial(data)
                if ogg_last_granule(data) != frames:
                    raise SystemExit("make-sample-media: Ogg granule %d != %d" % (ogg_last_granule(data), frames))
            elif fmt == "mp3":
                data, _ = mp3_finish(data, frames, tags)
        mime = MIME[{"wav": "wav", "flac": "flac", "ogg-vorbis": "ogg", "mp3": "mp3"}[fmt]]
        facts = {"sample_rate": RATE, "channels": channels, "frames": frames, "format": fmt,
                 "title": tags["title"], "artist": tags["artist"], "album": tags["album"],
                 "date": tags["date"], "track": int(tags["track"]), "genre": tags["genre"]}
        box.put(rel, data, "audio", mime, facts)


# ---------------------------------------------------------------------------
# Phone and music-library media: M4A (AAC, ALAC), AMR, MOV, MP3 without Xing, AIFF+ID3, FLAC
# with repeated comments. Made by ffmpeg, lame and hand (AMR); tagged with mutagen.
# ---------------------------------------------------------------------------

def run_tool(*args):
    subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL)


FFMPEG = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1"]


def cover_png(size=16):
    """A square RGB cover picture with noise in it (so that it does not compress away)."""
    return encode_png(size, size, "rgb", 8, lambda x, y: ((x * 7 + y * 13) * 37 % 256, (x * y) % 256,
                                                          (x ^ y) * 3 % 256))


def ffprobe_json(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_format", "-show_streams", path],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def decoded_frames(path):
    """Samples per channel ffmpeg decodes from the first audio stream."""
    r = subprocess.run(FFMPEG + ["-i", path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"],
                       check=True, capture_output=True)
    return len(r.stdout) // 2


def edit_list_frames(path):
    """An MP4 audio track's length after its edit list (ffprobe's duration_ts at the sample rate)."""
    a = [st for st in ffprobe_json(path)["streams"] if st["codec_type"] == "audio"][0]
    num, den = (int(v) for v in a["time_base"].split("/"))
    return int(round(int(a["duration_ts"]) * num * int(a["sample_rate"]) / den))


def music_wav(work, seconds, channels, voices, name):
    pcm, frames = synth(seconds, channels, voices)
    path = os.path.join(work, name)
    with open(path, "wb") as fh:
        fh.write(wav_bytes(pcm, channels))
    return path, frames


def media_m4a_aac(work):
    from mutagen.mp4 import MP4, MP4Cover
    src, frames = music_wav(work, 2.0, 2, [chord(220.0, 277.18, 329.63), chord(277.18, 329.63, 440.0)], "aac.wav")
    out = os.path.join(work, "song.m4a")
    run_tool(*FFMPEG, "-i", src, *BITEXACT, "-c:a", "aac", "-b:a", "128k", out)
    m = MP4(out)
    m["\xa9nam"] = ["Morning Chord"]
    m["\xa9ART"] = ["Shelf Test Signals"]
    m["aART"] = ["Shelf Ensemble"]
    m["\xa9alb"] = ["Shelf Phone Media"]
    m["\xa9day"] = ["2024"]
    m["trkn"] = [(3, 12)]
    m["disk"] = [(1, 2)]
    m["\xa9gen"] = ["Ambient"]
    m["covr"] = [MP4Cover(cover_png(), imageformat=MP4Cover.FORMAT_PNG)]
    # iTunes' gapless data: encoder delay (FFmpeg's AAC encoder: 1024), padding, sample count.
    total = (frames + 1024 + 1023) // 1024 * 1024
    m["----:com.apple.iTunes:iTunSMPB"] = [
        (" 00000000 %08X %08X %016X 00000000 00000000" % (1024, total - 1024 - frames, frames)).encode()]
    m.save()
    with open(out, "rb") as fh:
        data = fh.read()
    facts = {"sample_rate": RATE, "channels": 2, "frames": frames, "format": "mp4", "codec": "aac",
             "title": "Morning Chord", "artist": "Shelf Test Signals", "album": "Shelf Phone Media",
             "album_artist": "Shelf Ensemble", "date": "2024", "track": 3, "track_total": 12, "disc": 1,
             "disc_total": 2, "genre": "Ambient", "artwork": True}
    return data, facts


def media_m4a_alac(work):
    from mutagen.mp4 import MP4
    src, frames = music_wav(work, 1.5, 2, [sine(330.0), sine(495.0)], "alac.wav")
    out = os.path.join(work, "lossless.m4a")
    run_tool(*FFMPEG, "-i", src, *BITEXACT, "-c:a", "alac", out)
    m = MP4(out)
    m["\xa9nam"] = ["Lossless Fifth"]
    m["\xa9ART"] = ["Shelf Test Signals"]
    m["trkn"] = [(4, 0)]
    m.save()
    with open(out, "rb") as fh:
        data = fh.read()
    facts = {"sample_rate": RATE, "channels": 2, "frames": frames, "format": "mp4", "codec": "alac",
             "title": "Lossless Fifth", "artist": "Shelf Test Signals", "track": 4, "artwork": False}
    return data, facts


def media_amr():
    """An AMR-NB voicemail: 100 frames of 20 ms at 12.2 kbit/s (mode 7), with fixed pseudo-random
    speech bits (no encoder is needed to make a valid stream)."""
    out = bytearray(b"#!AMR\n")
    x = 0x1234567
    for _ in range(100):
        out.append(0x3C)  # frame type 7, quality bit set
        for _ in range(31):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            out.append(x & 0xFF)
    facts = {"sample_rate": 8000, "channels": 1, "frames": 100 * 160, "format": "amr", "codec": "amr_nb",
             "artwork": False}
    return bytes(out), facts


def media_mov(work):
    out = os.path.join(work, "plain.mov")
    run_tool(*FFMPEG, "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=1", "-f", "lavfi", "-i",
             "sine=frequency=440:sample_rate=48000:duration=1", *BITEXACT, "-c:v", "libx264", "-preset",
             "ultrafast", "-threads", "1", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", out)
    # A portrait phone video: the display matrix turns it 90 degrees clockwise (FFmpeg 5.1 writes it
    # only when copying); Apple's creation date with its time zone.
    final = os.path.join(work, "clip.mov")
    run_tool(*FFMPEG, "-i", out, "-c", "copy", "-metadata:s:v", "rotate=270", "-movflags", "use_metadata_tags",
             "-metadata", "com.apple.quicktime.creationdate=2024-05-01T14:30:00+0200", "-fflags", "+bitexact",
             final)
    with open(final, "rb") as fh:
        data = fh.read()
    facts = {"duration": 1.0, "width": 320, "height": 240, "codec": "h264", "frame_rate": 30.0, "rotation": 90,
             "audio_codec": "aac", "sample_rate": 48000, "channels": 1, "taken": "2024-05-01T14:30:00+02:00",
             "format": "mov"}
    return data, facts


def media_mp3_no_xing(work):
    from mutagen.id3 import ID3, TIT2, TPE1, TPE2, TALB, TRCK, TPOS, TCON, TDRC, APIC
    src, frames = music_wav(work, 2.0, 2, [beeps(523.25, 0.4), beeps(659.25, 0.4)], "noxing.wav")
    out = os.path.join(work, "noxing.mp3")
    # -t: no Xing/Info frame, as old encoders and many phones wrote: libsndfile 1.2.0 reads these
    # as empty or estimates their length from the file size, tag and cover art included.
    run_tool("lame", "--quiet", "-t", "-b", "128", "--resample", "44.1", src, out)
    tag = ID3()
    tag.add(TIT2(encoding=3, text="No Xing Header"))
    tag.add(TPE1(encoding=3, text=["Shelf Test Signals", "Guest Voice"]))
    tag.add(TPE2(encoding=3, text="Shelf Ensemble"))
    tag.add(TALB(encoding=3, text="Shelf Music Library"))
    tag.add(TDRC(encoding=3, text="2023"))
    tag.add(TRCK(encoding=3, text="7/9"))
    tag.add(TPOS(encoding=3, text="2/2"))
    tag.add(TCON(encoding=3, text="(3)"))
    tag.add(APIC(encoding=3, mime="image/png", type=3, desc="cover", data=cover_png(96)))
    tag.save(out, v2_version=4, padding=lambda info: 4096)
    with open(out, "rb") as fh:
        data = fh.read()
    frames = decoded_frames(out)
    facts = {"sample_rate": RATE, "channels": 2, "frames": frames, "format": "mp3", "codec": "mp3",
             "title": "No Xing Header", "artist": "Shelf Test Signals; Guest Voice", "album": "Shelf Music Library",
             "album_artist": "Shelf Ensemble", "date": "2023", "track": 7, "track_total": 9, "disc": 2,
             "disc_total": 2, "genre": "Dance", "artwork": True}
    return data, facts


def media_aiff_id3(work):
    from mutagen.aiff import AIFF
    from mutagen.id3 import TIT2, TPE1, TALB, TRCK, TCON, TDRC
    src, frames = music_wav(work, 1.0, 1, [sine(392.0)], "aiff.wav")
    out = os.path.join(work, "tagged.aiff")
    run_tool(*FFMPEG, "-i", src, *BITEXACT, "-c:a", "pcm_s16be", out)
    a = AIFF(out)
    a.add_tags()
    a.tags.add(TIT2(encoding=3, text="AIFF With ID3"))
    a.tags.add(TPE1(encoding=3, text="Shelf Test Signals"))
    a.tags.add(TALB(encoding=3, text="Shelf Music Library"))
    a.tags.add(TDRC(encoding=3, text="2022"))
    a.tags.add(TRCK(encoding=3, text="5"))
    a.tags.add(TCON(encoding=3, text="(17)"))
    a.save()
    with open(out, "rb") as fh:
        data = fh.read()
    facts = {"sample_rate": RATE, "channels": 1, "frames": frames, "format": "aiff", "codec": "pcm_s16be",
             "title": "AIFF With ID3", "artist": "Shelf Test Signals", "album": "Shelf Music Library",
             "date": "2022", "track": 5, "genre": "Rock", "artwork": False}
    return data, facts


def media_flac_repeated(work):
    from mutagen.flac import FLAC
    src, frames = music_wav(work, 1.0, 2, [sine(262.0), sine(392.0)], "duet.wav")
    out = os.path.join(work, "duet.flac")
    run_tool(*FFMPEG, "-i", src, *BITEXACT, "-c:a", "flac", out)
    f = FLAC(out)
    f.clear()
    f["TITLE"] = ["Duet"]
    f["ARTIST"] = ["First Voice", "Second Voice"]
    f["ALBUMARTIST"] = ["Shelf Ensemble"]
    f["TRACKNUMBER"] = ["2"]
    f["TRACKTOTAL"] = ["6"]
    f["DISCNUMBER"] = ["1"]
    f["DISCTOTAL"] = ["1"]
    f.save()
    with open(out, "rb") as fh:
        data = fh.read()
    facts = {"sample_rate": RATE, "channels": 2, "frames": frames, "format": "flac", "codec": "flac",
             "title": "Duet", "artist": "First Voice; Second Voice", "album_artist": "Shelf Ensemble",
             "track": 2, "track_total": 6, "disc": 1, "disc_total": 1, "artwork": False}
    return data, facts


PHONE_MEDIA = [
    # path, MIME, maker
    ("Documents/Music/morning-chord.m4a", "audio/mp4", media_m4a_aac),
    ("Documents/Music/lossless-fifth.m4a", "audio/mp4", media_m4a_alac),
    ("Documents/Music/no-xing-cover.mp3", "audio/mpeg", media_mp3_no_xing),
    ("Documents/Music/tagged-id3.aiff", "audio/aiff", media_aiff_id3),
    ("Documents/Music/duet-repeated-artist.flac", "audio/flac", media_flac_repeated),
    ("Library/Voicemail/voicemail-0001.amr", "audio/amr", lambda work: media_amr()),
    ("Documents/Camera/portrait-clip.mov", "video/quicktime", media_mov),
]


def build_phone_media(box, work):
    for rel, mime, make in PHONE_MEDIA:
        data, facts = make(work)
        kind = "video" if mime.startswith("video/") else "audio"
        box.put(rel, data, kind, mime, facts, note="checked against ffprobe and ffmpeg's decoded samples")


def verify_phone_media(root, entries):
    """The independent tools' view of the phone media: ffprobe's codec, rate, channels and size,
    ffmpeg's decoded sample count (the edit list's length for AAC in MP4, which ffmpeg 5.1 does not
    trim at the end), and mutagen's tags."""
    problems = []
    paths = {rel for rel, _, _ in PHONE_MEDIA}
    for e in entries:
        if e["path"] not in paths:
            continue
        path = os.path.join(root, e["path"])
        probe = ffprobe_json(path)
        if e["kind"] == "video":
            v = e["video"]
            vs = [st for st in probe["streams"] if st["codec_type"] == "video"][0]
            got = (vs["codec_name"], vs["width"], vs["height"])
            if got != (v["codec"], v["width"], v["height"]):
                problems.append("%s: ffprobe says %s" % (e["path"], got))
            print("  %-40s ffprobe: %s %dx%d" % (e["path"], *got))
            continue
        a = e["audio"]
        st = [st for st in probe["streams"] if st["codec_type"] == "audio"][0]
        got = (st["codec_name"], int(st["sample_rate"]), st["channels"])
        if got != (a["codec"], a["sample_rate"], a["channels"]):
            problems.append("%s: ffprobe says %s" % (e["path"], got))
        frames = edit_list_frames(path) if a["codec"] == "aac" else decoded_frames(path)
        if frames != a["frames"]:
            problems.append("%s: %d frames decoded, expected %d" % (e["path"], frames, a["frames"]))
        print("  %-40s ffprobe: %s, %d frames" % (e["path"], got[0], frames))
    return problems


# ---------------------------------------------------------------------------
# Photos: a Live Photo (HEIC with EXIF and its MOV), a JPEG with EXIF and a thumbnail, a
# multi-page TIFF, an animated GIF and WebP, an ICO. Made by Pillow, heif-enc, exiftool,
# ImageMagick, img2webp and ffmpeg; EXIF facts checked against exiftool, sizes and frames
# against Pillow (exiftool for the HEIC).
# ---------------------------------------------------------------------------

LIVE_PHOTO_ID = "7D3A1E52-9B4C-4F0E-A6D1-3C2B5E8F9A01"
# Coordinates whose degrees, minutes and seconds sum exactly in binary (37°45' N, 122°30' W).
IPHONE_PHOTO = dict(make="Apple", model="iPhone 15 Pro", orientation=6, software="17.5.1",
                    taken="2024:05:17 10:30:00", offset="-07:00",
                    lens="iPhone 15 Pro back triple camera 6.765mm f/1.78", gps=(37.75, -122.5, 16.25))
IPHONE_FACTS = {"taken": "2024-05-17T10:30:00-07:00", "camera": "Apple iPhone 15 Pro",
                "lens": "iPhone 15 Pro back triple camera 6.765mm f/1.78", "orientation": 6,
                "gps": {"lat": 37.75, "lon": -122.5, "alt": 16.25}, "software": "17.5.1"}
SONY_TAGS = [("Make", "SONY"), ("Model", "ILCE-7M3"), ("Orientation#", "1"), ("Software", "ILCE-7M3 v3.01"),
             ("DateTimeOriginal", "2022:08:14 16:20:05"), ("OffsetTimeOriginal", "+01:00"),
             ("LensModel", "FE 24-70mm F2.8 GM"), ("GPSLatitude", "51.5"), ("GPSLatitudeRef", "N"),
             ("GPSLongitude", "0.125"), ("GPSLongitudeRef", "W"), ("GPSAltitude", "11.5"),
             ("GPSAltitudeRef#", "0")]
SONY_FACTS = {"taken": "2022-08-14T16:20:05+01:00", "camera": "SONY ILCE-7M3", "lens": "FE 24-70mm F2.8 GM",
              "orientation": 1, "gps": {"lat": 51.5, "lon": -0.125, "alt": 11.5}, "software": "ILCE-7M3 v3.01"}


def photo_live_heic(work):
    """The still of a Live Photo: Pillow's JPEG with an iPhone's EXIF (MakerNote content
    identifier included), turned into a HEIC by heif-enc, which keeps the EXIF block."""
    jpeg = os.path.join(work, "live.jpg")
    exif_photos.picture(96, 64, seed=7).save(
        jpeg, exif=exif_photos.pillow_exif(**IPHONE_PHOTO, content_identifier=LIVE_PHOTO_ID), quality=90)
    out = os.path.join(work, "IMG_0001.HEIC")
    run_tool("heif-enc", "-q", "50", jpeg, "-o", out)
    return out, dict({"width": 96, "height": 64, "frames": 1}, **IPHONE_FACTS)


def photo_live_mov(work):
    """The movie of the Live Photo: Apple's content identifier in the QuickTime metadata."""
    out = os.path.join(work, "IMG_0001.MOV")
    run_tool(*FFMPEG, "-f", "lavfi", "-i", "testsrc=size=96x64:rate=15:duration=1", *BITEXACT, "-c:v", "libx264",
             "-preset", "ultrafast", "-threads", "1", "-pix_fmt", "yuv420p", "-movflags", "use_metadata_tags",
             "-metadata", "com.apple.quicktime.content.identifier=" + LIVE_PHOTO_ID, out)
    return out, {"duration": 1.0, "width": 96, "height": 64, "codec": "h264", "frame_rate": 15.0, "rotation": 0,
                 "format": "mov"}


def photo_jpeg_thumbnail(work):
    """A camera JPEG: ImageMagick's picture, EXIF and a 32x24 EXIF thumbnail written by exiftool."""
    out = os.path.join(work, "DSC01234.JPG")
    thumb = os.path.join(work, "thumb.jpg")
    run_tool("convert", "-seed", "5", "-size", "128x96", "plasma:fractal", "-strip", "-quality", "85", out)
    run_tool("convert", out, "-resize", "32x24", "-strip", thumb)
    exif_photos.exiftool_write(out, SONY_TAGS)
    run_tool("exiftool", "-q", "-overwrite_original", "-ThumbnailImage<=" + thumb, out)
    return out, dict({"width": 128, "height": 96, "frames": 1}, **SONY_FACTS)


def photo_multipage_tiff(work):
    out = os.path.join(work, "scan-pages.tif")
    run_tool("convert", "-size", "80x60", "xc:white", "xc:gray", "xc:black", "-depth", "8", "-compress", "lzw", "+set", "date:create",
             "+set", "date:modify", out)
    return out, {"width": 80, "height": 60, "frames": 3}


def photo_animated_gif(work):
    out = os.path.join(work, "spinner.gif")
    run_tool("convert", "-delay", "10", "-size", "40x40", "xc:red", "xc:green", "xc:blue", "xc:yellow",
             "-loop", "0", out)
    return out, {"width": 40, "height": 40, "frames": 4}


def photo_animated_webp(work):
    out = os.path.join(work, "spinner.webp")
    frames = []
    for index, colour in enumerate(("red", "green", "blue")):
        frame = os.path.join(work, "frame%d.png" % index)
        run_tool("convert", "-size", "40x40", "xc:" + colour, "-define", "png:exclude-chunks=date,time", frame)
        frames.append(frame)
    run_tool("img2webp", "-loop", "0", "-lossless", *frames, "-o", out)
    return out, {"width": 40, "height": 40, "frames": 3}


def photo_icon(work):
    out = os.path.join(work, "favicon.ico")
    run_tool("convert", "-size", "48x48", "gradient:navy-gold", "-define", "icon:auto-resize=48,32,16", out)
    return out, {"width": 48, "height": 48, "frames": 3}


PHOTOS = [
    # path, kind, MIME, maker
    ("Documents/Camera/IMG_0001.HEIC", "image", "image/heic", photo_live_heic),
    ("Documents/Camera/IMG_0001.MOV", "video", "video/quicktime", photo_live_mov),
    ("Documents/Camera/DSC01234.JPG", "image", "image/jpeg", photo_jpeg_thumbnail),
    ("Documents/Scans/scan-pages.tif", "image", "image/tiff", photo_multipage_tiff),
    ("Documents/Pictures/spinner.gif", "image", "image/gif", photo_animated_gif),
    ("Documents/Pictures/spinner.webp", "image", "image/webp", photo_animated_webp),
    ("Demo.app/favicon.ico", "image", "image/vnd.microsoft.icon", photo_icon),
]


def build_photos(box, work):
    for rel, kind, mime, make in PHOTOS:
        path, facts = make(work)
        with open(path, "rb") as fh:
            data = fh.read()
        box.put(rel, data, kind, mime, facts, note="checked against exiftool and Pillow")


def verify_photos(root, entries):
    """exiftool's EXIF tags (-n) and Pillow's sizes and frame counts (exiftool's for the HEIC);
    for the movie, its content identifier as ffprobe reads it."""
    from PIL import Image
    problems = []
    paths = {rel: kind for rel, kind, _, _ in PHOTOS}
    for e in entries:
        if e["path"] not in paths:
            continue
        path = os.path.join(root, e["path"])
        if e["kind"] == "video":
            tags = ffprobe_json(path)["format"].get("tags", {})
            if tags.get("com.apple.quicktime.content.identifier") != LIVE_PHOTO_ID:
                problems.append("%s: content identifier %r" % (e["path"], tags))
            continue
        facts = e["image"]
        tool = json.loads(subprocess.run(
            ["exiftool", "-json", "-n", "-DateTimeOriginal", "-OffsetTimeOriginal", "-Make", "-Model", "-LensModel",
             "-Orientation", "-Software", "-Composite:GPSLatitude", "-Composite:GPSLongitude",
             "-Composite:GPSAltitude", "-ImageWidth", "-ImageHeight", "-ThumbnailLength", path],
            check=True, capture_output=True, text=True).stdout)[0]
        if "taken" in facts:
            date = tool["DateTimeOriginal"]
            want = {"taken": date[:4] + "-" + date[5:7] + "-" + date[8:10] + "T" + date[11:] +
                    tool.get("OffsetTimeOriginal", ""),
                    "camera": tool["Make"] + " " + tool["Model"], "lens": tool["LensModel"],
                    "orientation": tool["Orientation"], "software": tool["Software"],
                    "gps": {"lat": tool["GPSLatitude"], "lon": tool["GPSLongitude"], "alt": tool["GPSAltitude"]}}
            for key, value in want.items():
                if facts[key] != value:
                    problems.append("%s: %s is %r, exiftool says %r" % (e["path"], key, facts[key], value))
        if e["path"].endswith(".JPG") and not tool.get("ThumbnailLength"):
            problems.append("%s: no EXIF thumbnail" % e["path"])
        if e["mime"] == "image/heic":
            size = (tool["ImageWidth"], tool["ImageHeight"], 1)
        else:
            with Image.open(path) as im:
                count = len(im.ico.entry) if e["mime"] == "image/vnd.microsoft.icon" else getattr(im, "n_frames", 1)
                size = (im.width, im.height, count)
        if size != (facts["width"], facts["height"], facts["frames"]):
            problems.append("%s: width, height, frames %s" % (e["path"], size))
        print("  %-40s %dx%d, %d frame(s)%s" % (e["path"], *size, ", EXIF as exiftool" if "taken" in facts else ""))
    return problems


def build(root, work, shelf=None):
    box = Sandbox(root)
    # Bundle
    box.plist("Demo.app/Info.plist", INFO_PLIST, "binary")
    box.image("Demo.app/AppIcon60x60@2x.png", img_icon())
    # Documents: audio
    build_audio(box, work)
    build_phone_media(box, work)
    build_photos(box, work)
    # Documents: images
    box.image("Documents/gradient-rgba.png", img_rgba_gradient())
    box.image("Documents/checker-gray.png", img_gray_checker())
    box.image("Documents/palette-trns.png", img_palette_trns(), note="4-bit palette, tRNS shorter than PLTE")
    box.image("Documents/rgb16.png", img_rgb16())
    box.image("Documents/interlaced-rgb.png", img_interlaced())
    box.image("Documents/gray-alpha.png", img_gray_alpha())
    box.image("Documents/holiday.jpg", img_mislabelled(), note="mislabelled: PNG content with a .jpg name",
              mislabelled=True)
    # ------------------------------------------------------------------------------------
    # The iPhone-optimized (CgBI) file is made by `shelf crush --iphone` (run with --shelf PATH).
    # ------------------------------------------------------------------------------------
    if shelf:
        add_cgbi(box, shelf, work)
    # Documents: notes
    box.text("Documents/Notes/welcome-utf8.txt", NOTE_UTF8.encode("utf-8"), "utf-8")
    box.text("Documents/Notes/shopping-utf16le.txt", b"\xff\xfe" + NOTE_UTF16.encode("utf-16-le"), "utf-16le",
             bom=True)
    box.text("Documents/Notes/cafe-latin1.txt", NOTE_LATIN1.encode("latin-1"), "latin-1")
    box.text("Documents/Notes/readme-crlf.txt", NOTE_CRLF.encode("ascii"), "ascii")
    box.text("Documents/Notes/release-notes.md", NOTE_MD.encode("utf-8"), "utf-8", mime="text/markdown")
    add_encoded_notes(box)
    # Documents: plists
    box.plist("Documents/settings.plist", DOC_SETTINGS, "xml")
    box.plist("Documents/recent-items.plist", DOC_RECENT, "binary")
    # Library
    box.plist("Library/Preferences/com.example.shelfdemo.plist", PREFS_BINARY, "binary")
    box.plist("Library/Preferences/com.example.shelfdemo.display.plist", PREFS_XML, "xml")
    box.image("Library/Caches/thumbnail-0001.png", img_thumbnail())
    box.plist("Library/Application Support/state.plist", APP_SUPPORT_STATE, "xml")
    box.put("Library/Application Support/index.bin", blob(2048), "other", MIME["other"], {},
            note="binary blob with no known magic")
    # tmp
    box.text("tmp/upload.part.txt", SCRATCH.encode("ascii"), "ascii")
    box.entries.sort(key=lambda e: e["path"].encode("utf-8"))
    return box.entries


def add_cgbi(box, shelf, work):
    """The iPhone-optimized sample: gradient-rgba.png through `shelf crush --iphone`."""
    src = os.path.join(box.root, "Documents/gradient-rgba.png")
    outdir = os.path.join(work, "cgbi")
    os.makedirs(outdir, exist_ok=True)
    subprocess.run([shelf, "crush", "--iphone", "-o", outdir, src], check=True)
    with open(os.path.join(outdir, "gradient-rgba.png"), "rb") as fh:
        data = fh.read()
    if data[12:16] != b"CgBI":
        raise SystemExit("make-sample-media: shelf crush --iphone did not write a CgBI file")
    facts = image_facts(64, 48, "rgba", 8, cgbi=True)
    box.put("Documents/gradient-iphone.png", data, "image", MIME["png"], facts,
            note="iPhone-optimized (CgBI): BGRA, premultiplied, raw deflate")


# ---------------------------------------------------------------------------
# Verify
# ---------------------------------------------------------------------------

def verify(root, entries):
    problems = []
    sf = None
    name = ctypes.util.find_library("sndfile")
    if name:
        sf = ctypes.CDLL(name)

        class SFInfo(ctypes.Structure):
            _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                        ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]
        sf.sf_open.restype = ctypes.c_void_p
        sf.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SFInfo)]
        sf.sf_get_string.restype = ctypes.c_char_p
        sf.sf_get_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
        sf.sf_close.argtypes = [ctypes.c_void_p]
    for e in entries:
        path = os.path.join(root, e["path"])
        if e["kind"] == "audio" and e["audio"]["format"] in ("wav", "flac", "ogg-vorbis", "mp3") \
                and e["path"] not in {rel for rel, _, _ in PHONE_MEDIA}:
            a = e["audio"]
            soxi = {}
            for flag in ("r", "c", "s"):
                r = subprocess.run(["soxi", "-" + flag, path], capture_output=True, text=True)
                soxi[flag] = r.stdout.strip() if r.returncode == 0 else None
            want = {"r": str(a["sample_rate"]), "c": str(a["channels"]), "s": str(a["frames"])}
            for flag in ("r", "c") + (("s",) if a["format"] != "mp3" else ()):
                if soxi[flag] != want[flag]:
                    problems.append("%s: soxi -%s says %s, expected %s" % (e["path"], flag, soxi[flag], want[flag]))
            e_soxi = soxi["s"]
            if sf:
                info = SFInfo()
                h = sf.sf_open(path.encode(), 0x10, ctypes.byref(info))
                if not h:
                    problems.append("%s: libsndfile cannot open it" % e["path"])
                    continue
                got = (info.frames, info.samplerate, info.channels)
                if got != (a["frames"], a["sample_rate"], a["channels"]):
                    problems.append("%s: libsndfile says frames/rate/channels %s" % (e["path"], got))
                for key, code in (("title", 1), ("artist", 4), ("album", 7), ("date", 6), ("track", 9),
                                  ("genre", 0x10)):
                    v = sf.sf_get_string(h, code)
                    v = v.decode("utf-8", "replace") if v else None
                    if v != (str(a[key]) if key == "track" else a[key]):
                        problems.append("%s: libsndfile %s = %r, expected %r" % (e["path"], key, v, a[key]))
                sf.sf_close(h)
            print("  %-40s soxi -s: %s" % (e["path"], e_soxi))
        elif e["kind"] == "plist":
            with open(path, "rb") as fh:
                obj = plistlib.load(fh)
            if plist_facts(obj, e["plist"]["format"]) != e["plist"]:
                problems.append("%s: plist facts differ" % e["path"])
        elif e["kind"] == "image" and e["mime"] == MIME["png"]:
            with open(path, "rb") as fh:
                d = fh.read()
            off = 8 + (12 + 4 if d[12:16] == b"CgBI" else 0)
            w, h, depth, ct, _, _, il = struct.unpack(">IIBBBBB", d[off + 8:off + 21])
            i = e["image"]
            if (w, h, depth, ct, il) != (i["width"], i["height"], i["bit_depth"], COLOR_TYPES[i["color_type"]],
                                         1 if i["interlaced"] else 0):
                problems.append("%s: IHDR differs from facts" % e["path"])
    if not sf:
        print("  note: libsndfile not found; audio checked with soxi only")
    return problems + verify_phone_media(root, entries) + verify_photos(root, entries)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "SampleMedia"))
    ap.add_argument("--manifest", default=os.path.join(ROOT, "Tests", "Fixtures", "sample-media.json"))
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--shelf", help="path to a built shelf binary: also make the CgBI file")
    args = ap.parse_args()
    if shutil.which("sox") is None:
        raise SystemExit("make-sample-media: sox is missing: apt-get install sox libsox-fmt-all")
    for tool in ("ffmpeg", "ffprobe", "lame"):
        if shutil.which(tool) is None:
            raise SystemExit("make-sample-media: %s is missing: apt-get install ffmpeg lame" % tool)
    try:
        import mutagen  # noqa: F401  (tags of the phone and music-library media)
    except ImportError:
        raise SystemExit("make-sample-media: mutagen is missing: pip install mutagen")
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    with tempfile.TemporaryDirectory(prefix="sample-media-") as work:
        entries = build(args.out, work, args.shelf)
    manifest = {
        "root": "SampleMedia",
        "generator": "scripts/make-sample-media.py",
        "definitions": {
            "path": "relative to SampleMedia/, '/' separated, sorted by bytes",
            "size": "bytes", "sha256": "of the whole file",
            "area": "bundle = Demo.app/**, documents = Documents/**, preferences = Library/Preferences/**, "
                    "caches = Library/Caches/**, library = other Library/**, tmp = tmp/**",
            "mislabelled": "present and true only where the extension disagrees with the content",
            "image.alpha": "true for an alpha channel (gray-alpha, rgba) or a tRNS chunk",
            "audio.frames": "sample frames as decoding yields them: libsndfile's count for the WAV/FLAC/Ogg/MP3 "
                            "signals (MP3: gapless, from the LAME header); ffmpeg's decoded count for the phone "
                            "media, and for AAC in MP4 the edit list's length (iTunSMPB agrees)",
            "audio.format": "wav | flac | ogg-vorbis | mp3 | mp4 | aiff | amr",
            "audio.track": "the track number (3 of a tag 3/12); track_total, disc and disc_total are numbers too",
            "audio.artist": "several values of one tag joined with '; '",
            "video.rotation": "degrees clockwise for display, as exiftool's Rotation",
            "image.frames": "pages of a TIFF, frames of a GIF or WebP, entries of an ICO (as Pillow counts them)",
            "image.taken": "EXIF DateTimeOriginal as ISO-8601, OffsetTimeOriginal appended when present",
            "image.camera": "EXIF Make and Model, the make left out when the model starts with it",
            "image.gps": "decimal degrees and metres, signed by their Ref tags (exiftool's composite tags)",
            "text.chars": "Unicode scalar values after the BOM, line terminators included "
                          "(CRLF counts 2); no file here has combining sequences, so graphemes == scalars",
            "text.lines": "line terminators, plus 1 when the text ends without one",
            "text.words": "runs of non-whitespace (Python str.split())",
            "plist.keys": "top-level keys of a dictionary root, sorted (the files store them sorted); [] for arrays",
        },
        "files": entries,
    }
    os.makedirs(os.path.dirname(args.manifest), exist_ok=True)
    with open(args.manifest, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(manifest, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    total = sum(e["size"] for e in entries)
    print("make-sample-media: %d files, %d bytes in %s" % (len(entries), total, os.path.relpath(args.out)))
    if not args.no_verify:
        problems = verify(args.out, entries)
        for p in problems:
            print("  PROBLEM: " + p, file=sys.stderr)
        if problems:
            sys.exit(1)
        print("make-sample-media: verified")


if __name__ == "__main__":
    main()
