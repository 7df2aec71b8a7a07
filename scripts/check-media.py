#!/usr/bin/env python3
"""Audio and video facts: `shelf info --json` against ffprobe and mediainfo, per field and format.

    python3 scripts/check-media.py [--shelf .build/release/shelf] [--work DIR] [--only CLASS,...]

The corpus is made by other programs or shipped by Debian and PyPI packages, one class per
container family shelf claims (at least 30 files each, none dropped):
  tta      True Audio written by ffmpeg (rates, channels, bit depths, lengths)
  realmedia  RealMedia written by ffmpeg: RealVideo 1/2 with AC-3, audio-only AC-3 and RealAudio 14.4
  dv       DV written by ffmpeg (PAL and NTSC, 4:3 and 16:9, with and without sound)
  flv      FLV written by ffmpeg (Sorenson Spark and H.264, MP3 and AAC sound)
  mpegts   MPEG-TS and M2TS written by ffmpeg (MPEG-2 and H.264 video, MP2, AAC and AC-3 sound)
  avi      AVI written by ffmpeg (MPEG-4 Part 2, MJPEG, raw video; MP3 and PCM sound), a third
           with the header's frame counts blanked (the length is the index's)
  ogg-av   Ogg with Theora and Vorbis of different lengths, by ffmpeg, and mutagen's Theora files
  asf      WMV and WMA written by ffmpeg (WMV 7/8, WMA 1/2), and mutagen's WMA files
  latm     AAC in LOAS/LATM written by ffmpeg
  id3-ahead  FLAC (ffmpeg), WAV (sox) and Musepack (mpcenc) with an ID3v2 tag written before them
           by mutagen, small and with a cover larger than the sniffed prefix
  module   tracker modules (MOD, S3M, XM, IT) shipped by Debian's pingus-data, tecnoballz-data and
           njam-data
  qt-date  QuickTime movies by ffmpeg whose Keys:CreationDate exiftool wrote (with offsets): the
           `taken` time against exiftool's
  adif     AAC in ADIF: real music (Debian's tracker modules, rendered by ffmpeg) and speech
           (espeak-ng) encoded by ffmpeg's AAC encoder (LC, Main, LTP; 1 to 6 channels; 8 to
           96 kHz; constant and variable bit rate headers) and re-wrapped from ADTS into ADIF by
           scripts/adif_writer.py (no Debian program writes ADIF), each decoded by faad to check
           it; and mutagen's adif.aac
  shorten  Shorten, the same real sound written by scripts/shorten_encoder.py (no Debian or PyPI
           program writes Shorten): mono and stereo, 8 and 16 bits, 8 to 96 kHz, WAV and AIFF
           headers, versions 2 and 3, several block sizes; `ffmpeg -f s16le` must decode each to
           exactly the samples it was made from
Mutagen's DSDIFF and TAK files (its sdist, from PyPI) are read too and shown apart: no program
in Debian writes them, so those classes have fewer than 30 files and are not claimed.

ADIF has no reader in FFmpeg: its fields are checked against mediainfo (kind, rate, channels,
codec, and the length of a constant bit rate stream: the file's bytes at the header's bit rate)
and mutagen (rate, channels, length: the bytes after the header at that rate); where mediainfo
gives no length (a variable bit rate header, whose rate is the peak) faad's `-i` length less the
half second it adds (it rounds to whole seconds with `+ 0.5` but prints the fraction). Shorten's
length, which neither ffprobe nor mediainfo gives, is checked against the samples the file was
made from.

Fields: kind and MIME family (video when a reference sees a picture stream that is not cover art),
duration (within 0.05 s or 1 %; where a file declares none, its packets' added up; Musepack's
what mpcdec decodes), sample rate, channels, codec (ffprobe's name; mediainfo names
codecs otherwise), width, height and frame rate (within 0.01) of video. A field is checked on a
file when ffprobe reports it and mediainfo agrees or says nothing, and a length that only
mediainfo reports of a file ffprobe reads is checked against mediainfo (a third of the AVIs have their header's frame counts blanked, as a writer that never finalised
them leaves them: ffprobe then gives no length, mediainfo the index's); where the references
disagree the file is left out of that field (counted). Exits 1 when a claimed class is under 99.5 % on any field or
has fewer than 30 files.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import adif_writer  # noqa: E402  (ours: no Debian program writes ADIF)
import shorten_encoder  # noqa: E402  (ours: nothing in Debian or PyPI writes Shorten)
TARGET = 99.5
MINIMUM = 30
MODULE_FOLDERS = ["/usr/share/games/pingus/data/music", "/usr/share/games/tecnoballz/musics",
                  "/usr/share/games/njam/data"]


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def ffmpeg(*args):
    result = run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + list(args))
    if result.returncode != 0:
        raise SystemExit("check-media: ffmpeg %s failed: %s" % (" ".join(args), result.stderr.decode()[-300:]))


def tone(seconds, rate=44100, channels=1, freq=440):
    """An ffmpeg input of a sine tone (lavfi), `channels` channels."""
    source = "sine=f=%d:r=%d:d=%s" % (freq, rate, seconds)
    if channels == 1:
        return ["-f", "lavfi", "-i", source]
    return ["-f", "lavfi", "-i", source, "-af", "pan=%dc|%s" % (channels, "|".join(
        "c%d=c0" % i for i in range(channels)))]


def picture(seconds, size, rate):
    return ["-f", "lavfi", "-i", "testsrc=d=%s:s=%s:r=%s" % (seconds, size, rate)]


def av_inputs(seconds, size, fps, audio_seconds=None, rate=44100, channels=1):
    """ffmpeg arguments for a test picture and a tone (channels through -ac)."""
    args = picture(seconds, size, fps) + ["-f", "lavfi", "-i", "sine=r=%d:d=%s" % (rate, audio_seconds or seconds)]
    return args + ["-ac", str(channels)]


def make_tta(folder):
    rates = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000]
    formats = ["s16", "u8", "s32"]
    for i in range(30):
        path = os.path.join(folder, "tone-%02d.tta" % i)
        ffmpeg(*tone(0.3 + i * 0.27, rates[i % len(rates)], 1 + i % 3), "-sample_fmt", formats[i % 3], "-c:a", "tta",
               path)


def make_realmedia(folder):
    for i in range(30):
        kind = i % 3
        path = os.path.join(folder, "clip-%02d.%s" % (i, "rm" if kind < 2 else "ra"))
        seconds = 0.5 + i * 0.2
        if kind == 0:
            ffmpeg(*av_inputs(seconds, ["320x240", "176x144", "352x288"][i % 3], [10, 15, 25][i % 3], channels=1 + i % 2),
                   "-c:v", "rv10", "-c:a", "ac3", "-f", "rm", path)
        elif kind == 1:
            ffmpeg(*av_inputs(seconds, ["320x240", "640x480"][i % 2], [12, 24, 25][i % 3], rate=48000),
                   "-c:v", "rv20", "-an" if i % 2 else "-c:a", *([] if i % 2 else ["ac3"]), "-f", "rm", path)
        else:
            ffmpeg(*tone(seconds, 8000), "-c:a", "real_144", "-f", "rm", path)


def make_dv(folder):
    for i in range(30):
        path = os.path.join(folder, "tape-%02d.dv" % i)
        pal = i % 2 == 0
        seconds = 0.2 + (i % 6) * 0.12
        size, fps = ("720x576", 25) if pal else ("720x480", "30000/1001")
        args = picture(seconds, size, fps)
        if i % 5 != 4:
            args += ["-f", "lavfi", "-i", "sine=r=48000:d=%s" % seconds, "-ac", "2"]
        ffmpeg(*args, "-target", "pal-dv" if pal else "ntsc-dv", *(["-aspect", "16:9"] if i % 3 == 0 else []),
               *(["-an"] if i % 5 == 4 else []), path)


def make_flv(folder):
    for i in range(30):
        path = os.path.join(folder, "stream-%02d.flv" % i)
        video = ["flv1", "libx264"][i % 2]
        audio = ["libmp3lame", "aac"][(i // 2) % 2]
        rate = [44100, 22050, 44100, 11025][i % 4] if audio == "libmp3lame" else [44100, 48000][i % 2]
        ffmpeg(*av_inputs(0.5 + i * 0.15, ["320x240", "426x240", "640x360"][i % 3], [15, 24, 25, 30][i % 4],
                          rate=rate, channels=1 + i % 2),
               "-c:v", video, "-c:a", audio, *(["-pix_fmt", "yuv420p"] if video == "libx264" else []), path)


def make_mpegts(folder):
    for i in range(30):
        m2ts = i % 2 == 1
        path = os.path.join(folder, "broadcast-%02d.%s" % (i, "m2ts" if m2ts else "ts"))
        video = ["mpeg2video", "libx264"][(i // 2) % 2]
        audio = ["mp2", "aac", "ac3"][i % 3]
        ffmpeg(*av_inputs(1 + i * 0.1, ["320x240", "704x576", "640x360"][i % 3], [25, 30, 24][i % 3], rate=48000,
                          channels=1 + i % 2),
               "-c:v", video, "-c:a", audio, *(["-pix_fmt", "yuv420p"] if video == "libx264" else []),
               "-f", "mpegts", *(["-mpegts_m2ts_mode", "1"] if m2ts else []), path)


def blank_avi_lengths(path):
    """Zeroes an AVI's frame counts (avih's dwTotalFrames, each strh's dwLength), as a writer
    that never went back to fill its headers in leaves them: only the index then gives the length."""
    data = bytearray(open(path, "rb").read())
    at = data.find(b"avih")
    data[at + 24:at + 28] = bytes(4)
    at = data.find(b"strh")
    while at >= 0:
        data[at + 40:at + 44] = bytes(4)
        at = data.find(b"strh", at + 4)
    open(path, "wb").write(data)


def make_avi(folder):
    for i in range(30):
        path = os.path.join(folder, "camera-%02d.avi" % i)
        video = ["mpeg4", "mjpeg", "rawvideo", "msmpeg4"][i % 4]
        audio = ["libmp3lame", "pcm_s16le", "pcm_u8"][i % 3]
        size = ["160x120", "320x240", "176x144"][i % 3]
        ffmpeg(*av_inputs(0.4 + i * 0.2, size, [10, 15, 25, 30][i % 4], rate=[44100, 22050, 48000][i % 3],
                          channels=1 + i % 2),
               "-c:v", video, "-c:a", audio, *(["-pix_fmt", "yuv420p"] if video == "mjpeg" else []), path)
        if i % 3 == 2:
            blank_avi_lengths(path)


def make_ogg_av(folder):
    for i in range(30):
        path = os.path.join(folder, "film-%02d.ogv" % i)
        video_seconds = 0.6 + i * 0.15
        audio_seconds = video_seconds + [-0.4, 0.5, 1.2, 0][i % 4]
        ffmpeg(*av_inputs(video_seconds, ["320x240", "160x120"][i % 2], [15, 25][i % 2], audio_seconds=audio_seconds,
                          rate=[44100, 48000, 22050][i % 3], channels=1 + i % 2),
               "-c:v", "libtheora", "-c:a", "libvorbis", path)


def make_asf(folder):
    for i in range(30):
        audio_only = i % 5 == 4
        path = os.path.join(folder, "media-%02d.%s" % (i, "wma" if audio_only else "wmv"))
        audio = ["wmav2", "wmav1"][i % 2]
        if audio_only:
            ffmpeg(*tone(0.5 + i * 0.2, [44100, 22050][i % 2], 1 + i % 2), "-c:a", audio, path)
        else:
            ffmpeg(*av_inputs(0.5 + i * 0.2, ["320x240", "640x480", "176x144"][i % 3], [15, 25, 30][i % 3],
                              rate=[44100, 22050, 32000][i % 3], channels=1 + i % 2),
                   "-c:v", ["wmv2", "wmv1"][i % 2], "-c:a", audio, path)


def make_latm(folder):
    for i in range(30):
        path = os.path.join(folder, "dvb-%02d.latm" % i)
        ffmpeg(*tone(0.3 + i * 0.25, [48000, 44100, 32000, 24000, 22050, 16000][i % 6], 1 + i % 2), "-c:a", "aac",
               "-f", "latm", path)


def make_id3_ahead(folder):
    from mutagen.id3 import ID3, TIT2, TPE1, APIC  # PyPI's mutagen writes the tags
    sox_ok = shutil.which("sox") is not None
    for i in range(30):
        kind = ["flac", "wav", "mpc"][i % 3]
        path = os.path.join(folder, "tagged-%02d.%s" % (i, kind))
        seconds = 0.5 + i * 0.2
        if kind == "flac":
            ffmpeg(*tone(seconds, [44100, 48000, 96000][i % 3], 1 + i % 2), "-c:a", "flac", path)
        elif kind == "wav" and sox_ok:
            subprocess.run(["sox", "-n", "-r", str([8000, 44100, 22050][i % 3]), "-c", str(1 + i % 2), "-b", "16",
                            path, "synth", str(seconds), "sine", "330"], check=True)
        else:
            wav = path + ".wav"
            ffmpeg(*tone(seconds, 44100, 2), wav)
            subprocess.run(["mpcenc", "--silent", "--overwrite", wav, path], check=True)
            os.remove(wav)
        tag = ID3()
        tag.add(TIT2(encoding=3, text="Tagged %d" % i))
        tag.add(TPE1(encoding=3, text="Somebody"))
        if i % 2 == 1:
            # A cover larger than the 8 KiB shelf sniffs first.
            tag.add(APIC(encoding=3, mime="image/jpeg", type=3, desc="", data=bytes(range(256)) * (40 + i)))
        tag.save(path)


def make_qt_dates(folder):
    offsets = ["+02:00", "-07:00", "+05:30", "+00:00", "-03:30", "+09:00"]
    for i in range(30):
        path = os.path.join(folder, "phone-%02d.mov" % i)
        date = "20%02d-%02d-%02dT%02d:%02d:%02d" % (10 + i % 15, 1 + i % 12, 1 + i % 28, i % 24, (i * 7) % 60,
                                                   (i * 13) % 60)
        offset = offsets[i % len(offsets)]
        if i % 2 == 0:
            # As an iPhone writes it: Apple's key with a fraction and a +hhmm offset, and the
            # container's own UTC creation time.
            ffmpeg(*av_inputs(0.5, "320x240", 30), "-c:v", "mpeg4", "-c:a", "aac", "-movflags", "use_metadata_tags",
                   "-metadata", "com.apple.quicktime.creationdate=%s.%03d%s" % (date, i * 31, offset.replace(":", "")),
                   "-metadata", "creation_time=2001-02-03T04:05:06Z", path)
            continue
        ffmpeg(*av_inputs(0.5, "320x240", 30), "-c:v", "mpeg4", "-c:a", "aac", path)
        args = ["exiftool", "-q", "-overwrite_original", "-Keys:CreationDate=" + date.replace("-", ":") + offset]
        if i % 3 == 0:
            # The container's own (UTC) date too: the Apple date must still win.
            args.append("-QuickTime:CreateDate=2001:02:03 04:05:06")
        subprocess.run(args + [path], check=True)


SPEECH = [
    "The quick brown fox jumps over the lazy dog, and the dog does not mind at all.",
    "Old formats do not die: they wait in the corners of hard disks until somebody catalogues them.",
]


def real_audio(work):
    """Real sound to encode, made once: music (tracker modules Debian's games ship, rendered by
    ffmpeg's libopenmpt at 48 kHz stereo) and speech (espeak-ng at 22.05 kHz mono)."""
    folder = os.path.join(work, "sources")
    done = os.path.join(folder, ".done")
    if not os.path.exists(done):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        modules = ["/usr/share/games/pingus/data/music/pingus-1.it", "/usr/share/games/tecnoballz/musics/area1-game.mod",
                   "/usr/share/games/njam/data/satisfy.xm", "/usr/share/games/pingus/data/music/gd-ite.it"]
        for index, module in enumerate(m for m in modules if os.path.exists(m)):
            ffmpeg("-i", module, "-t", "14", "-ar", "48000", "-ac", "2", "-c:a", "pcm_s16le",
                   os.path.join(folder, "music-%d.wav" % index))
        if shutil.which("espeak-ng"):
            for index, passage in enumerate(SPEECH):
                subprocess.run(["espeak-ng", "-v", "en", "-s", "150", "-w", os.path.join(folder, "speech-%d.wav" % index),
                                passage], check=True)
        open(done, "w").close()
    sources = sorted(glob.glob(os.path.join(folder, "*.wav")))
    if not sources:
        raise SystemExit("check-media: no real sound to encode (scripts/setup.sh installs pingus-data and espeak-ng)")
    return sources


def faad_decodes(path, rate, channels):
    """True when faad decodes the file to `channels` channels at `rate` (or twice it: faad assumes
    implicit SBR in AAC of 24 kHz or less; and mono comes out as two channels, as faad makes
    room for implicit parametric stereo)."""
    out = path + ".faad.wav"
    result = run(["faad", "-q", "-o", out, path])
    try:
        if result.returncode != 0 or not os.path.exists(out):
            return False
        decoded = ffprobe_facts(out) or {}
        return (decoded.get("channels") in (channels, 2 if channels == 1 else channels)
                and decoded.get("sample_rate") in (rate, 2 * rate) and (decoded.get("duration") or 0) > 0)
    finally:
        if os.path.exists(out):
            os.remove(out)


def make_adif(folder):
    sources = real_audio(os.path.dirname(folder))
    rates = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000, 12000]
    profiles = ["aac_low", "aac_main", "aac_ltp"]
    truths = {}
    for i in range(32):
        channels = 1 + i % 6
        path = os.path.join(folder, "stream-%02d.aac" % i)
        adts = path + ".adts"
        layout = ["-af", "pan=3.0|FL=c0|FR=c1|FC=c0"] if channels == 3 else ["-ac", str(channels)]
        bitrate = [24, 32, 48, 64, 96][i % 5] * 1000 * min(channels, 3)
        ffmpeg("-ss", str(i % 5), "-i", sources[i % len(sources)], "-t", str(0.4 + i * 0.37), *layout,
               "-ar", str(rates[i % len(rates)]), "-c:a", "aac", "-strict", "-2", "-profile:a", profiles[i % 3],
               "-b:a", str(bitrate), "-f", "adts", adts)
        with open(adts, "rb") as f:
            data, facts = adif_writer.rewrap(f.read(), vbr=i % 4 == 3, copyright=b"shelf %d" % i if i % 5 == 0 else None,
                                             comment=b"check-media" if i % 7 == 0 else b"")
        os.remove(adts)
        with open(path, "wb") as f:
            f.write(data)
        if not faad_decodes(path, facts["sample_rate"], channels):
            raise SystemExit("check-media: faad does not decode %s" % path)
        truths[os.path.basename(path)] = facts
    with open(os.path.join(folder, ".truth.json"), "w") as f:
        json.dump(truths, f)


def make_shorten(folder):
    sources = real_audio(os.path.dirname(folder))
    rates = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 96000]
    truths = {}
    for i in range(32):
        bits = 8 if i % 4 == 1 else 16
        aiff = bits == 16 and i % 3 == 2
        path = os.path.join(folder, "lossless-%02d.shn" % i)
        raw, rate, channels = path + ".raw", rates[i % len(rates)], 1 + i % 2
        sample_format = "u8" if bits == 8 else "s16le"
        ffmpeg("-ss", str(i % 4), "-i", sources[i % len(sources)], "-t", str(0.2 + i * 0.25), "-ac", str(channels),
               "-ar", str(rate), "-f", sample_format, raw)
        with open(raw, "rb") as f:
            samples = f.read()
        os.remove(raw)
        stream, facts = shorten_encoder.encode_pcm(samples, rate, channels, bits, aiff=aiff, version=2 + i % 2,
                                                   blocksize=[256, 128, 1024, 4096, 300][i % 5])
        with open(path, "wb") as f:
            f.write(stream)
        # FFmpeg is the independent reader: it must give back exactly the samples encoded.
        decoded = run(["ffmpeg", "-v", "error", "-i", path, "-f", sample_format, "-"])
        if decoded.returncode != 0 or decoded.stdout != samples:
            raise SystemExit("check-media: ffmpeg does not decode %s to the samples it was made from" % path)
        truths[os.path.basename(path)] = facts
    with open(os.path.join(folder, ".truth.json"), "w") as f:
        json.dump(truths, f)


MAKERS = {
    "tta": make_tta, "realmedia": make_realmedia, "dv": make_dv, "flv": make_flv, "mpegts": make_mpegts,
    "avi": make_avi, "ogg-av": make_ogg_av, "asf": make_asf, "latm": make_latm, "id3-ahead": make_id3_ahead,
    "qt-date": make_qt_dates, "adif": make_adif, "shorten": make_shorten,
}


def mutagen_data(work):
    """Mutagen's test files (its sdist from PyPI), unpacked once."""
    target = os.path.join(work, "mutagen")
    if not os.path.isdir(target):
        download = os.path.join(work, "sdist")
        os.makedirs(download, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", download, "mutagen==1.48.1"], check=True)
        with tarfile.open(glob.glob(os.path.join(download, "mutagen-*.tar.gz"))[0]) as archive:
            members = [m for m in archive.getmembers() if "/tests/data/" in m.name and m.isfile()]
            archive.extractall(download, members=members)
        os.rename(glob.glob(os.path.join(download, "mutagen-*/tests/data"))[0], target)
    return target


def corpus(work, only):
    """{class: [paths]}, made (once) under `work`."""
    classes = {}
    for name, make in MAKERS.items():
        if only and name not in only:
            continue
        folder = os.path.join(work, name)
        done = os.path.join(folder, ".done")
        if not os.path.exists(done):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            make(folder)
            open(done, "w").close()
        classes[name] = sorted(os.path.join(folder, f) for f in os.listdir(folder) if not f.startswith("."))
    data = mutagen_data(work) if not only or {"ogg-av", "asf", "tta", "dsdiff", "tak", "adif"} & set(only) else None
    extra = {"ogg-av": "*.oggtheora", "asf": "*.wma", "tta": "*.tta", "dsdiff": "*.dff", "tak": "*.tak",
             "adif": "adif.aac"}
    for name, pattern in extra.items():
        if data and (not only or name in only):
            classes.setdefault(name, []).extend(sorted(glob.glob(os.path.join(data, pattern))))
    if not only or "module" in only:
        classes["module"] = sorted(p for folder in MODULE_FOLDERS for p in glob.glob(os.path.join(folder, "*"))
                                   if p.lower().endswith((".mod", ".s3m", ".xm", ".it")))
    return classes


# --- the references ---------------------------------------------------------------------------

def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def ratio(value):
    if not value or value in ("0/0", "N/A"):
        return None
    if "/" in value:
        num, den = value.split("/")
        return float(num) / float(den) if float(den) else None
    return number(value)


def ffprobe_facts(path):
    result = run(["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
    if result.returncode != 0:
        return None
    data = json.loads(result.stdout or b"{}")
    streams = data.get("streams", [])
    video = [s for s in streams if s.get("codec_type") == "video" and not s.get("disposition", {}).get("attached_pic")]
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    if not video and not audio:
        return None
    facts = {"kind": "video" if video else "audio"}
    fmt = data.get("format", {})
    durations = [number(s.get("duration")) for s in video + audio]
    durations = [d for d in durations if d]
    facts["duration"] = number(fmt.get("duration")) or (max(durations) if durations else None)
    if facts["duration"] is None and audio and not video:
        # A file that declares no length (raw LATM, RealAudio 14.4 from ffmpeg): its packets'
        # durations added up.
        packets = run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=duration_time",
                       "-of", "csv=p=0", path])
        facts["duration"] = sum(number(line) or 0 for line in packets.stdout.decode().split()) or None
    if fmt.get("format_name") == "mpc8" and shutil.which("mpcdec"):
        # Musepack's length is what the reference decoder yields: FFmpeg's mpc8 demuxer keeps
        # whole frames, and misjudges the length behind an ID3 tag.
        wav = path + ".decoded.wav"
        if run(["mpcdec", path, wav]).returncode == 0:
            facts["duration"] = (ffprobe_facts(wav) or {}).get("duration")
            os.remove(wav)
    if audio:
        facts["sample_rate"] = int(audio[0]["sample_rate"]) if audio[0].get("sample_rate") else None
        facts["channels"] = audio[0].get("channels")
    if video:
        v = video[0]
        facts.update(codec=v.get("codec_name"), width=v.get("width"), height=v.get("height"),
                     frame_rate=ratio(v.get("avg_frame_rate")) or ratio(v.get("r_frame_rate")))
        if audio:
            facts["audio_codec"] = audio[0].get("codec_name")
    else:
        facts["codec"] = audio[0].get("codec_name")
    return facts


def mediainfo_facts(path):
    result = run(["mediainfo", "--Output=JSON", path])
    if result.returncode != 0 or not result.stdout.strip():
        return {}
    tracks = (json.loads(result.stdout).get("media") or {}).get("track", [])
    general = next((t for t in tracks if t.get("@type") == "General"), {})
    video = next((t for t in tracks if t.get("@type") == "Video"), None)
    audio = next((t for t in tracks if t.get("@type") == "Audio"), None)
    facts = {}
    if video or audio:
        facts["kind"] = "video" if video else "audio"
    # The file's length is its longest stream's (mediainfo's general length of a transport
    # stream is its clock's span, shorter by the last frame).
    lengths = [number(t.get("Duration")) for t in tracks if t.get("@type") in ("General", "Video", "Audio")]
    lengths = [d for d in lengths if d]  # 0: the file declares no length
    facts["duration"] = max(lengths) if lengths else None
    if audio:
        facts["sample_rate"] = int(number(audio.get("SamplingRate")) or 0) or None
        facts["channels"] = int(number(audio.get("Channels")) or 0) or None
        facts["format"] = audio.get("Format")
    if video:
        facts["width"] = int(number(video.get("Width")) or 0) or None
        facts["height"] = int(number(video.get("Height")) or 0) or None
        facts["frame_rate"] = number(video.get("FrameRate"))
    return facts


def adif_references(path):
    """(first, second) reference for an ADIF file, which FFmpeg does not read: mediainfo's kind,
    rate, channels, codec and the length of a constant bit rate stream (faad's `-i` length less
    the 0.5 s it adds where mediainfo gives none); mutagen's rate, channels and length."""
    from mutagen.aac import AAC  # PyPI's mutagen reads ADIF headers
    first = mediainfo_facts(path)
    if first.get("format") == "AAC":
        first["codec"] = "aac"
    if first.get("duration") is None:
        said = re.search(r"ADIF, ([0-9.]+) sec", run(["faad", "-i", path]).stderr.decode(errors="replace"))
        first["duration"] = float(said.group(1)) - 0.5 if said else None
    info = AAC(path).info
    second = {"sample_rate": info.sample_rate, "channels": info.channels, "duration": info.length or None}
    return first, second


def exiftool_date(path):
    result = run(["exiftool", "-json", "-Keys:CreationDate", path])
    items = json.loads(result.stdout or b"[]")
    return items[0].get("CreationDate") if items else None


def shelf_facts(shelf, path):
    result = run([shelf, "info", "--json", path])
    try:
        data = json.loads(result.stdout)
    except ValueError:
        return {"kind": "(no json: %s)" % result.stderr.decode(errors="replace").strip()[:80]}
    facts = {"kind": data.get("kind"), "mime": data.get("mime"), "error": data.get("error")}
    video, audio = data.get("video"), data.get("audio")
    if video:
        facts.update(duration=video.get("duration"), codec=video.get("codec"), width=video.get("width"),
                     height=video.get("height"), frame_rate=video.get("frame_rate"),
                     sample_rate=video.get("sample_rate"), channels=video.get("channels"),
                     audio_codec=video.get("audio_codec"), taken=video.get("taken"))
    elif audio:
        facts.update(duration=audio.get("duration"), codec=audio.get("codec"), sample_rate=audio.get("sample_rate"),
                     channels=audio.get("channels"))
    return facts


def same(field, a, b):
    if a is None or b is None:
        return a is None and b is None
    if field == "duration":
        return abs(a - b) <= max(0.05, 0.01 * b)
    if field == "frame_rate":
        return abs(a - b) <= 0.01
    return a == b


def normal_date(value):
    """exiftool's `2024:05:01 12:00:00.250+02:00` and shelf's `2024-05-01T12:00:00+02:00` alike: shelf
    keeps whole seconds (as it does for EXIF), and `Z` is the offset +00:00."""
    if not value:
        return None
    value = value.replace("T", " ").replace("Z", "+00:00")
    date, time = value[:10].replace("-", ":"), value[10:]
    if "." in time:
        whole, rest = time.split(".", 1)
        time = whole + rest.lstrip("0123456789")
    return date + time


FIELDS = ["kind", "mime family", "duration", "sample_rate", "channels", "codec", "audio_codec", "width", "height",
          "frame_rate"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shelf", default=os.path.join(ROOT, ".build/release/shelf"))
    ap.add_argument("--work", default=os.path.join(ROOT, ".build/check-media"))
    ap.add_argument("--only", default="", help="comma-separated classes")
    args = ap.parse_args()
    for tool in ("ffmpeg", "ffprobe", "mediainfo", "exiftool", "faad"):
        if not shutil.which(tool):
            raise SystemExit("check-media: %s is missing (scripts/setup.sh installs it)" % tool)
    only = set(filter(None, args.only.split(",")))
    os.makedirs(args.work, exist_ok=True)
    classes = corpus(args.work, only)
    claimed_failures = []
    print("check-media: shelf info --json against ffprobe and mediainfo")
    for name, paths in classes.items():
        counts = {f: [0, 0] for f in FIELDS + ["taken"]}  # agree, checked
        dropped = {f: 0 for f in FIELDS}
        problems = []
        truths = {}
        if os.path.exists(os.path.join(args.work, name, ".truth.json")):
            with open(os.path.join(args.work, name, ".truth.json")) as f:
                truths = json.load(f)
        for path in paths:
            shelf = shelf_facts(args.shelf, path)
            if name == "qt-date":
                reference = normal_date(exiftool_date(path))
                counts["taken"][1] += 1
                if normal_date(shelf.get("taken")) == reference:
                    counts["taken"][0] += 1
                else:
                    problems.append("%s taken: shelf %s, exiftool %s" % (os.path.basename(path), shelf.get("taken"),
                                                                          reference))
                continue
            if name == "adif":
                probe, info = adif_references(path)
                probe = probe if probe.get("kind") else None
            else:
                probe = ffprobe_facts(path)
                info = mediainfo_facts(path)
            truth = truths.get(os.path.basename(path))
            if name == "shorten" and probe is not None and truth:
                # FFmpeg's raw shn demuxer gives no length, nor does mediainfo: the samples the
                # file was made from.
                probe["duration"] = truth["frames"] / truth["sample_rate"]
            ffprobe_read = probe is not None
            if probe is None:
                # ffprobe cannot read it (mutagen's DST-compressed DSDIFF): shelf must say audio
                # with an error, never crash.
                probe = {"kind": info.get("kind")} if info.get("kind") else None
                if probe is None:
                    continue
            probe["mime family"] = probe["kind"]
            shelf["mime family"] = (shelf.get("mime") or "").split("/")[0]
            for field in FIELDS:
                expected = probe.get(field)
                other = info.get("kind" if field == "mime family" else field)
                if expected is None and field == "duration" and ffprobe_read:
                    # mediainfo alone: an AVI's length from its index, where ffprobe gives none.
                    expected, other = other, None
                if expected is None:
                    continue
                if other is not None and not same(field, expected, other):
                    dropped[field] += 1
                    continue
                counts[field][1] += 1
                if same(field, shelf.get(field), expected):
                    counts[field][0] += 1
                else:
                    problems.append("%s %s: shelf %r, ffprobe %r%s" % (
                        os.path.basename(path), field, shelf.get(field), expected,
                        "" if other is None else ", mediainfo %r" % other))
        claimed = name not in ("dsdiff", "tak")
        print("%s: %d files%s" % (name, len(paths), "" if claimed else " (not claimed: too few files exist)"))
        worst = 100.0
        for field, (agree, checked) in counts.items():
            if checked == 0:
                continue
            share = 100.0 * agree / checked
            worst = min(worst, share)
            note = ", %d where the references disagree" % dropped[field] if dropped.get(field) else ""
            print("  %-12s %4d of %4d agree (%.1f %%)%s" % (field, agree, checked, share, note))
        for problem in problems[:8]:
            print("  differs: " + problem)
        if len(problems) > 8:
            print("  … and %d more" % (len(problems) - 8))
        if claimed and (worst < TARGET or len(paths) < MINIMUM):
            claimed_failures.append(name)
    if claimed_failures:
        print("check-media: under %.1f %% or %d files: %s" % (TARGET, MINIMUM, ", ".join(claimed_failures)))
        return 1
    print("check-media: every class at least %.1f %% on every field" % TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
