#!/usr/bin/env python3
"""Tag accuracy: `shelf info --json` against mutagen on ID3v2.2/2.3/2.4, M4A and Vorbis comments.

    python3 scripts/check-tags.py [--shelf .build/release/shelf] [--work DIR] [--verbose]

The corpus (made in a temporary folder, or DIR):
- the MP3, WAV and AIFF files with ID3 tags, the raw ID3 tags (put in front of an MP3) and the
  M4A/M4B files that mutagen's sdist ships as its test data (/tmp/pypi/mutagen-*.tar.gz, or
  `pip download --no-deps --no-binary :all: mutagen`);
- MP3s tagged by mutagen (ID3v2.3 with `/` or NUL between values, ID3v2.4), by eyeD3, by
  id3v2 (id3lib), by ffmpeg and by lame, when installed;
- MP3s whose mutagen-written tags are rewritten as odd writers write them: unsynchronised (the
  whole tag in 2.2/2.3; in 2.4 per frame, with a data length indicator, or by the header flag
  alone), an extended header, zero-size and empty frames among the others, iTunes' 2.4 tags
  with 2.3 (plain) frame sizes, UTF-16 without a byte order mark or big-endian with one,
  UTF-16BE and UTF-8, `TXXX`/`WXXX` frames with empty descriptions, several values in one
  frame, ID3v2.2 (three-letter frames, which mutagen does not write);
- FLAC, Ogg Vorbis and Opus files that ffmpeg encoded and mutagen tagged (Vorbis comments,
  several values as repeated fields), and the FLAC and Ogg files of mutagen's test data;
- M4A files that ffmpeg encoded (AAC, ALAC) and mutagen tagged, some with an `mvhd` duration
  that disagrees with the audio track (ten times longer, ten times shorter, zero).

The reference is mutagen (and for generated files the values written: a field counts only
where both agree); durations of M4A files are ffprobe's audio stream duration (after the edit
list), and the length encoded where known. Per class and field, the share of files on which
shelf says what the references say is printed; the target is 99.5 % per class, at least 30 files
per class. Exits 1 when a class misses it.

Needs mutagen (pip), ffmpeg and ffprobe; eyeD3, id3v2 and lame add their files when installed
(scripts/setup.sh installs them).
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
import tarfile
import tempfile

import mutagen
import mutagen.id3 as id3
from mutagen.mp4 import MP4

FIELDS = ["title", "artist", "album", "album_artist", "track", "track_total", "disc", "disc_total", "date",
          "genre", "comment"]
TARGET = 99.5
MIN_FILES = 30
WORDS = ["Morning", "Été", "Straße", "日本語の歌", "Ünïcödé", "Blue ÿ Note", "Café del Mar", "Øresund",
         "Привет", "Ἀθῆναι", "naïve", "A/B", "Live (1999)", "🎵 Song", "ÿÿÿ", "Çà et là"]
GENRES = ["Rock", "Jazz", "(17)", "(8)Jazz", "(31)(52)Trance", "Electronic", "17", "(RX)", "((Odd))", "Synthpop",
          "(150)", "Dubstep"]
ITUNNORM = " 00000A2B 00000B8C 00006C4F 00007E2F 00024CA8 00024CA8 00007FFF 00007FFF 00024CA8 00024CA8"


# ---------------------------------------------------------------- ID3 frames, written as files do


def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def unsync(data):
    return id3._util.unsynch.encode(bytes(data))


def encode_text(text, style):
    """One string as a text frame holds it: the encoding byte is chosen with the style."""
    if style == "latin1":
        return text.encode("latin-1")
    if style == "utf16":
        return b"\xff\xfe" + text.encode("utf-16-le")
    if style == "utf16-bom-be":
        return b"\xfe\xff" + text.encode("utf-16-be")
    if style == "utf16-no-bom":
        return text.encode("utf-16-le")
    if style == "utf16be":
        return text.encode("utf-16-be")
    return text.encode("utf-8")


ENCODING_BYTE = {"latin1": 0, "utf16": 1, "utf16-bom-be": 1, "utf16-no-bom": 1, "utf16be": 2, "utf8": 3}


def terminator(style):
    return b"\x00" if ENCODING_BYTE[style] in (0, 3) else b"\x00\x00"


def text_frame(values, style):
    return bytes([ENCODING_BYTE[style]]) + terminator(style).join(encode_text(v, style) for v in values)


def described_frame(description, values, style, language=None):
    """COMM (with a language), TXXX: a description, then the value(s)."""
    head = bytes([ENCODING_BYTE[style]]) + (language or b"")
    return head + encode_text(description, style) + terminator(style) + terminator(style).join(
        encode_text(v, style) for v in values)


def wxxx_frame(description, url, style):
    return bytes([ENCODING_BYTE[style]]) + encode_text(description, style) + terminator(style) + url.encode()


V22 = {"TIT2": "TT2", "TPE1": "TP1", "TPE2": "TP2", "TALB": "TAL", "TYER": "TYE", "TDAT": "TDA", "TRCK": "TRK",
       "TPOS": "TPA", "TCON": "TCO", "COMM": "COM", "TXXX": "TXX", "WXXX": "WXX", "APIC": "PIC", "TCOM": "TCM",
       "TIT1": "TT1", "PRIV": None}


def assemble(version, frames, unsync_tag=False, unsync_frames=False, data_length=False, extended=False,
             plain_sizes=False, padding=64):
    """An ID3v2 tag from (id, content) frames, with the given oddities."""
    body = b""
    if extended:
        body += b"\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00" if version == 3 else syncsafe(6) + b"\x01\x00"
    for fid, content in frames:
        if version == 2:
            name = V22.get(fid)
            if name is None:
                continue
            body += name.encode() + struct.pack(">I", len(content))[1:] + content
            continue
        flags = 0
        if version == 4:
            if data_length:
                flags |= 0x01
                content = syncsafe(len(content)) + content
            if unsync_frames:
                flags |= 0x02
                content = unsync(content)
            elif unsync_tag:
                content = unsync(content)
        size = struct.pack(">I", len(content)) if version == 3 or plain_sizes else syncsafe(len(content))
        body += fid.encode() + size + struct.pack(">H", flags) + content
    if version < 4 and unsync_tag:
        body = unsync(body)
    body += b"\x00" * padding
    flags = (0x80 if unsync_tag else 0) | (0x40 if extended else 0)
    return b"ID3" + bytes([version, 0, flags]) + syncsafe(len(body)) + body


def random_values(rng):
    """What one file's tag says (the values written), some fields missing, some with several values."""
    def some(k=1):
        return [rng.choice(WORDS) + ("" if rng.random() < 0.5 else " %d" % rng.randint(1, 99)) for _ in range(k)]
    v = {}
    if rng.random() < 0.95:
        v["title"] = some(rng.choice([1, 1, 1, 2]))
    if rng.random() < 0.9:
        v["artist"] = some(rng.choice([1, 1, 2, 3]))
    if rng.random() < 0.8:
        v["album"] = some()
    if rng.random() < 0.6:
        v["album_artist"] = some()
    if rng.random() < 0.8:
        n = rng.randint(1, 30)
        v["track"] = str(n) if rng.random() < 0.4 else "%d/%d" % (n, rng.randint(n, 40))
    if rng.random() < 0.5:
        n = rng.randint(1, 4)
        v["disc"] = str(n) if rng.random() < 0.4 else "%d/%d" % (n, rng.randint(n, 5))
    if rng.random() < 0.8:
        v["date"] = rng.choice(["%d" % rng.randint(1950, 2025),
                                "%d-%02d-%02d" % (rng.randint(1950, 2025), rng.randint(1, 12), rng.randint(1, 28))])
    if rng.random() < 0.7:
        v["genre"] = rng.sample(GENRES, rng.choice([1, 1, 2]))
    if rng.random() < 0.7:
        v["comment"] = some()
    return v


def expected_from_values(v):
    """The fields the values written mean (the known input)."""
    def joined(key):
        return "; ".join(x.strip() for x in v[key]) if key in v else None
    out = {k: joined(k) for k in ("title", "artist", "album", "album_artist", "comment")}
    out["track"], out["track_total"] = split_position(v.get("track"))
    out["disc"], out["disc_total"] = split_position(v.get("disc"))
    out["date"] = v.get("date")
    out["genre"] = "; ".join(g for value in v["genre"] for g in id3.TCON(text=[value]).genres) if "genre" in v else None
    return out


def split_position(text):
    if not text:
        return None, None
    parts = text.split("/", 1)

    def number(p):
        digits = ""
        for c in p.lstrip(" "):
            if not c.isdigit():
                break
            digits += c
        return int(digits) if digits and int(digits) > 0 else None
    return number(parts[0]), (number(parts[1]) if len(parts) > 1 else None)


def frames_for(v, version, rng, styles, oddities):
    """The frames of one tag: text frames in the styles drawn, plus the extras the oddities ask for."""
    multi_ok = version == 4 or "nul-lists" in oddities

    def style():
        return rng.choice(styles)

    def values(key):
        vals = v[key]
        if len(vals) > 1 and not multi_ok:
            return ["/".join(vals)] if key != "genre" else vals[:1]
        return vals

    frames = []
    if "empty-frames" in oddities:
        frames.append(("TIT1", b""))
        frames.append(("TCOM", b"\x00"))
    for key, fid in (("title", "TIT2"), ("artist", "TPE1"), ("album", "TALB"), ("album_artist", "TPE2"),
                     ("genre", "TCON")):
        if key in v:
            vals = values(key)
            v[key] = vals  # what the tag now says, for the known values
            frames.append((fid, text_frame(vals, latin_safe(style(), vals))))
    for key, fid in (("track", "TRCK"), ("disc", "TPOS")):
        if key in v:
            frames.append((fid, text_frame([v[key]], style())))
    if "date" in v:
        if version == 4:
            frames.append(("TDRC", text_frame([v["date"]], style())))
        else:
            year = v["date"][:4]
            frames.append(("TYER", text_frame([year], style())))
            if len(v["date"]) == 10:
                frames.append(("TDAT", text_frame([v["date"][8:10] + v["date"][5:7]], style())))
    if "itunes-comments" in oddities or "big-frame" in oddities:
        frames.append(("COMM", described_frame("iTunNORM", [ITUNNORM], "latin1", b"eng")))
    if "comment" in v:
        s = latin_safe(style(), v["comment"])
        frames.append(("COMM", described_frame("", v["comment"], s, b"eng")))
    if "empty-descriptions" in oddities:
        frames.append(("TXXX", described_frame("", ["free text"], style())))
        frames.append(("WXXX", wxxx_frame("", "https://example.org/x", style())))
    if "big-frame" in oddities:
        frames.append(("PRIV", b"shelf.check\x00" + bytes(rng.randrange(256) for _ in range(300))))
    if "empty-frames" in oddities:
        frames.append(("TIT3", b""))
    rng.shuffle(frames)
    return frames


def latin_safe(style, values):
    if style == "latin1":
        try:
            for x in values:
                x.encode("latin-1")
        except UnicodeEncodeError:
            return "utf16"
    return style


# ---------------------------------------------------------------- the corpus


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True, **kw)


def make_audio(folder):
    mp3 = os.path.join(folder, "base.mp3")
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2",
         "-c:a", "libmp3lame", "-b:a", "64k", "-id3v2_version", "0", "-write_xing", "0", mp3])
    return open(mp3, "rb").read()


def mutagen_sdist(folder):
    tarballs = sorted(glob.glob("/tmp/pypi/mutagen-*.tar.gz"))
    if not tarballs:
        run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "mutagen", "-d", folder])
        tarballs = sorted(glob.glob(os.path.join(folder, "mutagen-*.tar.gz")))
    with tarfile.open(tarballs[-1]) as tar:
        members = [m for m in tar.getmembers() if "/tests/data/" in m.name and m.isfile()]
        tar.extractall(folder, members=members, filter="data")
    return glob.glob(os.path.join(folder, "mutagen-*", "tests", "data"))[0]


def make_corpus(folder):
    """Returns [(path, class, known values or None)]."""
    rng = random.Random(20261206)
    os.makedirs(folder, exist_ok=True)
    audio = make_audio(folder)
    files = []

    def write(name, tag, cls, known):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(tag + audio)
        files.append((path, cls, known))

    data = mutagen_sdist(os.path.join(folder, "sdist"))
    for path in sorted(glob.glob(os.path.join(data, "*"))):
        name = os.path.basename(path)
        if name.endswith(".id3"):
            write("sdist-" + name + ".mp3", open(path, "rb").read(), None, None)
        elif name.endswith((".mp3", ".wav", ".aif", ".m4a", ".m4b", ".flac", ".ogg", ".oggflac", ".opus")):
            files.append((path, None, None))

    all_styles = ["latin1", "utf16", "utf16-bom-be", "utf16-no-bom", "utf16be", "utf8"]
    oddity_sets = {
        2: [[], ["unsync"], ["empty-frames"], ["empty-descriptions"], ["unsync", "empty-frames", "big-frame"],
            ["itunes-comments"]],
        3: [[], ["unsync"], ["extended"], ["empty-frames"], ["empty-descriptions"], ["nul-lists"],
            ["unsync", "extended", "empty-frames", "big-frame"], ["itunes-comments", "nul-lists"]],
        4: [[], ["unsync-frames"], ["unsync-frames", "data-length"], ["unsync-tag"], ["extended"], ["empty-frames"],
            ["plain-sizes", "big-frame"], ["plain-sizes", "big-frame", "itunes-comments", "empty-frames"],
            ["empty-descriptions"], ["unsync-frames", "extended", "empty-frames", "empty-descriptions"]],
    }
    for version, count in ((2, 40), (3, 60), (4, 60)):
        for i in range(count):
            oddities = oddity_sets[version][i % len(oddity_sets[version])]
            styles = [rng.choice(all_styles)] if rng.random() < 0.6 else all_styles
            if version == 2:
                styles = [s for s in styles if s != "utf8" and s != "utf16be"] or ["utf16"]
            v = random_values(rng)
            frames = frames_for(v, version, rng, styles, oddities)
            tag = assemble(version, frames, unsync_tag="unsync" in oddities or "unsync-tag" in oddities,
                           unsync_frames="unsync-frames" in oddities, data_length="data-length" in oddities,
                           extended="extended" in oddities, plain_sizes="plain-sizes" in oddities)
            write("v2%d-%03d-%s.mp3" % (version, i, "-".join(oddities) or "plain"), tag, "ID3v2.%d" % version,
                  expected_from_values(v))

    # Written by mutagen itself.
    for i in range(40):
        v = random_values(rng)
        version = 3 if i % 2 else 4
        tags = id3.ID3()
        enc = rng.choice([1, 3]) if version == 4 else 1
        for key, frame in (("title", id3.TIT2), ("artist", id3.TPE1), ("album", id3.TALB),
                           ("album_artist", id3.TPE2), ("genre", id3.TCON)):
            if key in v:
                tags.add(frame(encoding=enc, text=v[key]))
        if "track" in v:
            tags.add(id3.TRCK(encoding=0, text=v["track"]))
        if "disc" in v:
            tags.add(id3.TPOS(encoding=0, text=v["disc"]))
        if "date" in v:
            tags.add(id3.TDRC(encoding=0, text=v["date"]))
        if "comment" in v:
            tags.add(id3.COMM(encoding=enc, lang="eng", desc="", text=v["comment"]))
        tags.add(id3.TXXX(encoding=enc, desc="", text=["empty description"]))
        path = os.path.join(folder, "mutagen-v2%d-%02d.mp3" % (version, i))
        with open(path, "wb") as f:
            f.write(audio)
        separator = "/" if i % 4 == 1 else None
        tags.save(path, v2_version=version, v23_sep=separator)
        known = expected_from_values(v)
        if version == 3 and separator == "/":
            # mutagen joins a v2.3 frame's values with "/" (COMM keeps its NUL-separated list).
            for key in ("title", "artist", "album", "album_artist"):
                if key in v:
                    known[key] = "/".join(v[key])
            if "genre" in v:
                known["genre"] = "; ".join(id3.TCON(text=["/".join(v["genre"])]).genres)
        files.append((path, "ID3v2.%d" % version, known))

    files += other_writers(folder, rng)
    files += m4a_files(folder, rng)
    files += vorbis_files(folder, rng)
    return files


def vorbis_files(folder, rng):
    """FLAC, Ogg Vorbis and Opus files that ffmpeg encoded and mutagen tagged with Vorbis comments
    (several values as repeated fields, totals in fields of their own or as `3/12`)."""
    out = []
    for i in range(36):
        ext, codec = [("flac", "flac"), ("ogg", "libvorbis"), ("opus", "libopus")][i % 3]
        path = os.path.join(folder, "vorbis-%02d.%s" % (i, ext))
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=600:duration=1",
             "-c:a", codec, path])
        v = random_values(rng)
        if "genre" in v:
            v["genre"] = rng.sample(["Rock", "Jazz", "Ambient Dub", "Électro"], rng.choice([1, 2]))
        f = mutagen.File(path)
        for key, name in (("title", "TITLE"), ("artist", "ARTIST"), ("album", "ALBUM"),
                          ("album_artist", "ALBUMARTIST"), ("genre", "GENRE"), ("comment", "COMMENT")):
            if key in v:
                f[name] = v[key]
        if "date" in v:
            f["DATE"] = v["date"]
        for key, number, total in (("track", "TRACKNUMBER", "TRACKTOTAL"), ("disc", "DISCNUMBER", "DISCTOTAL")):
            if key in v:
                n, t = split_position(v[key])
                if t and i % 2:
                    f[number], f[total] = str(n), str(t)
                else:
                    f[number] = v[key]
        f.save()
        out.append((path, "Vorbis", expected_from_values(v)))
    return out


def other_writers(folder, rng):
    """MP3s tagged by ffmpeg, lame, eyeD3 and id3v2 (those installed)."""
    out = []
    wav = os.path.join(folder, "source.wav")
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=1", wav])
    for i in range(24):
        title, artist, album = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        track = "%d/%d" % (i + 1, 24)
        year = str(rng.randint(1960, 2025))
        genre = rng.choice(["Rock", "Jazz", "Pop", "Ambient"])
        comment = rng.choice(WORDS)
        known = {"title": title, "artist": artist, "album": album, "album_artist": None, "track": i + 1,
                 "track_total": 24, "disc": None, "disc_total": None, "date": year, "genre": genre, "comment": comment}
        path = os.path.join(folder, "writer-%02d.mp3" % i)
        writer = ["ffmpeg3", "ffmpeg4", "lame", "eyed3-23", "eyed3-24", "id3v2"][i % 6]
        if writer.startswith("ffmpeg"):
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", "-id3v2_version", writer[-1],
                 "-metadata", "title=" + title, "-metadata", "artist=" + artist, "-metadata", "album=" + album,
                 "-metadata", "track=" + track, "-metadata", "date=" + year, "-metadata", "genre=" + genre,
                 "-metadata", "comment=" + comment, path])
        elif writer == "lame":
            if not shutil.which("lame"):
                continue
            run(["lame", "--quiet", "--id3v2-only", "--id3v2-utf16", "--tt", title, "--ta", artist, "--tl", album,
                 "--tn", track, "--ty", year, "--tg", genre, "--tc", comment, wav, path])
        elif writer.startswith("eyed3"):
            if not shutil.which("eyeD3"):
                continue
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", "-id3v2_version", "0", path])
            run(["eyeD3", "--quiet", "--no-color", "--to-v2.3" if writer.endswith("23") else "--to-v2.4",
                 "-t", title, "-a", artist, "-A", album, "-n", str(i + 1), "-N", "24", "-Y", year, "-G", genre,
                 "-c", comment, path])
        else:
            if not shutil.which("id3v2"):
                continue
            # id3lib writes Latin-1 only.
            for key in ("title", "artist", "album", "comment"):
                known[key] = known[key].encode("latin-1", "replace").decode("latin-1")
            run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", "-id3v2_version", "0", path])
            run(["id3v2", "-2", "-t", known["title"].encode("latin-1"), "-a", known["artist"].encode("latin-1"),
                 "-A", known["album"].encode("latin-1"), "-T", track, "-y", year, "-g", genre,
                 "-c", known["comment"].encode("latin-1"), path])
        with open(path, "rb") as f:
            head = f.read(4)
        out.append((path, "ID3v2.%d" % head[3] if head[:3] == b"ID3" else None, known))
    return out


def patch_mp4(path, box, factor):
    data = bytearray(open(path, "rb").read())
    i = data.find(box)
    offset = i + 4 + 4 + 8 + 4 if data[i + 4] == 0 else i + 4 + 4 + 16 + 4
    if data[i + 4] == 0:
        old = struct.unpack(">I", data[offset:offset + 4])[0]
        struct.pack_into(">I", data, offset, int(old * factor))
    else:
        old = struct.unpack(">Q", data[offset:offset + 8])[0]
        struct.pack_into(">Q", data, offset, int(old * factor))
    open(path, "wb").write(data)


def m4a_files(folder, rng):
    out = []
    for i in range(40):
        seconds = rng.choice([1, 2, 3.5])
        codec = ["aac", "alac"][i % 2]
        path = os.path.join(folder, "m4a-%02d.m4a" % i)
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
             "sine=frequency=500:sample_rate=44100:duration=%s" % seconds, "-c:a", codec, path])
        v = random_values(rng)
        f = MP4(path)
        for key, atom in (("title", "\xa9nam"), ("artist", "\xa9ART"), ("album", "\xa9alb"), ("album_artist", "aART"),
                          ("comment", "\xa9cmt")):
            if key in v:
                v[key] = v[key][:1]
                f[atom] = v[key]
        if "genre" in v:
            v["genre"] = [rng.choice(["Rock", "Jazz", "Electronic", "Ambient Dub"])]
            f["\xa9gen"] = v["genre"]
        if "date" in v:
            f["\xa9day"] = [v["date"]]
        for key, atom in (("track", "trkn"), ("disc", "disk")):
            if key in v:
                n, total = split_position(v[key])
                f[atom] = [(n, total or 0)]
        f.save()
        factor = [None, 10, 0.1, 0][i % 4]
        if factor is not None:
            patch_mp4(path, b"mvhd", factor)
        known = expected_from_values(v)
        known["duration"] = float(seconds)
        out.append((path, "M4A", known))
    return out


# ---------------------------------------------------------------- the references


def mutagen_fields(path):
    """What mutagen reads, as shelf's fields; None when mutagen reads no tag."""
    try:
        f = mutagen.File(path)
    except mutagen.MutagenError:
        f = None
    if f is None:
        return None, None
    if isinstance(f, MP4):
        return mp4_fields(f), "M4A"
    if isinstance(f.tags, mutagen._vorbis.VCommentDict):
        return vorbis_fields(f.tags), "Vorbis"
    tags = f.tags
    if tags is None or not isinstance(tags, id3.ID3):
        return None, None
    version = "ID3v2.%d" % tags.version[1] if tags.version[0] == 2 else None

    def joined(fid):
        frame = tags.get(fid)
        if frame is None:
            return None
        kept = [str(x).strip() for x in frame.text if str(x).strip()]
        return "; ".join(kept) or None
    out = {"title": joined("TIT2"), "artist": joined("TPE1"), "album": joined("TALB"),
           "album_artist": joined("TPE2"), "date": joined("TDRC")}
    trck = tags.get("TRCK")
    tpos = tags.get("TPOS")
    out["track"], out["track_total"] = split_position(str(trck.text[0]) if trck and trck.text else None)
    out["disc"], out["disc_total"] = split_position(str(tpos.text[0]) if tpos and tpos.text else None)
    tcon = tags.get("TCON")
    genres = [g.strip() for g in tcon.genres if g.strip()] if tcon else []
    out["genre"] = "; ".join(genres) or None
    comments = tags.getall("COMM")
    chosen = [c for c in comments if not c.desc.strip()] or [c for c in comments if not c.desc.startswith("iTun")]
    out["comment"] = None
    if chosen:
        kept = [x.strip() for x in chosen[0].text if x.strip()]
        out["comment"] = "; ".join(kept) or None
    return out, version


def vorbis_fields(tags):
    def joined(*keys):
        for key in keys:
            values = [x.strip() for x in tags.get(key, []) if x.strip()]
            if values:
                return "; ".join(values)
        return None
    out = {"title": joined("title"), "artist": joined("artist"), "album": joined("album"),
           "album_artist": joined("albumartist", "album artist", "album_artist"), "date": joined("date"),
           "genre": joined("genre"), "comment": joined("comment", "description")}
    for key, number, totals in (("track", "tracknumber", ("tracktotal", "totaltracks")),
                                ("disc", "discnumber", ("disctotal", "totaldiscs"))):
        n, t = split_position((tags.get(number) or [None])[0])
        out[key] = n
        out[key + "_total"] = t if t is not None else split_position(joined(*totals))[0]
    return out


def mp4_fields(f):
    t = f.tags or {}

    def one(atom):
        values = [x.strip() for x in t.get(atom, []) if x.strip()]
        return "; ".join(values) or None
    out = {"title": one("\xa9nam"), "artist": one("\xa9ART"), "album": one("\xa9alb"), "album_artist": one("aART"),
           "date": one("\xa9day"), "comment": one("\xa9cmt")}
    out["genre"] = one("\xa9gen") or ("; ".join(id3.TCON(text=[str(t["gnre"][0])]).genres) if "gnre" in t else None)
    for key, atom in (("track", "trkn"), ("disc", "disk")):
        n, total = t[atom][0] if atom in t else (0, 0)
        out[key] = n or None
        out[key + "_total"] = total or None
    return out


def ffprobe_audio_duration(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration",
                          "-of", "csv=p=0", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout.strip()
    try:
        return float(out.splitlines()[0])
    except (ValueError, IndexError):
        return None


def ffprobe_fields(path):
    """What FFmpeg reads (format and audio stream tags), as shelf's fields: the second reference
    for the files shipped by mutagen, whose values nobody wrote down."""
    result = subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_format", "-show_streams", path],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        probed = json.loads(result.stdout)
    except json.JSONDecodeError:
        return None
    if result.returncode != 0 or "format" not in probed:
        return None  # FFmpeg cannot open the file: no second reference
    tags = {}
    for stream in probed.get("streams", []):
        for k, v in stream.get("tags", {}).items():
            tags.setdefault(k.lower(), v)
    for k, v in probed.get("format", {}).get("tags", {}).items():
        tags[k.lower()] = v

    def value(*keys):
        for k in keys:
            if tags.get(k, "").strip():
                return tags[k].strip()
        return None
    fields = {"title": value("title"), "artist": value("artist"), "album": value("album"),
              "album_artist": value("album_artist"), "date": value("date", "tyer"), "comment": value("comment")}
    genre = value("genre")
    fields["genre"] = "; ".join(id3.TCON(text=[genre]).genres) if genre else None
    fields["track"], fields["track_total"] = split_position(value("track"))
    fields["disc"], fields["disc_total"] = split_position(value("disc"))
    return fields


def shelf_fields(shelf, path):
    result = subprocess.run([shelf, "info", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        audio = json.loads(result.stdout).get("audio")
    except json.JSONDecodeError:
        return None
    return audio


# ---------------------------------------------------------------- the comparison


CASE_VALUES = {"title": ["Été ÿ 1"], "artist": ["Straße", "日本語の歌"], "album": ["Blue ÿ Note"],
               "album_artist": ["Øresund"], "track": "3/12", "disc": "1/2", "date": "2004-03-05",
               "genre": ["(8)Jazz", "Electronic"], "comment": ["naïve ÿÿ"]}


def write_cases(folder):
    """The unit tests' input: one MP3 per ID3 version and oddity (fixed values, UTF-16 of every
    kind), and the ID3 files mutagen ships; `expected.json` holds mutagen's reading of each."""
    os.makedirs(folder, exist_ok=True)
    audio = make_audio(folder)
    expected = {}
    rng = random.Random(27)
    styles = ["utf16", "utf16-bom-be", "utf16-no-bom", "utf16be", "utf8", "latin1"]
    for version, sets in ((2, [["unsync", "empty-frames", "empty-descriptions", "big-frame"]]),
                          (3, [["unsync", "extended", "empty-frames", "empty-descriptions", "nul-lists", "big-frame"]]),
                          (4, [["unsync-frames", "data-length", "extended", "empty-frames", "empty-descriptions"],
                               ["unsync-tag", "empty-frames"], ["plain-sizes", "big-frame", "itunes-comments"]])):
        for oddities in sets:
            for style in styles if version == 4 else styles[:3] + ["latin1"]:
                v = json.loads(json.dumps(CASE_VALUES))
                frames = frames_for(v, version, rng, [style], oddities)
                tag = assemble(version, frames, unsync_tag="unsync" in oddities or "unsync-tag" in oddities,
                               unsync_frames="unsync-frames" in oddities, data_length="data-length" in oddities,
                               extended="extended" in oddities, plain_sizes="plain-sizes" in oddities)
                name = "v2%d-%s-%s.mp3" % (version, style, "-".join(oddities))
                path = os.path.join(folder, name)
                with open(path, "wb") as f:
                    f.write(tag + audio)
                fields, _ = mutagen_fields(path)
                known = expected_from_values(v)
                assert all(agrees(k, known[k], fields[k], k == "date") for k in FIELDS), (name, known, fields)
                expected[name] = fields
    data = mutagen_sdist(os.path.join(folder, "sdist"))
    for name in ("id3v23_unsynch.id3", "issue_21.id3"):
        with open(os.path.join(folder, name + ".mp3"), "wb") as f:
            f.write(open(os.path.join(data, name), "rb").read() + audio)
        expected[name + ".mp3"] = mutagen_fields(os.path.join(folder, name + ".mp3"))[0]
    for name in ("silence-44-s.mp3", "id3v22-test.mp3", "bad-POPM-frame.mp3", "silence-2s-PCM-44100-16-ID3v23.wav",
                 "with-id3.aif"):
        shutil.copy(os.path.join(data, name), os.path.join(folder, name))
        expected[name] = mutagen_fields(os.path.join(folder, name))[0]
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shelf", default=".build/release/shelf")
    parser.add_argument("--work")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--write-cases", metavar="DIR", help="write the unit tests' files and mutagen's reading")
    args = parser.parse_args()
    if args.write_cases:
        write_cases(args.write_cases)
        return 0
    shelf = os.path.abspath(args.shelf)
    work = args.work or tempfile.mkdtemp(prefix="check-tags-")
    if args.work and os.path.exists(work):
        shutil.rmtree(work)
    try:
        corpus = make_corpus(work)
        totals = {}
        misses = []
        dropped = []
        for path, cls, known in corpus:
            reference, version = mutagen_fields(path)
            if reference is None:
                continue
            cls = cls or version
            if cls is None:
                continue
            second = known if known is not None else ffprobe_fields(path)
            if second is None:
                dropped.append(os.path.basename(path))
                continue
            stats = totals.setdefault(cls, {"files": 0, "fields": {}})
            stats["files"] += 1
            ours = shelf_fields(shelf, path)
            if cls == "M4A":
                reference["duration"] = ffprobe_audio_duration(path)
            for field in FIELDS + (["duration"] if cls == "M4A" else []):
                want = reference.get(field)
                dated = field == "date" and cls.startswith("ID3")
                if field in second and not agrees(field, second[field], want, dated):
                    continue  # the references disagree: the field is not counted
                got = ours.get(field) if ours else "(no facts)"
                counted = stats["fields"].setdefault(field, [0, 0])
                counted[1] += 1
                if agrees(field, got, want, dated):
                    counted[0] += 1
                else:
                    misses.append((cls, os.path.basename(path), field, want, got))
        failed = report(totals)
        if dropped:
            print("\nnot counted, FFmpeg (the second reference) cannot open them: " + ", ".join(sorted(dropped)))
        if misses:
            print("\n%d disagreements%s" % (len(misses), "" if args.verbose else " (first 20; --verbose for all)"))
            for miss in misses if args.verbose else misses[:20]:
                print("  %s %s %s: mutagen %r, shelf %r" % miss)
        return 1 if failed else 0
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def agrees(field, a, b, dated=False):
    """Equal values; durations within 1.5 ms; ID3 dates as mutagen writes timestamps (`0` is
    `0000`, `2004-03-05T14:30:00` is `2004-03-05 14:30:00`)."""
    if dated and a is not None and b is not None:
        return str(id3.ID3TimeStamp(a)) == str(id3.ID3TimeStamp(b))
    if field == "duration":
        return a is not None and b is not None and abs(a - b) <= 0.0015
    return a == b


def report(totals):
    failed = False
    print("%-10s %6s  %s" % ("class", "files", "agreement per field (files counted)"))
    for cls in sorted(totals):
        stats = totals[cls]
        right = sum(v[0] for v in stats["fields"].values())
        counted = sum(v[1] for v in stats["fields"].values())
        share = 100.0 * right / counted if counted else 0.0
        ok = share >= TARGET and stats["files"] >= MIN_FILES
        failed = failed or not ok
        print("%-10s %6d  %6.2f %% of %d fields %s" % (cls, stats["files"], share, counted, "" if ok else "  << MISSED"))
        print("           " + ", ".join("%s %d/%d" % (f, v[0], v[1]) for f, v in stats["fields"].items()))
    return failed


if __name__ == "__main__":
    sys.exit(main())
