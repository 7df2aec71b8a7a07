#!/usr/bin/env python3
"""Wrap an ADTS AAC stream (as `ffmpeg -c:a aac -f adts` writes it) into a CAF file.

    python3 scripts/make-caf-aac.py IN.aac OUT.caf --frames N [--priming 1024]

Debian's FFmpeg 5.1 cannot write AAC into CAF ("muxing codec currently unsupported") and no
other Debian program writes CAF with AAC (Apple's `afconvert` is macOS only), so this file is
ours: the AAC packets are FFmpeg's encoder's, the container is written here after Apple's
"Core Audio Format Specification" v1.0: the `caff` header (version 1); `desc` (sample rate as
a big-endian double, format 'aac ', flags 2 = AAC-LC, 0 bytes and 1024 frames per packet, the
channel count, 0 bits per channel); `kuki`, the magic cookie, which for AAC is the MPEG-4
elementary stream descriptor as an MP4 `esds` box holds it (version and flags, then the
ES_Descriptor with its DecoderConfigDescriptor and AudioSpecificConfig); `pakt`, the packet
table (packets, valid frames, priming frames, remainder frames, then each packet's size as a
base-128 number); and `data` (an edit count of 0, then the packets). N is how many frames of
the source are real: the encoder's priming (1024 frames for FFmpeg's `aac`) comes before them
and the rest of the last packet after.
"""

import argparse
import struct

RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]


def adts_packets(data):
    """The raw AAC packets of an ADTS stream, and its object type, rate index and channels."""
    packets, offset, config = [], 0, None
    while offset + 7 <= len(data):
        if data[offset] != 0xFF or data[offset + 1] & 0xF6 != 0xF0:
            raise SystemExit("make-caf-aac: not an ADTS stream at byte %d" % offset)
        protection_absent = data[offset + 1] & 1
        profile = data[offset + 2] >> 6
        rate_index = (data[offset + 2] >> 2) & 0x0F
        channels = ((data[offset + 2] & 1) << 2) | (data[offset + 3] >> 6)
        length = ((data[offset + 3] & 3) << 11) | (data[offset + 4] << 3) | (data[offset + 5] >> 5)
        header = 7 if protection_absent else 9
        packets.append(data[offset + header : offset + length])
        config = config or (profile + 1, rate_index, channels)
        offset += length
    return packets, config


def descriptor(tag, body):
    """An MPEG-4 descriptor: its tag, its length in the 4-byte form Apple and FFmpeg write."""
    n = len(body)
    size = bytes([0x80 | (n >> 21) & 0x7F, 0x80 | (n >> 14) & 0x7F, 0x80 | (n >> 7) & 0x7F, n & 0x7F])
    return bytes([tag]) + size + body


def varint(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def chunk(kind, body):
    return kind + struct.pack(">q", len(body)) + body


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--frames", type=int, required=True, help="real frames of the source")
    parser.add_argument("--priming", type=int, default=1024)
    args = parser.parse_args()

    with open(args.input, "rb") as f:
        packets, (object_type, rate_index, channels) = adts_packets(f.read())
    remainder = len(packets) * 1024 - args.priming - args.frames
    if remainder < 0 or remainder >= 1024 + 1024:
        raise SystemExit("make-caf-aac: %d packets do not hold %d frames" % (len(packets), args.frames))
    rate = RATES[rate_index]

    audio_specific = struct.pack(">H", object_type << 11 | rate_index << 7 | channels << 3)
    decoder_config = descriptor(
        0x04,
        bytes([0x40, 0x15]) + b"\x00\x00\x00" + struct.pack(">II", 0, 0) + descriptor(0x05, audio_specific),
    )
    es = descriptor(0x03, struct.pack(">HB", 0, 0) + decoder_config + descriptor(0x06, b"\x02"))
    cookie = b"\x00\x00\x00\x00" + es

    desc = struct.pack(">d4sIIIII", float(rate), b"aac ", 2, 0, 1024, channels, 0)
    table = struct.pack(">qqii", len(packets), args.frames, args.priming, remainder)
    table += b"".join(varint(len(p)) for p in packets)
    data = struct.pack(">I", 0) + b"".join(packets)
    with open(args.output, "wb") as f:
        f.write(b"caff" + struct.pack(">HH", 1, 0))
        f.write(chunk(b"desc", desc) + chunk(b"kuki", cookie) + chunk(b"pakt", table) + chunk(b"data", data))


if __name__ == "__main__":
    main()
