#!/usr/bin/env python3
"""A minimal Shorten encoder: a PCM WAV file in, a `.shn` file out.

    python3 scripts/shorten_encoder.py IN.wav OUT.shn [--aiff] [--version 2|3] [--blocksize N]

No Debian or PyPI program writes Shorten (Tony Robinson's lossless format), so this one is
ours, after the bitstream FFmpeg's decoder reads (libavcodec/shorten.c): the magic `ajkg`, a
version byte, then Rice-coded fields (each `ulong` first gives its own width): the sample type
(2 unsigned 8-bit, 5 signed 16-bit little-endian, 3 signed 16-bit big-endian for an AIFF
header), channels, block size, the most LPC coefficients (0), blocks in the running mean (4),
bytes to skip (0). The first command is a verbatim block that carries the original file's
header (a canonical 44-byte WAV header, or with --aiff an AIFF one, 16-bit only), byte by
byte. Then, per block and channel, the cheapest of the fixed predictors DIFF1, DIFF2 and DIFF3,
its Rice parameter (ENERGYSIZE bits' worth), and each residual as a signed Rice code; a
BLOCKSIZE command before a shorter last block, and QUIT. Prints what it wrote as JSON (frames,
rate, channels, bits).
"""

import argparse
import json
import struct
import wave

FN_DIFF1, FN_DIFF2, FN_DIFF3, FN_QUIT, FN_BLOCKSIZE, FN_VERBATIM = 1, 2, 3, 4, 5, 9
TYPE_U8, TYPE_S16HL, TYPE_S16LH = 2, 3, 5


class BitWriter:
    def __init__(self):
        self.out, self.acc, self.count = bytearray(), 0, 0

    def put(self, value, width):
        while width > 0:
            take = min(width, 8 - self.count)
            width -= take
            self.acc = self.acc << take | (value >> width & ((1 << take) - 1))
            self.count += take
            if self.count == 8:
                self.out.append(self.acc)
                self.acc, self.count = 0, 0

    def zeros(self, count):
        while count > 0:
            take = min(count, 32)
            self.put(0, take)
            count -= take

    def finish(self):
        if self.count:
            self.put(0, 8 - self.count)
        return bytes(self.out)


def uvar(bits, value, k):
    """Unsigned Rice code: value >> k in unary (that many zeros, then a one), then k low bits."""
    bits.zeros(value >> k)
    bits.put(1, 1)
    if k:
        bits.put(value & ((1 << k) - 1), k)


def ulong(bits, value):
    """A header field (version 1 and later): its width first, then the value."""
    width = value.bit_length()
    uvar(bits, width, 2)
    uvar(bits, value, width)


def svar(bits, value, k):
    """Signed Rice code, as FFmpeg's get_sr_golomb_shorten reads it (k + 1 low bits)."""
    uvar(bits, 2 * value if value >= 0 else -2 * value - 1, k + 1)


def residuals(block, history, order):
    samples = history + block
    out = []
    for i in range(3, len(samples)):
        if order == FN_DIFF1:
            guess = samples[i - 1]
        elif order == FN_DIFF2:
            guess = 2 * samples[i - 1] - samples[i - 2]
        else:
            guess = 3 * samples[i - 1] - 3 * samples[i - 2] + samples[i - 3]
        out.append(samples[i] - guess)
    return out


def rice_parameter(values):
    mean = sum(abs(v) for v in values) / max(len(values), 1)
    k = 0
    while k < 30 and (1 << (k + 1)) <= mean:
        k += 1
    return k


def encode(channels, header, file_type, version=2, blocksize=256):
    """The Shorten stream of `channels` (a list of samples per channel: 0-255 for 8-bit, signed
    16-bit values otherwise) carrying `header` verbatim."""
    bits = BitWriter()
    bits.put(int.from_bytes(b"ajkg", "big"), 32)
    bits.put(version, 8)
    for field in (file_type, len(channels), blocksize, 0, 4, 0):
        ulong(bits, field)
    uvar(bits, FN_VERBATIM, 2)
    uvar(bits, len(header), 5)
    for byte in header:
        uvar(bits, byte, 8)
    history = [[0, 0, 0] for _ in channels]
    frames = len(channels[0])
    at, current = 0, blocksize
    while at < frames:
        size = min(blocksize, frames - at)
        if size != current:
            uvar(bits, FN_BLOCKSIZE, 2)
            ulong(bits, size)
            current = size
        for c, samples in enumerate(channels):
            block = samples[at:at + size]
            choices = [(order, residuals(block, history[c], order)) for order in (FN_DIFF1, FN_DIFF2, FN_DIFF3)]
            order, res = min(choices, key=lambda choice: sum(abs(r) for r in choice[1]))
            k = rice_parameter(res)
            uvar(bits, order, 2)
            uvar(bits, k, 3)
            for r in res:
                svar(bits, r, k)
            history[c] = (history[c] + block)[-3:]
        at += size
    uvar(bits, FN_QUIT, 2)
    return bits.finish()


def wav_header(rate, channels, width, frames):
    align = channels * width // 8
    data = frames * align
    return (b"RIFF" + struct.pack("<I", 36 + data) + b"WAVE" + b"fmt "
            + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * align, align, width)
            + b"data" + struct.pack("<I", data))


def extended(value):
    """An integer as the 80-bit IEEE 754 extended float AIFF keeps its rate in."""
    exponent = value.bit_length() - 1
    return struct.pack(">HQ", 16383 + exponent, value << (63 - exponent))


def aiff_header(rate, channels, width, frames):
    data = frames * channels * width // 8
    comm = b"COMM" + struct.pack(">IHIH", 18, channels, frames, width) + extended(rate)
    ssnd = b"SSND" + struct.pack(">III", 8 + data, 0, 0)
    return b"FORM" + struct.pack(">I", 4 + len(comm) + len(ssnd) + data) + b"AIFF" + comm + ssnd


def encode_wav(path, aiff=False, version=2, blocksize=256):
    """(Shorten bytes, facts) of a PCM WAV file."""
    with wave.open(path, "rb") as source:
        rate, count, width = source.getframerate(), source.getnchannels(), source.getsampwidth() * 8
        data = source.readframes(source.getnframes())
    return encode_pcm(data, rate, count, width, aiff, version, blocksize)


def encode_pcm(data, rate, count, width, aiff=False, version=2, blocksize=256):
    """(Shorten bytes, facts) of interleaved PCM: unsigned 8-bit or signed 16-bit little-endian."""
    frames = len(data) // (count * width // 8)
    if width == 8:
        if aiff:
            raise SystemExit("shorten_encoder: AIFF headers carry 16-bit samples only here")
        flat, file_type = list(data), TYPE_U8
    elif width == 16:
        flat = list(struct.unpack("<%dh" % (len(data) // 2), data))
        file_type = TYPE_S16HL if aiff else TYPE_S16LH
    else:
        raise SystemExit("shorten_encoder: %d-bit samples (Shorten as FFmpeg reads it: 8 or 16)" % width)
    header = (aiff_header if aiff else wav_header)(rate, count, width, frames)
    stream = encode([flat[c::count] for c in range(count)], header, file_type, version, blocksize)
    return stream, {"frames": frames, "sample_rate": rate, "channels": count, "bits": width, "aiff": aiff}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wav")
    ap.add_argument("shn")
    ap.add_argument("--aiff", action="store_true")
    ap.add_argument("--version", type=int, default=2, choices=[1, 2, 3])
    ap.add_argument("--blocksize", type=int, default=256)
    args = ap.parse_args()
    stream, facts = encode_wav(args.wav, aiff=args.aiff, version=args.version, blocksize=args.blocksize)
    with open(args.shn, "wb") as f:
        f.write(stream)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
