#!/usr/bin/env bash
# libFuzzer targets for shelf's parsers (Fuzz/README.md). Usage:
#   scripts/fuzz.sh build              builds .build/fuzz/release/shelf-fuzz (fuzzer + ASan)
#   scripts/fuzz.sh seeds              derives the seed corpora from SampleMedia and Tests/Fixtures
#   scripts/fuzz.sh replay [FOLDER]    runs every file of Tests/Fixtures/fuzz-regressions once
#                                      (or of FOLDER)
#   scripts/fuzz.sh run [TARGET…]      fuzzes each target (all by default) for FUZZ_SECONDS (60)
#   scripts/fuzz.sh all [TARGET…]      build, seeds, replay, run: what `make fuzz` does
#   scripts/fuzz.sh smoke              the same with FUZZ_SECONDS=3 (default): the `make test` check
#   scripts/fuzz.sh record             moves this machine's run figures into Fuzz/history.tsv
#   scripts/fuzz.sh totals             per target: runs, executions, seconds, best cov and ft
# Each target has its own working corpus (.build/fuzz/corpus/TARGET, kept between runs), seeds
# (.build/fuzz/seeds/TARGET), dictionary (Fuzz/dictionaries) and crash folder
# (.build/fuzz/crashes/TARGET). Fuzzers run under `nice -n 19`, one at a time. The exit status is
# non-zero when a target crashed, hung or ran out of memory; the crasher's path is printed.
# Every run appends its figures to .build/fuzz/stats.tsv; `scripts/fuzz.sh record` adds them to
# Fuzz/history.tsv (committed: the fuzzing time of every session), `scripts/fuzz.sh totals` sums
# both.
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
work=.build/fuzz
binary=$work/release/shelf-fuzz
regressions=Tests/Fixtures/fuzz-regressions
history=Fuzz/history.tsv
seconds=${FUZZ_SECONDS:-60}
# Inputs larger than this are cut to it (seeds) or never generated (libFuzzer's -max_len).
max_len=65536

build() {
  local log=$work/build.log
  mkdir -p "$work"
  # Swift: AddressSanitizer and libFuzzer's coverage (inline counters, PC table, comparisons);
  # C: the same through clang. libFuzzer itself comes from compiler-rt's fuzzer_no_main, as
  # SwiftPM gives the executable a `main` of its own (Fuzz/ShelfFuzz/FuzzMain.swift). Not
  # `--sanitize fuzzer --sanitize address`: swiftc keeps only the last of two -sanitize= flags,
  # and the Swift code ends up without coverage. The linker's "Cannot export local symbol
  # '__asan…'" warnings are harmless (GUIDE §9).
  local runtime
  runtime=$(dirname "$(dirname "$(readlink -f "$(command -v "$swift")")")")/lib/clang
  runtime=$(find "$runtime" -name "libclang_rt.fuzzer_no_main-$(uname -m).a" | head -n 1)
  if [[ -z $runtime ]]; then
    echo "fuzz: the toolchain has no libclang_rt.fuzzer_no_main" >&2
    return 1
  fi
  if ! SHELF_FUZZ=1 nice -n 19 "$swift" build --scratch-path "$work" -c release --product shelf-fuzz \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    -Xcc -fsanitize=fuzzer-no-link,address \
    -Xlinker "$runtime" -Xlinker -lstdc++ \
    >"$log" 2>&1; then
    grep -v "Cannot export local symbol" "$log" | tail -n 40
    echo "fuzz: the build failed (all of it in $log)" >&2
    return 1
  fi
  [[ -x $binary ]] || { echo "fuzz: the build made no $binary" >&2; return 1; }
}

targets() { "$binary" 2>/dev/null | sed -n 's/^targets: //p' | tr ' ' '\n'; }

# Copies the files found (cut to max_len) into the seed folder of `target`.
add_seeds() {
  local target=$1
  shift
  local folder=$work/seeds/$target
  mkdir -p "$folder"
  local file
  for file in "$@"; do
    [[ -f $file ]] || continue
    head -c "$max_len" "$file" >"$folder/$(echo "$file" | tr '/ ' '__')"
  done
}

files() { find SampleMedia Tests/Fixtures -type f \( "$@" \) -not -path "$regressions/*" | sort; }
named() {
  local expression=() pattern
  for pattern in "$@"; do expression+=(-o -iname "$pattern"); done
  files "${expression[@]:1}"
}

seeds() {
  rm -rf "$work/seeds"
  mkdir -p "$work/seeds"
  local all
  mapfile -t all < <(files -size -256k -not -name '*.json')
  add_seeds sniff "${all[@]}"
  add_seeds extract "${all[@]}"
  add_seeds plist $(named '*.plist' '*.mdinfo' '*.mdbackup')
  add_seeds legacy-manifest $(named '*.mdinfo' '*.mdbackup')
  add_seeds image-header $(named '*.png' '*.jpg' '*.gif' '*.webp' '*.tif' '*.tiff' '*.ico' '*.bmp' '*.svg')
  add_seeds exif $(named '*.jpg' '*.webp' '*.tif' '*.tiff' 'coffee-crop.png' 'microaneurysms.png')
  add_seeds heif $(named '*.heic' '*.heif' '*.avif')
  add_seeds tiff $(named '*.tif' '*.tiff')
  add_seeds text $(named '*.txt' '*.md' '*.strings' '*.csv' '*.svg')
  add_seeds mp3 $(named '*.mp3')
  add_seeds amr $(named '*.amr')
  add_seeds wav $(named '*.wav')
  add_seeds mbdb $(named 'Manifest.mbdb')
  add_seeds png-chunks $(named '*.png')
  add_seeds cgbi $(named '*.png')
  add_seeds cue $(named '*.cue')
  add_seeds playlist $(named '*.m3u' '*.m3u8' '*.pls')
  # Seeds no sample file provides, and the backup records that live inside other files.
  python3 - "$work/seeds" <<'EOF'
import glob, os, plistlib, sqlite3, struct, sys, zlib
out = sys.argv[1]

def seed(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)

def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body

# Facts as a worker sends them (WireFormat): strings and lists as an 8-byte length and their
# bytes or elements, integers as 8 bytes, optionals and truth values as a byte.
def w_str(text): return struct.pack("<Q", len(text.encode())) + text.encode()
def w_int(value): return struct.pack("<q", value)
def w_some(data): return b"\x01" + data
NONE = b"\x00"
image = (w_str("png") + w_int(16) + w_int(8) + w_some(w_int(8)) + w_some(w_str("rgba")) + w_some(b"\x01") + NONE
         + NONE + w_some(w_int(2)) + NONE + struct.pack("<Q", 2) + w_str("IHDR") + w_str("IDAT"))
text = w_str("utf-8") + b"\x00" + w_str("lf") + w_int(3) + w_int(7) + w_int(40) + w_str("Hello")
seed("wire", "text.bin", w_str("text") + w_str("text/plain") + w_str("content") + b"\x00"
     + w_some(w_str("cut short") + w_str("badInput")) + NONE + NONE + NONE + NONE + w_some(text) + NONE + w_str("hello"))
seed("wire", "image.bin", w_str("image") + w_str("image/png") + w_str("content") + b"\x01" + NONE
     + w_some(image) + NONE + NONE + NONE + NONE + NONE + w_str(""))
# JPEG 2000: a JP2 file (signature, ftyp, jp2h with ihdr and colr, codestream) and a bare codestream.
siz = b"\xff\x51" + struct.pack(">HHIIIIIIIIH", 41, 0, 16, 8, 0, 0, 16, 8, 0, 0, 3) + b"\x07\x01\x01" * 3
codestream = b"\xff\x4f" + siz + b"\xff\x90" + struct.pack(">HHIBB", 10, 0, 12, 0, 1) + b"\xff\x93\x00\x00\xff\xd9"
jp2 = (box(b"jP  ", b"\r\n\x87\n") + box(b"ftyp", b"jp2 \x00\x00\x00\x00jp2 ")
       + box(b"jp2h", box(b"ihdr", struct.pack(">IIHBBBB", 8, 16, 3, 7, 7, 0, 0)) + box(b"colr", b"\x01\x00\x00\x00\x00\x00\x10"))
       + box(b"jp2c", codestream))
seed("jpeg2000", "tiny.jp2", jp2)
seed("jpeg2000", "tiny.j2k", codestream)
seed("jpeg2000", "xlbox.jp2", jp2[:32] + struct.pack(">I", 1) + b"jp2c" + struct.pack(">Q", 16 + len(codestream)) + codestream)
seed("image-header", "tiny.jp2", jp2)
# TIFF and BigTIFF: one directory with width, height, bits per sample and an EXIF pointer.
def tiff(big):
    entries = [(256, 3, 1, 16), (257, 3, 1, 8), (258, 3, 1, 8), (262, 3, 1, 1), (34665, 4, 1, 0)]
    if big:
        head = b"II+\x00\x08\x00\x00\x00" + struct.pack("<Q", 16)
        ifd = struct.pack("<Q", len(entries)) + b"".join(struct.pack("<HHQQ", *e) for e in entries) + struct.pack("<Q", 0)
    else:
        head = b"II*\x00" + struct.pack("<I", 8)
        ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + struct.pack("<I", 0)
    return head + ifd + bytes(16 * 8)
seed("tiff", "tiny.tif", tiff(False))
seed("tiff", "tiny-big.tif", tiff(True))
seed("image-header", "tiny-big.tif", tiff(True))
# Musepack SV8: the magic, a stream header packet (SH) and an end packet.
sh = b"\x00\x00\x00\x00" + b"\x08" + b"\x82\x00" + b"\x10" + b"\x11\x00"
seed("musepack", "tiny.mpc", b"MPCK" + b"SH" + bytes([2 + 1 + len(sh)]) + sh + b"SE\x03")
# AAC in ADIF (headers by scripts/adif_writer.py: constant and variable bit rate, a copyright
# id, a comment, 1 to 6 channels, then a few raw bytes) and Shorten (scripts/shorten_encoder.py:
# WAV and AIFF headers, 8 and 16 bits, a short last block).
sys.path.insert(0, "scripts")
import adif_writer, shorten_encoder
for channels in range(1, 7):
    head = adif_writer.header(channels % 4, 3 + channels, channels, 1000 * channels, vbr=channels % 2 == 0,
                              copyright=b"shelf" if channels == 3 else None, comment=b"seed" if channels == 5 else b"")
    seed("adif", "tiny-%d.aac" % channels, head + bytes(range(64)))
seed("adif", "id3-ahead.aac", b"ID3\x03\x00\x00\x00\x00\x00\x00" + adif_writer.header(1, 4, 2, 128000))
wave = [[(i * 37) % 200 for i in range(300)], [(i * 11) % 250 for i in range(300)]]
for name, samples, kind, aiff in [("u8", [wave[0]], 2, False), ("s16", wave, 5, False), ("aiff", wave, 3, True)]:
    width = 8 if kind == 2 else 16
    header = (shorten_encoder.aiff_header if aiff else shorten_encoder.wav_header)(22050, len(samples), width, 300)
    seed("shorten", name + ".shn", shorten_encoder.encode(samples, header, kind, 2 + len(samples) % 2, 128))
# WAV and RF64: a plain RIFF and an RF64 whose ds64 gives the data size.
fmt = box(b"fmt ", struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16))[0:4]
fmt = b"fmt " + struct.pack("<I", 16) + struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
data = b"data" + struct.pack("<I", 8) + bytes(8)
seed("wav", "tiny.wav", b"RIFF" + struct.pack("<I", 4 + len(fmt) + len(data)) + b"WAVE" + fmt + data)
ds64 = b"ds64" + struct.pack("<IQQQI", 28, 60, 8, 4, 0)
seed("wav", "tiny-rf64.wav", b"RF64\xff\xff\xff\xffWAVE" + ds64 + fmt + b"data\xff\xff\xff\xff" + bytes(8))
# AMR: narrowband and wideband, two frames each.
seed("amr", "tiny-nb.amr", b"#!AMR\n" + (b"\x3c" + bytes(31)) * 2)
seed("amr", "tiny-wb.amr", b"#!AMR-WB\n" + (b"\x44" + bytes(60)) * 2)
# Other raster headers the sample media lack.
seed("image-header", "tiny.bmp", b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 2, -2, 1, 24, 0, 16, 0, 0, 0, 0) + bytes(16))
seed("image-header", "tiny.qoi", b"qoif" + struct.pack(">II", 2, 2) + b"\x04\x00" + bytes(7) + b"\x01")
seed("image-header", "tiny.psd", b"8BPS\x00\x01" + bytes(6) + struct.pack(">HIIHH", 3, 2, 2, 8, 3) + bytes(12))
seed("image-header", "tiny.tga", bytes([0, 0, 2]) + bytes(9) + struct.pack("<HHBB", 2, 2, 24, 0) + bytes(12))
seed("image-header", "tiny.ppm", b"P6\n2 2\n255\n" + bytes(12))
seed("image-header", "tiny.pam", b"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" + bytes(16))
seed("image-header", "tiny.xpm", b'/* XPM */\nstatic char *x[] = {\n"2 2 1 1",\n"  c None",\n"  ",\n"  "};\n')
seed("image-header", "tiny.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20" viewBox="0 0 10 20"/>')
seed("image-header", "tiny.icns", b"icns" + struct.pack(">I", 8 + 8 + 4) + b"ic07" + struct.pack(">I", 12) + b"\x89PNG")
# The older formats (PCX, DCX, SGI, Sun raster, XBM, DDS, EPS with and without a DOS binary
# header, FITS).
pcx = bytes([10, 5, 1, 8]) + struct.pack("<HHHHHH", 0, 0, 1, 1, 72, 72) + bytes(49) + bytes([3]) + struct.pack("<HH", 2, 1) + bytes(58)
seed("image-header", "tiny.pcx", pcx + bytes(12))
seed("image-header", "tiny.dcx", struct.pack("<III", 0x3ADE68B1, 12, 0) + pcx + bytes(12))
seed("image-header", "tiny.sgi", struct.pack(">HBBHHHH", 474, 0, 1, 3, 2, 2, 3) + bytes(500) + bytes(12))
seed("image-header", "tiny.ras", struct.pack(">8I", 0x59A66A95, 2, 2, 24, 12, 1, 0, 0) + bytes(12))
seed("image-header", "tiny.xbm", b"#define t_width 2\n#define t_height 2\nstatic char t_bits[] = {0x01, 0x02};\n")
seed("image-header", "tiny.dds", b"DDS " + struct.pack("<7I", 124, 0x1007, 2, 2, 8, 0, 0) + bytes(44) + struct.pack("<II", 32, 4) + b"DXT5" + bytes(40))
eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 2.5 2\n%%EndComments\n%ImageData: 2 2 8 3 0 2 1 \"beginimage\"\nshowpage\n%%Trailer\n%%EOF\n"
seed("image-header", "tiny.eps", eps)
seed("image-header", "tiny-dos.eps", struct.pack("<IIIIIIIH", 0xC6D3D0C5, 30, len(eps), 0, 0, 30 + len(eps), 26, 0xFFFF) + eps + tiff(False)[:26])
card = lambda text: text.ljust(80).encode()
seed("image-header", "tiny.fits", b"".join(card(c) for c in ("SIMPLE  =                    T", "BITPIX  =                   16",
     "NAXIS   =                    2", "NAXIS1  =                    2", "NAXIS2  =                    2", "END")).ljust(2880) + bytes(2880))
# HEIF: a primary item of a type libheif 1.15 does not decode (its ispe gives the size), and an
# image sequence's picture track.
full = lambda kind, version, body: box(kind, bytes([version, 0, 0, 0]) + body)
meta = full(b"meta", 0, full(b"hdlr", 0, bytes(4) + b"pict" + bytes(13)) + full(b"pitm", 0, struct.pack(">H", 1))
            + full(b"iinf", 0, struct.pack(">H", 1) + full(b"infe", 2, struct.pack(">HH", 1, 0) + b"unci\0"))
            + box(b"iprp", box(b"ipco", full(b"ispe", 0, struct.pack(">II", 3, 2)) + box(b"irot", b"\x01"))
                  + full(b"ipma", 0, struct.pack(">IHB", 1, 1, 2) + b"\x81\x02")))
seed("heif", "unci.heic", box(b"ftyp", b"heic\0\0\0\0mif1heic") + meta + box(b"mdat", bytes(18)))
entry = box(b"av01", bytes(6) + struct.pack(">H", 1) + bytes(16) + struct.pack(">HH", 4, 3) + bytes(50))
stbl = box(b"stbl", full(b"stsd", 0, struct.pack(">I", 1) + entry) + full(b"stsz", 0, struct.pack(">III", 0, 2, 10) + bytes(8)))
trak = box(b"trak", box(b"mdia", full(b"hdlr", 0, bytes(4) + b"pict" + bytes(13)) + box(b"minf", stbl)))
seed("heif", "sequence.avif", box(b"ftyp", b"avis\0\0\0\0avismsf1") + box(b"moov", trak) + box(b"mdat", bytes(20)))
gif = b"GIF89a" + struct.pack("<HH", 2, 2) + b"\x80\x00\x00" + bytes(6) + b"\x2c" + struct.pack("<HHHH", 0, 0, 2, 2) + b"\x00\x02\x02\x44\x01\x00\x3b"
seed("image-header", "tiny.gif", gif)
# Backups: keybags from Manifest.plist, NSKeyedArchiver file records from Manifest.db, plists.
for path in sorted(glob.glob("SampleMedia/Backups/*/Manifest.plist")):
    with open(path, "rb") as f:
        manifest = plistlib.load(f)
    if "BackupKeyBag" in manifest:
        seed("keybag", path.split("/")[-2] + ".keybag", manifest["BackupKeyBag"])
for path in sorted(glob.glob("SampleMedia/Backups/*/Manifest.db")):
    with open(path, "rb") as f:
        if not f.read(16).startswith(b"SQLite format 3"):
            continue  # an encrypted backup's Manifest.db
    connection = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
    for index, (blob,) in enumerate(connection.execute("SELECT file FROM Files WHERE file IS NOT NULL")):
        seed("manifest-record", "%s-%d.plist" % (path.split("/")[-2], index), blob)
        seed("plist", "%s-%d.plist" % (path.split("/")[-2], index), blob)
    connection.close()
for name, value in [("dict", {"a": [1, 2.5, True, b"\x00", "é"], "n": -1}), ("array", [{"k": "v"}] * 3)]:
    seed("plist", name + ".bplist", plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
    seed("plist", name + ".xml", plistlib.dumps(value))
# CUE sheets (EAC-style, several FILEs, Windows-1252) and lists (the first byte picks M3U, M3U8
# or PLS).
eac = ('REM GENRE Rock\r\nREM DATE 1999\r\nREM DISCID 860B640B\r\nREM COMMENT "ExactAudioCopy v1.0"\r\n'
       'CATALOG 0724384960650\r\nPERFORMER "The Band"\r\nTITLE "Live"\r\nFILE "Live.wav" WAVE\r\n'
       '  TRACK 01 AUDIO\r\n    TITLE "One"\r\n    FLAGS DCP PRE\r\n    ISRC USABC9900001\r\n    INDEX 01 00:00:00\r\n'
       '  TRACK 02 AUDIO\r\n    TITLE "Two"\r\n    PERFORMER "Guest"\r\n    INDEX 00 04:10:20\r\n    INDEX 01 04:12:00\r\n'
       '  TRACK 03 MODE1/2352\r\n    PREGAP 00:02:00\r\n    INDEX 01 09:00:74\r\n')
seed("cue", "eac.cue", b"\xef\xbb\xbf" + eac.encode())
seed("cue", "files.cue", b'FILE "01.flac" FLAC\nTRACK 1 AUDIO\nINDEX 01 00:00:00\nTRACK 2 AUDIO\nINDEX 00 03:00:00\n'
     b'FILE "02.flac" FLAC\nINDEX 01 00:00:00\nPOSTGAP 00:01:00\n')
seed("cue", "cp1252.cue", 'PERFORMER "Beyoncé"\nTITLE "Déjà vu"\nFILE Café del Mar.wav WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n'.encode("cp1252"))
m3u = "#EXTM3U\n#EXTINF:123,Artist - Title\nMusic/a.flac\n#EXTINF:-1 tvg-id=\"x\",Radio\nhttp://example.com/s.mp3\nfile:///music/b%20c.ogg\nC:\\Music\\d.mp3\n"
seed("playlist", "list.m3u", b"\x00" + m3u.encode())
seed("playlist", "list-sjis.m3u", b"\x00" + "#EXTINF:200,東京事変 - 群青日和\n音楽/群青日和.mp3\n".encode("shift_jis"))
seed("playlist", "list.m3u8", b"\x01\xef\xbb\xbf" + m3u.encode())
seed("playlist", "list.pls", b"\x02[playlist]\r\nFile1=a.mp3\r\nTitle1=A\r\nLength1=61\r\nFile2=../b.ogg\r\nNumberOfEntries=2\r\nVersion=2\r\n")
seed("playlist", "list-utf16.pls", b"\x02" + "[playlist]\nFile1=é.mp3\n".encode("utf-16"))
# Catalogue queries (arguments separated by zero bytes) and globs (flags, pattern, subjects).
queries = [
    "kind:image width:>1000", "size:>1M\0ext:png,jpg", "taken:2024-06", "modified:<7d\0-error:*",
    "name:*.PNG\0path:Documents/**", "duration:1m..2m bitrate:>=256k", "key:CFBundleIdentifier",
    "(artist:abba OR album:gold) -genre:pop", "gps:yes lat:>59.3 lon:<18.1", "live_photo:yes",
    "sort:size\0order:desc", "mtime:2023-01-01..2023-12-31T23:59", "lines:>100 words:<1e3",
]
for index, query in enumerate(queries):
    seed("query", "query-%d" % index, query.encode())
globs = ["\x00*.png\x00a.png\x00b/c.png", "\x01[A-Z]?x\x00Abx", "\x00[!a-c]*\x00dog", "\x02a*b\x00a*b",
         "\x01**/\xc3\xa9t\xc3\xa9\x00x/\xc3\x89T\xc3\x89", "\x00[[:alpha:]]\\*\x00q*"]
for index, pattern in enumerate(globs):
    seed("glob", "glob-%d" % index, pattern.encode("latin-1"))
# The 7-bit encodings and the DOS code pages, which no sample file is in.
texts = [("utf-7", "Привет, мир! café +- naïve\n"), ("hz", "中文 ~ and 今天天气很好\n"),
         ("cp775", "Rīgā šodien ir silts laiks\n"), ("cp1125", "Привіт! Їжачок ґречно їсть\n")]
for codec, text in texts:
    seed("text", "text-" + codec, text.encode(codec))
    seed("sniff", "text-" + codec, text.encode(codec))
EOF
  # The catalogue's field names, for the query dictionary: the ones the shells complete, from the
  # debug build `make test` has made (none when it is missing; the dictionary only helps).
  : >"$work/query.dict"
  if [[ -x .build/debug/shelf ]]; then
    .build/debug/shelf completions bash | sed -n 's/^_shelf_fields="\(.*\)"$/\1/p' | tr ' ' '\n' |
      sed 's/.*/"&:"/' >"$work/query.dict"
  fi
  printf '%s\n' '"OR"' '"AND"' '"NOT"' '"("' '")"' '".."' '">="' '"<="' '"sort:"' '"order:"' '","' '",,"' \
    '"\xe4\xba\xac\xe9\x83\xbd"' '"\xce\xac"' \
    '"yes"' '"no"' '"1d"' '"2024-06-01T12:00"' >>"$work/query.dict"
  local target count
  for target in $(targets); do
    count=$(find "$work/seeds/$target" -type f 2>/dev/null | wc -l)
    if ((count == 0)); then echo "fuzz: no seeds for $target" >&2; fi
  done
}

dictionary() {
  case $1 in
    plist | legacy-manifest | manifest-record) echo Fuzz/dictionaries/plist.dict ;;
    png-chunks | cgbi) echo Fuzz/dictionaries/png.dict ;;
    heif) echo Fuzz/dictionaries/heif.dict ;;
    jpeg2000) echo Fuzz/dictionaries/jpeg2000.dict ;;
    tiff | exif) echo Fuzz/dictionaries/tiff.dict ;;
    wav) echo Fuzz/dictionaries/wav.dict ;;
    cue | playlist) echo Fuzz/dictionaries/playlist.dict ;;
    mp3) echo Fuzz/dictionaries/mp3.dict ;;
    adif | shorten) echo Fuzz/dictionaries/adif-shorten.dict ;;
    mbdb | keybag) echo Fuzz/dictionaries/backup.dict ;;
    query) echo "$work/query.dict" ;;
  esac
}

# Runs every regression file (of FOLDER, default Tests/Fixtures/fuzz-regressions) once through
# its target; fails when one still crashes.
replay() {
  local status=0 folder target files root=${1:-$regressions}
  for folder in "$root"/*/; do
    [[ -d $folder ]] || continue
    target=$(basename "$folder")
    mapfile -t files < <(find "$folder" -type f -not -name '*.md' | sort)
    ((${#files[@]})) || continue
    if ! SWIFT_BACKTRACE=enable=no "$binary" "$target" -runs=1 "${files[@]}" >"$work/replay-$target.log" 2>&1; then
      echo "fuzz: a regression input of $target crashes again (see $work/replay-$target.log):"
      grep -m1 "Running: \|ERROR:\|Fatal error\|==ERROR" "$work/replay-$target.log" || true
      tail -n 3 "$work/replay-$target.log"
      status=1
    fi
  done
  echo "fuzz: replayed $(find "$root" -type f -not -name '*.md' 2>/dev/null | wc -l) regression inputs of $root"
  return $status
}

# Sets `cpu_seconds` to the CPU seconds (user + system) used so far by this shell's finished
# children, from `times`: what a fuzzer really ran, where wall seconds also count the time it
# waited for a core. (`times` counts in the shell itself only: a pipeline or a command
# substitution runs it in a fork that has no children yet.)
children_cpu() {
  times >"$work/times.$$"
  cpu_seconds=$(tail -n 1 "$work/times.$$" | awk '{ total = 0
    for (i = 1; i <= 2; i++) { split($i, part, /[ms]/); total += part[1] * 60 + part[2] }
    printf "%d", total }')
}

run() {
  local status=0 target
  local list=("$@")
  if ((${#list[@]} == 0)); then mapfile -t list < <(targets); fi
  printf '%-16s %10s %7s %7s %5s %5s  %s\n' target execs cov ft secs cpu crashes
  for target in "${list[@]}"; do
    local corpus=$work/corpus/$target crashes=$work/crashes/$target log=$work/logs/$target.log
    mkdir -p "$corpus" "$crashes" "$work/logs" "$work/seeds/$target"
    local options=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=$max_len
      -print_final_stats=1 -artifact_prefix="$crashes/")
    local dict
    dict=$(dictionary "$target")
    if [[ -n $dict ]]; then options+=(-dict="$dict"); fi
    local started=$SECONDS cpu_seconds cpu_before
    children_cpu
    cpu_before=$cpu_seconds
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1} \
      nice -n 19 "$binary" "$target" "${options[@]}" "$corpus" "$work/seeds/$target" >"$log" 2>&1
    local code=$? elapsed=$((SECONDS - started)) cpu
    children_cpu
    cpu=$((cpu_seconds - cpu_before))
    local execs cov ft
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    local artifact
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    local found=0
    if ((code != 0)); then found=1; fi
    printf '%-16s %10s %7s %7s %5s %5s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$elapsed" \
      "$cpu" "$( ((found)) && echo "CRASH ${artifact:-(no artifact: see $log)}" || echo 0)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%FT%T)" "$target" "${execs:-0}" "${cov:-0}" \
      "${ft:-0}" "$elapsed" "$found" "$cpu" >>"$work/stats.tsv"
    if ((found)); then
      # The reason, and the first frame in shelf's own code.
      { grep -m1 "Fatal error\|runtime failure" "$log" || grep -m1 "==ERROR\|ERROR: libFuzzer" "$log"; } |
        sed 's/^ */    /'
      grep -m1 "^ *#[0-9].* in .*/\(Sources\|Fuzz\)/" "$log" | sed 's/^ */    /'
      status=1
    fi
  done
  return $status
}

# Adds this machine's run figures to the committed history (once: they leave stats.tsv).
record() {
  [[ -s $work/stats.tsv ]] || { echo "fuzz: no runs to record" >&2; return 0; }
  cat "$work/stats.tsv" >>"$history"
  : >"$work/stats.tsv"
  echo "fuzz: recorded in $history"
}

# The figures of every run so far (the history and this machine's), per target: runs,
# executions, the best cov and ft, wall seconds, and CPU seconds of the runs that measured
# them (rows recorded before 2026-12-01T20:00 have no CPU column; `cpu runs` counts those
# that do).
totals() {
  printf '%-16s %5s %12s %7s %7s %7s %7s %8s %7s\n' target runs execs cov ft secs cpu "cpu runs" crashes
  awk -F'\t' '{ runs[$2]++; execs[$2] += $3; secs[$2] += $6; crashes[$2] += $7
      if (NF >= 8) { cpu[$2] += $8; cpuRuns[$2]++ }
      if ($4 > cov[$2]) cov[$2] = $4; if ($5 > ft[$2]) ft[$2] = $5 }
    END { for (t in runs) printf "%-16s %5d %12d %7d %7d %7d %7d %8d %7d\n", t, runs[t], execs[t], cov[t], ft[t], secs[t], cpu[t], cpuRuns[t], crashes[t] }' \
    "$history" "$work/stats.tsv" 2>/dev/null | sort -k1,1
}

command=${1:-all}
shift || true
case $command in
  build) build ;;
  seeds) seeds ;;
  replay) replay "$@" ;;
  run) run "$@" ;;
  totals) totals ;;
  record) record ;;
  all | smoke)
    if [[ $command == smoke ]]; then seconds=${FUZZ_SECONDS:-3}; fi
    started=$SECONDS
    build || exit 1
    seeds
    status=0
    replay || status=1
    run "$@" || status=1
    echo "fuzz: $((SECONDS - started)) s in all"
    exit $status
    ;;
  *)
    echo "usage: scripts/fuzz.sh build|seeds|replay|run [TARGET…]|all [TARGET…]|smoke|record|totals" >&2
    exit 64
    ;;
esac
