#!/usr/bin/env python3
"""Write a small DSF (DSD Stream File, Sony's 1-bit audio format) for the tests.

    python3 scripts/make-dsf.py OUT.dsf [--samples 720896] [--channels 2]

Debian has no DSD encoder, so this file is ours: the layout follows Sony's "DSF File Format
Specification" v1.01: a 28-byte `DSD ` chunk (chunk size, file size, metadata offset 0),
a 52-byte `fmt ` chunk (version 1, format 0 = DSD raw, channel type, channel count, 2,822,400
Hz, 1 bit per sample, samples per channel, 4096-byte blocks per channel) and a `data` chunk
of blocks interleaved channel by channel, least significant bit first, the last block padded
with zeros. The signal is a sine per channel (440 Hz left, 660 Hz right) through a
second-order sigma-delta modulator, so that a DSD decoder yields a tone. ffprobe (an
independent reader) is what the tests check the header against.
"""

import argparse
import math
import struct

RATE = 2_822_400
BLOCK = 4096


def modulate(frequency, samples):
    """1-bit stream of a half-scale sine, as bytes with the first sample in the lowest bit."""
    out = bytearray((samples + 7) // 8)
    i1 = i2 = 0.0
    step = 2 * math.pi * frequency / RATE
    for n in range(samples):
        x = 0.5 * math.sin(step * n)
        y = 1.0 if i2 >= 0 else -1.0
        i1 += x - y
        i2 += i1 - y
        if y > 0:
            out[n >> 3] |= 1 << (n & 7)
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--samples", type=int, default=720896, help="1-bit samples per channel")
    parser.add_argument("--channels", type=int, choices=(1, 2), default=2)
    args = parser.parse_args()

    samples = args.samples
    streams = [modulate(f, samples) for f in (440, 660)[: args.channels]]
    blocks = (len(streams[0]) + BLOCK - 1) // BLOCK
    data = bytearray()
    for b in range(blocks):
        for stream in streams:
            block = stream[b * BLOCK : (b + 1) * BLOCK]
            data += block + bytes(BLOCK - len(block))

    channel_type = 2 if args.channels == 2 else 1  # 1 = mono, 2 = stereo
    fmt = struct.pack(
        "<4sQIIIIIIQII", b"fmt ", 52, 1, 0, channel_type, args.channels, RATE, 1, samples, BLOCK, 0
    )
    data_chunk = struct.pack("<4sQ", b"data", 12 + len(data)) + bytes(data)
    total = 28 + len(fmt) + len(data_chunk)
    dsd = struct.pack("<4sQQQ", b"DSD ", 28, total, 0)
    with open(args.out, "wb") as f:
        f.write(dsd + fmt + data_chunk)


if __name__ == "__main__":
    main()
