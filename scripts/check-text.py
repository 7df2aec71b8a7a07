#!/usr/bin/env python3
"""Encoding accuracy on the rarer encodings: `shelf info --json` on real text converted by
Python's codecs (the truth is the encoding the file was written in).

    python3 scripts/check-text.py --shelf .build/release/shelf [--corpus DIR] [--verbose]

The text is real: the translated messages of installed programs and Debian's translated man
pages (as `make bench-text` gathers them), and Debian's own English copyright files. Each class
is one encoding, written from the languages that use it, in pieces of 200 bytes to 40 kB, at
least 30 files a class: ISO-8859-15 (German, French, Estonian, Finnish: Œœ Šš Žž where Latin-1
has symbols), windows-1252 and Mac Roman (German, French), the DOS code pages ibm775 (Lithuanian,
Latvian), ibm852 (Polish, Czech, Hungarian, Slovak, Slovenian, Croatian) and cp1125
(Ukrainian), Mac Central European (Polish, Czech, Hungarian), the 7-bit UTF-7 and HZ, and
Latin-1 English with a few accented letters (the copyright files).

For each class it prints how many files shelf reads right (decoding with the name it gives
yields the file's text exactly) and how many it names right: the true name, or, when several
encodings decode to the same text, the most common one for the language (Latin-1 before
windows-1252, ISO-8859-15 and Mac Roman for the Western languages; `windows-1252` only when a
byte 0x80-0x9F occurs). Exits 1 when a class is below 99.5 %.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_text  # noqa: E402

SIZES = [200, 1000, 6000, 40000]
FILES_PER_CLASS = 36
TARGET = 99.5

CLASSES = {
    "iso-8859-15": ["de", "fr", "et", "fi"],
    "windows-1252": ["de", "fr"],
    "macintosh": ["de", "fr"],
    "ibm775": ["lt", "lv"],
    "ibm852": ["pl", "cs", "hu", "sk", "sl", "hr"],
    "cp1125": ["uk"],
    "x-mac-ce": ["pl", "cs", "hu"],
    "utf-7": ["de", "ru", "ja", "zh_CN", "el"],
    "hz-gb-2312": ["zh_CN"],
}

WESTERN = ["latin-1", "windows-1252", "iso-8859-15", "macintosh"]

# The encodings a language's text is commonly written in, most common first: of the names that
# decode a file to its text, the first here is the one to give.
COMMON = {
    "de": WESTERN, "fr": WESTERN, "fi": WESTERN, "en": WESTERN,
    "et": ["latin-1", "iso-8859-15", "windows-1257"],
    "lt": ["windows-1257", "iso-8859-13", "iso-8859-4", "ibm775"],
    "lv": ["windows-1257", "iso-8859-13", "ibm775"],
    "pl": ["iso-8859-2", "windows-1250", "ibm852", "x-mac-ce"],
    "cs": ["iso-8859-2", "windows-1250", "ibm852", "x-mac-ce"],
    "hu": ["iso-8859-2", "windows-1250", "ibm852", "x-mac-ce"],
    "sk": ["iso-8859-2", "windows-1250", "ibm852"],
    "sl": ["iso-8859-2", "windows-1250", "ibm852"],
    "hr": ["iso-8859-2", "windows-1250", "ibm852"],
    "uk": ["windows-1251", "koi8-u", "cp1125"],
    "ru": ["utf-8"], "ja": ["utf-8"], "zh_CN": ["gb18030", "hz-gb-2312"], "el": ["utf-8"],
}


def copyright_texts(limit=60):
    """Debian copyright files in UTF-8 whose few non-ASCII letters Latin-1 holds: English text
    that a Latin-1 file of it names right only as Latin-1."""
    texts = []
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, "rb") as source:
                text = source.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        foreign = [char for char in text if ord(char) > 0x7F]
        if not 1 <= len(foreign) <= 8 or any(ord(char) > 0xFF or ord(char) < 0xA0 for char in foreign):
            continue
        if bench_text.CONTROLS.search(text):
            continue
        texts.append(text)
        if len(texts) == limit:
            break
    return texts


def build(corpus):
    """Writes the corpus and returns {file name: (true encoding, language)}."""
    os.makedirs(corpus, exist_ok=True)
    truth = {}
    sources = {}
    for encoding, languages in CLASSES.items():
        rounds = -(-FILES_PER_CLASS // (len(languages) * len(SIZES)))
        for language in languages:
            if language not in sources:
                sources[language] = bench_text.source_text(language)
            text = sources[language]
            if not text.strip():
                print(f"no text for {language}", file=sys.stderr)
                continue
            codec_name = "utf-8" if encoding == "utf-7" else encoding
            for number, (size, piece) in enumerate(bench_text.pieces(text, codec_name, SIZES * rounds)):
                data = piece.encode("utf-7") if encoding == "utf-7" else bench_text.encode(piece, encoding)
                if bench_text.decode(data, encoding) is None:
                    continue
                name = f"{language}-{encoding}-{size}-{number:02}.txt"
                with open(os.path.join(corpus, name), "wb") as out:
                    out.write(data)
                truth[name] = (encoding, language)
    for number, text in enumerate(copyright_texts()):
        name = f"en-copyright-latin-1-{number:02}.txt"
        with open(os.path.join(corpus, name), "wb") as out:
            out.write(text.encode("latin-1"))
        truth[name] = ("latin-1", "en")
    with open(os.path.join(corpus, "truth.json"), "w") as out:
        json.dump(truth, out, indent=1, sort_keys=True)
    return truth


def expected_name(data, text, encoding, language):
    """The names a file may be given: its own encoding, or the most common one for its language
    among those that decode it to the same text."""
    names = {encoding}
    for common in COMMON.get(language, []):
        if common == "windows-1252" and not any(0x80 <= byte <= 0x9F for byte in data):
            continue
        if bench_text.decode(data, common) == text:
            names.add(common)
            break
    if all(ord(char) < 0x80 for char in text):
        # UTF-7 whose shifts give nothing beyond ASCII (`+-` for `+`) is called ASCII.
        names.add("ascii")
    return names


def shelf_encodings(shelf, paths):
    """The encoding shelf names for each file, or its kind when it is not text."""
    return {name: record.get("encoding") if record.get("kind") == "text" else record.get("kind")
            for name, record in bench_text.shelf_facts(shelf, paths).items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shelf", required=True)
    parser.add_argument("--corpus", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "shelf-check-text"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    truth_path = os.path.join(args.corpus, "truth.json")
    if os.path.exists(truth_path):
        with open(truth_path) as source:
            truth = {name: tuple(value) for name, value in json.load(source).items()}
    else:
        truth = build(args.corpus)
    names = sorted(truth)
    answers = shelf_encodings(args.shelf, [os.path.join(args.corpus, name) for name in names])
    classes = {}
    misses = []
    for name in names:
        encoding, language = truth[name]
        label = "latin-1 (English)" if language == "en" else encoding
        with open(os.path.join(args.corpus, name), "rb") as source:
            data = source.read()
        text = bench_text.decode(data, encoding)
        answer = answers.get(name)
        read_right = bench_text.decode(data, answer) == text
        named_right = answer in expected_name(data, text, encoding, language)
        counts = classes.setdefault(label, [0, 0, 0])
        counts[0] += 1
        counts[1] += read_right
        counts[2] += named_right
        if not named_right:
            misses.append(f"{name}: shelf says {answer}, expected {sorted(expected_name(data, text, encoding, language))}")
    print(f"{'class':20} {'files':>5} {'read %':>7} {'named %':>8}")
    failed = False
    for label, (files, read, named) in classes.items():
        print(f"{label:20} {files:5} {100 * read / files:7.1f} {100 * named / files:8.1f}")
        failed |= files < 30 or 100 * named / files < TARGET
    print(f"target: at least 30 files and {TARGET} % named right per class")
    for line in misses if args.verbose else misses[:30]:
        print("  " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
