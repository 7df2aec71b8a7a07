#!/usr/bin/env python3
"""shelf's text encodings against `file`, chardet and charset_normalizer on every text file of
a tree (default /usr/share): the disagreements, grouped into classes to be judged.

    python3 scripts/check-text-tree.py --shelf .build/release/shelf [--tree /usr/share]
        [--samples 3] [--json OUT]

A file is in the comparison when shelf or `file` calls it text (shelf is asked about the
files `file` calls text and those without a zero byte in their first 8 KiB). Answers are
compared by the text they decode the file to (the whole file, as Python's codecs and iconv read
it), not by name: `ascii`, `utf-8` and `latin-1` agree on an ASCII file. A class is one
pattern of answers (shelf's, then `file`'s, chardet's and charset_normalizer's, each replaced
by `=shelf` where it decodes to shelf's text); for each class the script prints how many files, which answers
decode the whole file at all (`!` marks one that does not), and a few samples with the first
line where shelf's reading and the others' differ. Whether shelf or the others are right is
then judged by reading those lines (BENCHMARKS.md keeps the judged summary).

Needs `file`, and chardet and charset_normalizer (pip install chardet charset_normalizer).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_text  # noqa: E402

# Files larger than this are read by the other tools from their first bytes only (shelf
# samples them itself): their answers are then about that prefix.
READ_LIMIT = 8 << 20


def walk(tree):
    """Every non-empty regular file under `tree`, symbolic links not followed."""
    paths = []
    for folder, _, names in os.walk(tree):
        for name in names:
            path = os.path.join(folder, name)
            try:
                if os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) > 0:
                    paths.append(path)
            except OSError:
                continue
    return sorted(paths)


def file_answers(paths):
    """`file -b --mime` of each path: (mime type, charset)."""
    answers = {}
    for offset in range(0, len(paths), 500):
        batch = paths[offset:offset + 500]
        out = subprocess.run(["file", "-N", "-0", "--mime", "--"] + batch, capture_output=True).stdout
        # Each answer is `PATH\0: MIME; charset=NAME` and a line feed.
        for line in out.split(b"\n"):
            name, separator, answer = line.partition(b"\0")
            if not separator:
                continue
            path = os.fsdecode(name)
            value = answer.decode("utf-8", "replace").lstrip(": ").strip()
            mime, _, rest = value.partition(";")
            charset = rest.strip().removeprefix("charset=") if rest else ""
            answers[path] = (mime.strip(), charset)
    return answers


def shelf_answers(shelf, paths):
    """shelf's encoding for each path it calls text, else its kind."""
    answers = {}
    for offset in range(0, len(paths), 200):
        batch = paths[offset:offset + 200]
        out = subprocess.run([shelf, "info", "--json", "--"] + batch, capture_output=True).stdout
        try:
            records = json.loads(out or b"[]")
        except json.JSONDecodeError:
            records = []
        if isinstance(records, dict):
            records = [records]
        for record in records:
            path = record.get("path")
            if path is None:
                continue
            text = record.get("text") or {}
            answers[path] = text.get("encoding") if record.get("kind") == "text" else record.get("kind")
    return answers


def has_zero(path):
    try:
        with open(path, "rb") as source:
            return b"\0" in source.read(8192)
    except OSError:
        return True


def read(path):
    with open(path, "rb") as source:
        return source.read(READ_LIMIT)


def python_answers(path):
    """chardet's and charset_normalizer's encodings for the file (None: binary or no answer)."""
    import chardet
    import charset_normalizer

    data = read(path)
    detected = chardet.detect(data).get("encoding")
    best = charset_normalizer.from_bytes(data).best()
    return path, detected, best.encoding if best else None


def decode(data, name):
    """The text `data` holds in encoding `name` as any of the tools spells it, or None."""
    if not name:
        return None
    key = name.lower().replace("_", "-")
    aliases = {"mac-roman": "macintosh", "iso-8859-1": "latin-1", "cp1252": "windows-1252",
               "utf-8-sig": "utf-8", "ascii": "ascii", "us-ascii": "ascii"}
    key = aliases.get(key, key)
    if key.startswith("cp125") and len(key) == 6:
        key = "windows-" + key[2:]
    if key in bench_text.DECODERS:
        return bench_text.decode(data, key)
    try:
        text = data.decode(name)
    except (UnicodeDecodeError, LookupError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


def first_difference(ours, theirs):
    """The first line where two readings differ, as (our line, their line)."""
    for mine, other in zip(ours.splitlines(), theirs.splitlines()):
        if mine != other:
            return mine.strip()[:100], other.strip()[:100]
    return ours[:100], theirs[:100]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shelf", required=True)
    parser.add_argument("--tree", default="/usr/share")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--json", help="write every disagreeing file's answers here")
    args = parser.parse_args()
    paths = walk(args.tree)
    files = file_answers(paths)
    # shelf reads the files `file` calls text and those without a zero byte in their first
    # 8 KiB (text `file` may miss); compressed and other binary files have zeros.
    candidates = [path for path in paths
                  if files.get(path, ("", "binary"))[1] not in ("binary", "") or not has_zero(path)]
    shelf = shelf_answers(args.shelf, candidates)
    textual = [path for path in paths
               if shelf.get(path) in bench_text.DECODERS or files.get(path, ("", "binary"))[1] not in ("binary", "")]
    with ProcessPoolExecutor(max_workers=2) as pool:
        others = {path: (chardet, normalizer)
                  for path, chardet, normalizer in pool.map(python_answers, textual, chunksize=32)}
    classes = collections.defaultdict(list)
    agreeing = 0
    for path in textual:
        data = read(path)
        ours = shelf.get(path)
        our_text = decode(data, ours)
        answers = {"file": files[path][1], "chardet": others[path][0], "normalizer": others[path][1]}
        pattern = []
        for tool, answer in answers.items():
            text = decode(data, answer)
            if our_text is not None and text == our_text:
                pattern.append(f"{tool}=shelf")
            else:
                pattern.append(f"{tool}={(answer or 'none').lower()}{'' if text is not None else '!'}")
        if all(part.endswith("=shelf") for part in pattern):
            agreeing += 1
            continue
        key = f"shelf={ours}{'' if our_text is not None else '!'} " + " ".join(pattern)
        classes[key].append((path, answers))
    disagreeing = sum(len(members) for members in classes.values())
    print(f"{len(textual)} text files under {args.tree} ({len(paths)} files): "
          f"{agreeing} read alike by all four, {disagreeing} not, in {len(classes)} classes")
    print("(`=shelf`: decodes the file to shelf's text; `!`: does not decode the whole file)")
    for key, members in sorted(classes.items(), key=lambda item: -len(item[1])):
        print(f"\n{len(members):6}  {key}")
        for path, answers in members[:args.samples]:
            data = read(path)
            ours = decode(data, shelf.get(path))
            print(f"        {path}")
            for tool, answer in answers.items():
                theirs = decode(data, answer)
                if ours is not None and theirs is not None and theirs != ours:
                    mine, other = first_difference(ours, theirs)
                    print(f"          shelf:  {mine!r}\n          {tool + ':':7} {other!r}")
                    break
    if args.json:
        with open(args.json, "w") as out:
            json.dump({key: [[path, shelf.get(path), answers] for path, answers in members]
                       for key, members in classes.items()}, out, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
