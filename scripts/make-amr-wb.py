#!/usr/bin/env python3
"""Encode a 16 kHz mono 16-bit WAV as an AMR-WB (.awb) file with VisualOn's encoder.

    python3 scripts/make-amr-wb.py IN.wav OUT.awb [--mode 8]

Debian's sox reads AMR-WB but is built without its encoder ("SoX was compiled without AMR-WB
encoding support"), and Debian's ffmpeg has no AMR encoder at all; the encoder library
itself, libvo-amrwbenc (Debian package libvo-amrwbenc0), is in Debian. This script only drives
it through ctypes: it writes the storage format's magic line `#!AMR-WB\\n` (RFC 4867 section
5) and then what `E_IF_encode` returns for each 20 ms frame (320 samples), which is already a
storage-format frame (its table-of-contents byte, then the speech bits). The last frame is
padded with silence to 320 samples, as every AMR encoder does. Mode 8 is 23.85 kbit/s.
"""

import argparse
import ctypes
import wave

FRAME = 320


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--mode", type=int, default=8, choices=range(9))
    args = parser.parse_args()

    with wave.open(args.input) as source:
        if (source.getframerate(), source.getnchannels(), source.getsampwidth()) != (16000, 1, 2):
            raise SystemExit("make-amr-wb: the input must be 16 kHz mono 16-bit PCM")
        pcm = source.readframes(source.getnframes())

    library = ctypes.CDLL("libvo-amrwbenc.so.0")
    library.E_IF_init.restype = ctypes.c_void_p
    library.E_IF_encode.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
    ]
    library.E_IF_exit.argtypes = [ctypes.c_void_p]
    state = library.E_IF_init()
    out = bytearray(b"#!AMR-WB\n")
    frame_bytes = FRAME * 2
    packet = ctypes.create_string_buffer(64)
    for start in range(0, len(pcm), frame_bytes):
        chunk = pcm[start : start + frame_bytes]
        speech = ctypes.create_string_buffer(chunk + bytes(frame_bytes - len(chunk)), frame_bytes)
        size = library.E_IF_encode(state, args.mode, speech, packet, 0)
        if size <= 0:
            raise SystemExit("make-amr-wb: the encoder failed")
        out += packet.raw[:size]
    library.E_IF_exit(state)
    with open(args.output, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
