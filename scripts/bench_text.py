#!/usr/bin/env python3
"""Text-encoding benchmark for shelf (run through scripts/bench-text.sh).

Builds a multilingual corpus of real text -- Debian's translated man pages, the translated
messages of installed programs (/usr/share/locale/*/LC_MESSAGES/*.mo) and CPython's
cjkencodings test samples -- converted into each legacy encoding its language uses, as files
from 200 bytes to 1 MB. Then it scores `shelf info --json`, `uchardet` and
`file --mime-encoding` side by side: a reported encoding is right when decoding the file with
it gives exactly the text the true encoding gives. For shelf it also checks the character and
line counts of every file it got right, and that no file is classified as `other`.
"""

import argparse
import gettext
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import time
import unicodedata

SIZES = [200, 1000, 6000, 40000, 250000, 1000000]

# Language -> (sources, encodings its text is written in besides Unicode). Encodings are
# (file label, Python codec or "iconv:NAME").
LANGUAGES = {
    "ru": ["windows-1251", "koi8-r", "ibm866", "iso-8859-5", "x-mac-cyrillic", "ibm855"],
    "uk": ["koi8-u", "windows-1251"],
    "bg": ["windows-1251"],
    "pl": ["windows-1250", "iso-8859-2"],
    "cs": ["windows-1250", "iso-8859-2"],
    "hu": ["windows-1250", "iso-8859-2"],
    "ro": ["iso-8859-16"],
    "de": ["windows-1252", "iso-8859-1", "iso-8859-15", "macintosh"],
    "fr": ["windows-1252", "iso-8859-1", "iso-8859-15", "macintosh"],
    "es": ["windows-1252", "iso-8859-1"],
    "sv": ["windows-1252", "iso-8859-1"],
    "is": ["windows-1252", "iso-8859-1"],
    "cy": ["iso-8859-14"],
    "ga": ["iso-8859-14"],
    "tr": ["windows-1254", "iso-8859-9"],
    "el": ["windows-1253", "iso-8859-7"],
    "he": ["windows-1255", "iso-8859-8"],
    "ar": ["windows-1256", "iso-8859-6"],
    "th": ["tis-620"],
    "lt": ["windows-1257", "iso-8859-13", "iso-8859-4"],
    "vi": ["windows-1258"],
    "ja": ["shift_jis", "euc-jp", "iso-2022-jp"],
    "ko": ["euc-kr", "iso-2022-kr", "johab"],
    "zh_CN": ["gb18030", "gbk", "gb2312"],
    "zh_TW": ["big5", "euc-tw"],
}
UNICODE_FORMS = ["utf-8", "utf-16le", "utf-16be", "utf-16le-bom", "utf-16be-bom", "utf-32le-bom",
                 "utf-32be", "utf-32le"]
UNICODE_LANGUAGES = ["ru", "ja", "zh_CN", "el", "de"]

# Encoding names (as any of the three tools spell them) -> how to decode with them. Names are
# compared lower-case; the superset decoders WHATWG prescribes stand for their subsets, for
# every tool alike (shift_jis decodes as windows-31j, euc-kr as windows-949, gb2312 and gbk as
# gb18030, big5 as big5-hkscs, tis-620 as windows-874).
DECODERS = {
    "ascii": "ascii", "us-ascii": "ascii", "utf-8": "utf-8", "latin-1": "latin-1",
    "iso-8859-1": "latin-1", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be", "utf-16": "utf-16",
    "utf-32le": "utf-32-le", "utf-32be": "utf-32-be", "utf-32": "utf-32",
    "koi8-r": "koi8-r", "koi8-u": "koi8-u", "ibm866": "cp866", "ibm855": "cp855",
    "ibm852": "cp852", "ibm775": "cp775", "cp1125": "cp1125", "x-mac-ce": "mac-latin2",
    "utf-7": "utf-7", "macintosh": "mac-roman", "x-mac-cyrillic": "mac-cyrillic",
    "mac-cyrillic": "mac-cyrillic", "mac-centraleurope": "mac-latin2", "tis-620": "cp874",
    "windows-874": "cp874", "shift_jis": "cp932", "windows-31j": "cp932", "euc-jp": "euc_jp",
    "iso-2022-jp": "iso2022_jp_2", "euc-kr": "cp949", "windows-949": "cp949",
    "iso-2022-kr": "iconv:ISO-2022-KR", "johab": "johab", "gb18030": "gb18030", "gbk": "gb18030",
    "gb2312": "gb18030", "big5": "big5hkscs", "euc-tw": "iconv:EUC-TW", "hz-gb-2312": "hz",
    "iso-2022-cn": "iconv:ISO-2022-CN", "viscii": "iconv:VISCII",
}
for n in range(2, 17):
    DECODERS[f"iso-8859-{n}"] = f"iso-8859-{n}"
for n in range(1250, 1259):
    DECODERS[f"windows-{n}"] = f"cp{n}"

# How the corpus writes each encoding (strict codecs, so the truth is exact).
ENCODERS = dict(DECODERS)
ENCODERS.update({"shift_jis": "shift_jis", "euc-kr": "euc_kr", "gbk": "gbk", "gb2312": "gb2312",
                 "big5": "big5", "tis-620": "tis-620", "iso-2022-jp": "iso2022_jp"})


def decode(data, name):
    """The text `data` holds in encoding `name`, or None when it does not decode."""
    codec = DECODERS.get((name or "").lower())
    if codec is None:
        return None
    if codec.startswith("iconv:"):
        result = subprocess.run(["iconv", "-f", codec[6:], "-t", "UTF-8"], input=data,
                                capture_output=True)
        if result.returncode != 0:
            return None
        text = result.stdout.decode("utf-8")
    else:
        try:
            text = data.decode(codec)
        except (UnicodeDecodeError, LookupError):
            return None
    return text[1:] if text.startswith("\ufeff") else text


def encode(text, name):
    """`text` in encoding `name`, dropping what the encoding cannot hold."""
    codec = ENCODERS[name]
    if codec.startswith("iconv:"):
        result = subprocess.run(["iconv", "-c", "-f", "UTF-8", "-t", codec[6:]],
                                input=text.encode("utf-8"), capture_output=True)
        return result.stdout
    if name == "windows-1258":
        # Vietnamese: cp1258 holds some letters precomposed and tones as combining marks.
        out = []
        for char in unicodedata.normalize("NFC", text):
            try:
                char.encode(codec)
                out.append(char)
            except UnicodeEncodeError:
                parts = unicodedata.normalize("NFD", char)
                for candidate in (unicodedata.normalize("NFC", parts[:2]) + parts[2:], parts):
                    try:
                        candidate.encode(codec)
                        out.append(candidate)
                        break
                    except UnicodeEncodeError:
                        continue
        text = "".join(out)
    return text.encode(codec, errors="ignore")


ROFF_ESCAPES = re.compile(r"\\f(\[[^\]]*\]|\(..|.)|\\\(..|\\\*(\(..|\[[^\]]*\]|.)|\\[-&e|^~0 ]|\\s[-+]?\d")


def man_text(path):
    """The prose of a roff man page: requests dropped, font and character escapes removed."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as source:
            lines = []
            for line in source:
                if line.startswith((".", "'")):
                    continue
                line = ROFF_ESCAPES.sub("", line).replace("\\", "")
                if line.strip():
                    lines.append(line.rstrip())
            return "\n".join(lines) + "\n"
    except (UnicodeDecodeError, OSError, EOFError):
        return ""


def message_text(language):
    """The translated messages of the installed programs in `language`."""
    chunks = []
    for path in sorted(glob.glob(f"/usr/share/locale/{language}/LC_MESSAGES/*.mo")):
        try:
            with open(path, "rb") as source:
                catalog = gettext.GNUTranslations(source)._catalog
        except Exception:
            continue
        for key, value in catalog.items():
            if key and isinstance(value, str) and len(value) > 20:
                chunks.append(value.strip())
    return "\n".join(chunks) + "\n"


def source_text(language):
    man = sorted(glob.glob(f"/usr/share/man/{language}/man*/*.gz"))
    if language == "zh_CN" or language == "zh_TW":
        man = sorted(glob.glob(f"/usr/share/man/{language}/man*/*.gz"))
    text = "".join(man_text(path) for path in man[:400])
    if len(text.encode("utf-8")) < 2_000_000:
        text += message_text(language)
    return clean(text)


CONTROLS = re.compile("[\x00-\x06\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffe\uffff]")


def clean(text):
    """`text` without the lines that hold control characters (defects of the sources: mojibake,
    gnupg's field separators), which no detector should call text."""
    return "".join(line for line in text.splitlines(keepends=True) if not CONTROLS.search(line))


def pieces(text, name, sizes):
    """Consecutive pieces of `text` whose encodings are about each size, cut at line ends."""
    lines = text.splitlines(keepends=True)
    index = 0
    for size in sizes:
        chunk, length = [], 0
        start = index
        while length < size:
            line = lines[index % len(lines)]
            index += 1
            chunk.append(line)
            length += len(encode(line, name)) if size <= 6000 else len(line.encode("utf-8"))
            if index - start > len(lines) * 3:
                break
        yield size, "".join(chunk)


def build(corpus):
    os.makedirs(corpus, exist_ok=True)
    truth = {}
    for language, encodings in LANGUAGES.items():
        text = source_text(language)
        if not text.strip():
            print(f"no text for {language}", file=sys.stderr)
            continue
        forms = encodings + (UNICODE_FORMS if language in UNICODE_LANGUAGES else ["utf-8"])
        for form in forms:
            for size, piece in pieces(text, "utf-8" if form.startswith("utf") else form, SIZES):
                if form.startswith("utf-"):
                    bom = form.endswith("-bom")
                    base = form[:-4] if bom else form
                    data = (("\ufeff" if bom else "") + piece).encode(base)
                    true_name = base
                else:
                    data = encode(piece, form)
                    true_name = form
                expected = decode(data, true_name)
                if expected is None:
                    continue
                name = f"{language}-{form}-{size}.txt"
                with open(os.path.join(corpus, name), "wb") as out:
                    out.write(data)
                truth[name] = true_name
    for path in sorted(glob.glob("/usr/lib/python3*/test/cjkencodings/*.txt")):
        base = os.path.basename(path)[:-4]
        if base.endswith("-utf8") or os.path.exists(path[:-4] + "-utf8.txt") is False:
            continue
        true_name = {"big5": "big5", "big5hkscs": "big5", "cp949": "euc-kr", "euc_jp": "euc-jp",
                     "euc_jisx0213": "euc-jp", "euc_kr": "euc-kr", "gb18030": "gb18030",
                     "gb2312": "gb2312", "gbk": "gbk", "hz": "hz-gb-2312", "iso2022_jp": "iso-2022-jp",
                     "iso2022_kr": "iso-2022-kr", "johab": "johab", "shift_jis": "shift_jis",
                     "shift_jisx0213": "shift_jis"}.get(base)
        if true_name is None:
            continue
        with open(path, "rb") as source:
            data = source.read()
        with open(path[:-4] + "-utf8.txt", "rb") as source:
            expected = source.read().decode("utf-8")
        if decode(data, true_name) != expected:
            # the sample needs a decoder beyond the superset (JIS X 0213): keep it, truth from CPython
            pass
        name = f"cjkencodings-{base}.txt"
        with open(os.path.join(corpus, name), "wb") as out:
            out.write(data)
        truth[name] = ("python:" + base)
    with open(os.path.join(corpus, "truth.json"), "w") as out:
        json.dump(truth, out, indent=1, sort_keys=True)
    return truth


def true_text(data, true_name):
    if true_name.startswith("python:"):
        text = data.decode(true_name[7:])
        return text[1:] if text.startswith("\ufeff") else text
    return decode(data, true_name)


def shelf_lines(text):
    """Lines as shelf counts them: line ends (CRLF counts once) plus an unterminated last line."""
    count = len(re.findall(r"\r\n|\r|\n", text))
    if text and not text.endswith(("\n", "\r")):
        count += 1
    return count


def shelf_facts(shelf, paths):
    """`shelf info --json` of each file, by file name, its text facts lifted to the top level."""
    facts = {}
    for offset in range(0, len(paths), 200):
        batch = paths[offset:offset + 200]
        out = subprocess.run([shelf, "info", "--json"] + batch, capture_output=True).stdout
        records = json.loads(out)
        if isinstance(records, dict):
            records = [records]
        for path, record in zip(batch, records):
            record.update(record.get("text") or {})
            facts[os.path.basename(path)] = record
    return facts


def run_tools(shelf, corpus, names):
    paths = [os.path.join(corpus, name) for name in names]
    results = {"shelf": {}, "uchardet": {}, "file": {}}
    times = {}
    start = time.monotonic()
    facts = shelf_facts(shelf, paths)
    times["shelf"] = time.monotonic() - start
    for name, record in facts.items():
        results["shelf"][name] = (record.get("encoding") if record.get("kind") == "text"
                                  else record.get("kind"))
    start = time.monotonic()
    for offset in range(0, len(paths), 200):
        batch = paths[offset:offset + 200]
        out = subprocess.run(["uchardet"] + batch, capture_output=True, text=True).stdout
        for line in out.splitlines():
            path, _, answer = line.rpartition(": ")
            results["uchardet"][os.path.basename(path)] = answer.strip()
    times["uchardet"] = time.monotonic() - start
    start = time.monotonic()
    for offset in range(0, len(paths), 200):
        batch = paths[offset:offset + 200]
        out = subprocess.run(["file", "--mime-encoding"] + batch, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            path, _, answer = line.rpartition(": ")
            results["file"][os.path.basename(path)] = answer.strip()
    times["file"] = time.monotonic() - start
    return results, facts, times


def index_speed(shelf, baseline, corpus, names, count=20000):
    """Times `shelf index` of `count` small text files (the corpus's files up to 40 KB, copied
    round-robin), against `baseline` (an older shelf) when given: once for the whole mix, once
    for its UTF-8 files alone (text that an older shelf also read)."""
    small = [name for name in names if os.path.getsize(os.path.join(corpus, name)) <= 40000]
    for label, chosen in (("all encodings", small),
                          ("UTF-8 only", [name for name in small if "-utf-8-" in name])):
        folder = os.path.join(corpus, "index-tree-" + ("all" if chosen is small else "utf8"))
        if not os.path.isdir(folder):
            for number in range(count):
                name = chosen[number % len(chosen)]
                sub = os.path.join(folder, f"d{number // 500:03}")
                os.makedirs(sub, exist_ok=True)
                with open(os.path.join(corpus, name), "rb") as source, \
                        open(os.path.join(sub, f"{number:05}-{name}"), "wb") as out:
                    out.write(source.read())
        times = {}
        for tool, binary in (("shelf", shelf), ("baseline", baseline)):
            if not binary:
                continue
            database = os.path.join(corpus, f"index-{tool}.sqlite")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(database + suffix):
                    os.remove(database + suffix)
            start = time.monotonic()
            subprocess.run([binary, "--db", database, "index", folder], capture_output=True,
                           env=dict(os.environ, SHELF_TRUST_WINDOW="0"))
            times[tool] = time.monotonic() - start
        if "baseline" in times:
            print(f"index of {count} text files ({label}): shelf / baseline = "
                  f"{times['shelf'] / times['baseline']:.2f}x")
        else:
            print(f"index of {count} text files ({label}): {times['shelf']:.1f} s (no baseline)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shelf", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--baseline", help="an older shelf binary to compare index speed with")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    truth_path = os.path.join(args.corpus, "truth.json")
    if os.path.exists(truth_path):
        with open(truth_path) as source:
            truth = json.load(source)
    else:
        truth = build(args.corpus)
    names = sorted(truth)
    data = {}
    expected = {}
    for name in names:
        with open(os.path.join(args.corpus, name), "rb") as source:
            data[name] = source.read()
        expected[name] = true_text(data[name], truth[name])
    results, facts, times = run_tools(args.shelf, args.corpus, names)
    total_bytes = sum(len(value) for value in data.values())
    print(f"corpus: {len(names)} files, {total_bytes / 1e6:.1f} MB, "
          f"{len(set(truth.values()))} encodings ({args.corpus})")
    legacy = [name for name in names if "-utf-" not in name]
    print(f"{'tool':10} {'right':>7} {'of':>5} {'%':>6}  {'legacy %':>8} {'time ratio':>10}")
    wrong = {}
    for tool in ["shelf", "uchardet", "file"]:
        right = 0
        for name in names:
            if decode(data[name], results[tool].get(name)) == expected[name]:
                right += 1
            else:
                wrong.setdefault(tool, []).append(name)
        legacy_right = len([name for name in legacy if name not in wrong.get(tool, [])])
        ratio = times[tool] / times["uchardet"] if times["uchardet"] else 0
        print(f"{tool:10} {right:7} {len(names):5} {100 * right / len(names):6.1f}  "
              f"{100 * legacy_right / len(legacy):8.1f} {ratio:9.2f}x")
    print(f"(legacy: the {len(legacy)} files in neither UTF-8, UTF-16 nor UTF-32)")
    other = [name for name in names if results["shelf"].get(name) == "other"]
    miscounted = []
    for name in names:
        if name in wrong.get("shelf", []):
            continue
        record = facts[name]
        text = expected[name]
        if record.get("chars") != len(text) or record.get("lines") != shelf_lines(text):
            miscounted.append(f"{name}: chars {record.get('chars')} (true {len(text)}), "
                              f"lines {record.get('lines')} (true {shelf_lines(text)})")
    print(f"shelf: {len(other)} files classified as other; "
          f"{len(miscounted)} files right but miscounted")
    print("(time ratios are wall-clock per tool over the whole corpus, the machine was shared)")
    for line in miscounted[:20]:
        print("  miscounted", line)
    for name in other[:20]:
        print("  other", name)
    index_speed(args.shelf, args.baseline, args.corpus, names)
    if args.verbose:
        for tool in ["shelf", "uchardet", "file"]:
            for name in wrong.get(tool, []):
                print(f"  {tool} wrong: {name} (true {truth[name]}): {results[tool].get(name)}")


if __name__ == "__main__":
    main()
