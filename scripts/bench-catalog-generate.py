#!/usr/bin/env python3
"""Fills a shelf SQLite catalogue with synthetic entries for `make bench-catalog`.

The catalogue must already exist, made by `shelf index` (of a small folder): its tables are
the ones shelf creates, and this generator takes the columns from them (PRAGMA table_info of
`files` and of the full-text table `files_fts`), so it follows the schema as it grows. Columns
it knows get realistic values per kind: a photo library (HEIC, JPEG, PNG with sizes and dates),
a music library (MP3, M4A, FLAC with artists, albums, genres, track numbers), videos, text
files with words, property lists with keys, and other documents; paths like a home folder's.
A column it does not know gets NULL, or a zero/empty value when it is NOT NULL, and is named on
stderr. The path trigram table (`files_paths`) gets each row's path as shelf's writer gives it,
unless an insert trigger of an older schema does. The entries are added under the catalogue's
first root; the same seed gives the same rows.

usage: bench-catalog-generate.py CATALOG ENTRIES
"""

import os
import random
import sqlite3
import sys
import time

SEED = 20261130


def syllable_words(rng, count, syllables=("ka", "lo", "mi", "ren", "sa", "to", "vel", "an", "or",
                                          "bri", "den", "ful", "gar", "hol", "is", "jun", "mar",
                                          "nel", "pe", "quin", "ros", "tha", "ul", "wen", "yo")):
    """Distinct made-up words of 2-4 syllables."""
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Library:
    """The shared vocabulary: artists, albums, genres, words, plist keys."""

    def __init__(self, rng):
        self.rng = rng
        names = syllable_words(rng, 6000)
        rng.shuffle(names)
        self.words = names[:4000]
        # A few real words that the benchmark's full-text query can look for, in the long
        # tail (about one text entry in a hundred has "lighthouse"), not among the most common.
        self.words[200:212] = ["lighthouse", "harbour", "invoice", "recipe", "meeting", "garden",
                           "holiday", "budget", "river", "concert", "letter", "mountain"]
        people = [w.capitalize() for w in names[4000:5200]]
        self.artists = [f"{rng.choice(people)} {rng.choice(people)}" for _ in range(2500)]
        self.artists[40:43] = ["Ada Lighthouse", "The Harbour Band", "Nina Holloway"]
        self.album_words = [w.capitalize() for w in names[5200:6000]]
        self.genres = ["Rock", "Pop", "Jazz", "Classical", "Electronic", "Hip-Hop", "Folk",
                       "Blues", "Soundtrack", "Ambient", "Country", "Reggae", "Metal", "Soul"]
        self.plist_keys = ["CFBundleIdentifier", "CFBundleVersion", "LastOpened", "Volume",
                           "Shuffle", "Playlists", "WindowFrame", "RecentDocuments", "Theme",
                           "SyncEnabled", "AccountID", "Language", "FontSize", "AutoSave"]

    def zipf_word(self):
        """A word drawn with a long tail, as in real text: a few common, many rare."""
        return self.words[min(int(self.rng.paretovariate(1.1)) - 1, len(self.words) - 1)
                          if self.rng.random() < 0.6 else self.rng.randrange(len(self.words))]

    def sentence(self, count):
        return " ".join(self.zipf_word() for _ in range(count))


EPOCH_2012 = 1325376000
EPOCH_2026 = 1767225600

IMAGE_TYPES = [("heic", "image/heic", "heic", 0.45), ("jpg", "image/jpeg", "jpeg", 0.4),
               ("png", "image/png", "png", 0.15)]
AUDIO_TYPES = [("mp3", "audio/mpeg", "mp3", "mp3", 0.45), ("m4a", "audio/mp4", "mp4", "aac", 0.35),
               ("flac", "audio/flac", "flac", "flac", 0.2)]
TEXT_TYPES = [("txt", "text/plain"), ("md", "text/markdown"), ("csv", "text/csv"),
              ("json", "application/json"), ("log", "text/plain")]
OTHER_TYPES = [("pdf", "application/pdf"), ("zip", "application/zip"),
               ("sqlite", "application/vnd.sqlite3"), ("docx",
               "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
               ("bin", "application/octet-stream")]
# Share of each kind in the catalogue: a home folder with photos and music.
KINDS = [("image", 0.42), ("audio", 0.2), ("text", 0.15), ("other", 0.12), ("plist", 0.06),
         ("video", 0.05)]


def weighted(rng, choices):
    """One of `choices` (tuples whose last item is the weight)."""
    point = rng.random() * sum(c[-1] for c in choices)
    for choice in choices:
        point -= choice[-1]
        if point <= 0:
            return choice
    return choices[-1]


class EntryMaker:
    """Makes one entry's column values and full-text row, by kind."""

    def __init__(self, rng, library, root, extractor_version, device):
        self.rng = rng
        self.lib = library
        self.root = root
        self.extractor_version = extractor_version
        self.device = device

    def entry(self, number):
        rng = self.rng
        kind = weighted(rng, KINDS)[0]
        mtime = rng.randint(EPOCH_2012, EPOCH_2026)
        year = time.gmtime(mtime).tm_year
        values = {
            "kind": kind, "ext_mismatch": 0, "mtime_ns": mtime * 1_000_000_000 + rng.randrange(10**9),
            "inode": 1_000_000 + number, "device": self.device, "trusted": 1,
            "extractor_version": self.extractor_version, "detected_by": "content+extension",
        }
        tags = body = ""
        if kind == "image":
            ext, mime, image_format, _ = weighted(rng, IMAGE_TYPES)
            portrait = rng.random() < 0.3
            width, height = rng.choice([(4032, 3024), (3024, 3024), (1920, 1080), (1284, 2778),
                                        (800, 600), (256, 256)])
            if portrait:
                width, height = height, width
            folder = f"Pictures/{year}/{year}-{time.gmtime(mtime).tm_mon:02d} {self.lib.zipf_word().capitalize()}"
            name = f"IMG_{number:07d}.{ext.upper() if ext == 'heic' else ext}"
            size = int(width * height * (0.35 if ext != "png" else 1.2) * rng.uniform(0.6, 1.4))
            values.update(width=width, height=height, bit_depth=8, color_type="rgba" if ext == "png" else "rgb",
                          alpha=1 if ext == "png" else 0, interlaced=0, cgbi=0, frames=1,
                          image_format=image_format, chunks="IHDR IDAT IEND" if ext == "png" else None)
        elif kind == "video":
            ext = rng.choice(["mov", "mp4"])
            mime = "video/quicktime" if ext == "mov" else "video/mp4"
            duration = round(rng.uniform(2, 600), 3)
            bitrate = rng.choice([8_000_000, 12_000_000, 24_000_000])
            width, height = rng.choice([(1920, 1080), (3840, 2160), (1280, 720)])
            folder = f"Movies/{year}"
            name = f"VID_{number:07d}.{ext}"
            size = int(duration * bitrate / 8)
            values.update(duration=duration, width=width, height=height,
                          codec=rng.choice(["h264", "hevc"]), frame_rate=rng.choice([24.0, 30.0, 60.0]),
                          rotation=rng.choice([0, 0, 90]), audio_codec="aac", bitrate=bitrate, format=ext,
                          taken=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime)))
        elif kind == "audio":
            ext, mime, audio_format, codec, _ = weighted(rng, AUDIO_TYPES)
            artist_index = min(int(rng.paretovariate(0.9)) - 1, len(self.lib.artists) - 1)
            artist = self.lib.artists[artist_index]
            album = " ".join(rng.choice(self.lib.album_words) for _ in range(rng.randint(1, 3)))
            track = rng.randint(1, 14)
            title = " ".join(self.lib.zipf_word() for _ in range(rng.randint(1, 4))).capitalize()
            genre = rng.choice(self.lib.genres)
            duration = round(rng.uniform(90, 420), 3)
            sample_rate = 44100 if ext != "flac" or rng.random() < 0.7 else 96000
            bitrate = {"mp3": rng.choice([128000, 192000, 256000, 320000]), "m4a": 256000,
                       "flac": rng.randint(700_000, 1_100_000)}[ext]
            folder = f"Music/{artist}/{album}"
            name = f"{track:02d} {title} {number}.{ext}"
            size = int(duration * bitrate / 8)
            values.update(duration=duration, sample_rate=sample_rate, channels=2,
                          audio_frames=int(duration * sample_rate), format=audio_format,
                          subtype={"mp3": "MPEG layer III", "m4a": "AAC", "flac": "FLAC 16-bit"}[ext],
                          title=title, artist=artist, album=album, date=str(year), year=year,
                          track=str(track), track_no=track, genre=genre,
                          comment=self.lib.sentence(4) if rng.random() < 0.1 else None,
                          codec=codec, bitrate=bitrate,
                          album_artist=artist if rng.random() < 0.5 else None,
                          disc=1, disc_total=1, track_total=14, artwork=1 if rng.random() < 0.6 else 0)
            tags = " ".join(v for v in [title, artist, album, values["album_artist"], genre,
                                        values["comment"], str(year)] if v)
        elif kind == "text":
            ext, mime = rng.choice(TEXT_TYPES)
            words = rng.randint(20, 2000)
            first = self.lib.sentence(rng.randint(2, 8))
            folder = f"Documents/{self.lib.zipf_word().capitalize()}"
            name = f"{self.lib.zipf_word()}-{number}.{ext}"
            size = words * 6
            body = first + " " + self.lib.sentence(min(words, 60))
            values.update(encoding=rng.choice(["utf-8", "utf-8", "utf-8", "windows-1252"]), bom=0,
                          line_endings=rng.choice(["lf", "lf", "crlf"]), lines=max(1, words // 10),
                          words=words, chars=size, first_line=first)
        elif kind == "plist":
            mime = "application/x-plist"
            ext = "plist"
            keys = sorted(rng.sample(self.lib.plist_keys, rng.randint(2, 8)))
            folder = "Library/Preferences"
            name = f"com.{self.lib.zipf_word()}.{self.lib.zipf_word()}-{number}.plist"
            size = rng.randint(200, 20000)
            values.update(plist_format=rng.choice(["binary", "xml"]), plist_root="dictionary",
                          plist_keys="\n".join(keys))
            tags = " ".join(keys)
        else:
            ext, mime = rng.choice(OTHER_TYPES)
            folder = rng.choice(["Documents/Archive", "Downloads", "Library/Caches", "tmp"])
            name = f"{self.lib.zipf_word()}-{number}.{ext}"
            size = int(rng.lognormvariate(11, 2))
            values["detected_by"] = "content"
        top = folder.split("/")[0]
        second = folder.split("/")[1] if "/" in folder else ""
        area = {"Documents": "documents", "tmp": "tmp"}.get(top, "other")
        if top == "Library":
            area = {"Caches": "caches", "Preferences": "preferences"}.get(second, "library")
        path = f"{self.root}/{folder}/{name}"
        values.update(path=path.encode(), path_text=path, name=name, ext=ext, area=area, mime=mime,
                      size=size, ctime_ns=values["mtime_ns"])
        return values, {"tags": tags, "body": body}


def zero_for(declared_type):
    """The value a NOT NULL column the generator does not know gets."""
    declared = declared_type.upper()
    if "INT" in declared or "REAL" in declared:
        return 0
    if "BLOB" in declared:
        return b""
    return ""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    catalog, count = sys.argv[1], int(sys.argv[2])
    db = sqlite3.connect(catalog)
    root_id, root_path = db.execute("SELECT id, path FROM roots ORDER BY id LIMIT 1").fetchone()
    extractor_version, device = db.execute(
        "SELECT COALESCE(MAX(extractor_version), 1), COALESCE(MAX(device), 2049) FROM files").fetchone()
    # (name, declared type, NOT NULL) of every column, as shelf created them.
    files_columns = [(row[1], row[2], row[3]) for row in db.execute("PRAGMA table_info(files)")]
    fts_columns = [row[1] for row in db.execute("PRAGMA table_info(files_fts)")]
    first_id = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM files").fetchone()[0]

    rng = random.Random(SEED)
    maker = EntryMaker(rng, Library(rng), os.fsdecode(root_path), extractor_version, device)
    names = [name for name, _, _ in files_columns]
    defaults = {name: (zero_for(declared) if not_null else None) for name, declared, not_null in files_columns}
    insert_file = f"INSERT INTO files({', '.join(names)}) VALUES({', '.join('?' * len(names))})"
    insert_text = (f"INSERT INTO files_fts(rowid, {', '.join(fts_columns)}) "
                   f"VALUES(?, {', '.join('?' * len(fts_columns))})")
    # From schema 12 on, shelf's writer fills the path trigrams with the row; before, a trigger.
    fills_paths = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'files_paths'").fetchone()[0] \
        and not db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' "
                           "AND name = 'files_paths_insert'").fetchone()[0]
    insert_path = "INSERT INTO files_paths(rowid, path_text) VALUES(?, ?)"
    # The columns some entry got a value for; the others are reported at the end.
    generated = {"id", "root_id"}
    db.execute("PRAGMA synchronous=OFF")
    started = time.monotonic()
    batch, text_batch, path_batch = [], [], []
    with db:
        for number in range(count):
            values, text = maker.entry(number + first_id)
            file_id = first_id + number
            values["id"] = file_id
            values["root_id"] = root_id
            generated.update(values)
            batch.append(tuple(values.get(name, defaults[name]) for name in names))
            if any(text.values()):
                text_batch.append((file_id, *(text.get(name, "") for name in fts_columns)))
            if fills_paths:
                path_batch.append((file_id, values["path_text"]))
            if len(batch) == 20000:
                db.executemany(insert_file, batch)
                db.executemany(insert_text, text_batch)
                db.executemany(insert_path, path_batch)
                batch, text_batch, path_batch = [], [], []
        db.executemany(insert_file, batch)
        db.executemany(insert_text, text_batch)
        db.executemany(insert_path, path_batch)
    db.close()
    unknown = [name for name in names if name not in generated]
    if unknown:
        print("bench-catalog-generate: columns left NULL or zero: " + ", ".join(unknown), file=sys.stderr)
    print(f"bench-catalog-generate: {count} entries in {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
