#!/usr/bin/env python3
"""Re-wrap an ADTS AAC stream (as `ffmpeg -c:a aac -f adts` writes it) as ADIF.

    python3 scripts/adif_writer.py IN.aac OUT.aac [--vbr] [--copyright TEXT] [--comment TEXT]
                                   [--bitrate N]

No Debian program writes ADIF (the Audio Data Interchange Format of MPEG-2 AAC, ISO/IEC
13818-7 §6.2 and 14496-3 §1.A.2), so this is ours: the raw data blocks are FFmpeg's encoder's,
taken out of their ADTS frames (one block per frame, as FFmpeg writes them) and written one
after the other behind one ADIF header: `ADIF`, copyright_id_present (and the 72-bit id),
original_copy, home, bitstream_type (0 constant, 1 variable), the 23-bit bit rate,
num_program_config_elements (0: one), adif_buffer_fullness (20 bits, constant rate only), and
a program_config_element: the profile (ADTS's object type), sampling frequency index and the
channel elements FFmpeg's encoder writes for its channel configuration (1 to 6), byte
alignment, and a comment. The bit rate written is the stream's own average (its raw bytes over
its blocks' time) unless --bitrate says otherwise. Prints what it wrote as JSON (blocks, rate,
channels, profile, bit rate, header size, and the stream's time: blocks × 1024 / rate).
"""

import argparse
import json

RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

# The elements FFmpeg's encoder writes for each channel configuration, with their instance
# tags: front, side and back elements as (is a channel pair, tag), and the LFE tags.
LAYOUTS = {
    1: ([(0, 0)], [], [], []),
    2: ([(1, 0)], [], [], []),
    3: ([(0, 0), (1, 0)], [], [], []),
    4: ([(0, 0), (1, 0)], [], [(0, 1)], []),
    5: ([(0, 0), (1, 0)], [], [(1, 1)], []),
    6: ([(0, 0), (1, 0)], [], [(1, 1)], [0]),
}


class Bits:
    """Bit fields, most significant bit first."""

    def __init__(self):
        self.out, self.acc, self.count = bytearray(), 0, 0

    def put(self, value, width):
        for shift in range(width - 1, -1, -1):
            self.acc = self.acc << 1 | (value >> shift & 1)
            self.count += 1
            if self.count == 8:
                self.out.append(self.acc)
                self.acc, self.count = 0, 0

    def align(self):
        while self.count:
            self.put(0, 1)

    def data(self):
        assert self.count == 0
        return bytes(self.out)


def adts_blocks(data):
    """(object type, rate index, channel configuration, [raw data blocks]) of an ADTS stream."""
    offset, blocks, first = 0, [], None
    while offset + 7 <= len(data):
        if data[offset] != 0xFF or data[offset + 1] & 0xF6 != 0xF0:
            raise SystemExit("adif_writer: no ADTS frame at byte %d" % offset)
        header = 7 if data[offset + 1] & 1 else 9
        fields = (data[offset + 2] >> 6, data[offset + 2] >> 2 & 0xF, (data[offset + 2] & 1) << 2 | data[offset + 3] >> 6)
        length = (data[offset + 3] & 3) << 11 | data[offset + 4] << 3 | data[offset + 5] >> 5
        if data[offset + 6] & 3:
            raise SystemExit("adif_writer: an ADTS frame with several raw data blocks")
        if first is None:
            first = fields
        elif fields != first:
            raise SystemExit("adif_writer: the ADTS frames change their format")
        blocks.append(data[offset + header:offset + length])
        offset += length
    if first is None:
        raise SystemExit("adif_writer: no ADTS frames")
    if first[2] not in LAYOUTS:
        raise SystemExit("adif_writer: channel configuration %d (a PCE in the stream) is not supported" % first[2])
    return first + (blocks,)


def header(profile, rate_index, channels, bitrate, vbr=False, copyright=None, comment=b"", fullness=0):
    """The ADIF header (one program config element)."""
    bits = Bits()
    for byte in b"ADIF":
        bits.put(byte, 8)
    bits.put(1 if copyright else 0, 1)
    if copyright:
        for byte in copyright.ljust(9, b"\0")[:9]:
            bits.put(byte, 8)
    bits.put(0, 1)  # original_copy
    bits.put(0, 1)  # home
    bits.put(1 if vbr else 0, 1)
    bits.put(bitrate, 23)
    bits.put(0, 4)  # num_program_config_elements - 1
    if not vbr:
        bits.put(fullness, 20)
    front, side, back, lfe = LAYOUTS[channels]
    bits.put(0, 4)  # element_instance_tag
    bits.put(profile, 2)
    bits.put(rate_index, 4)
    for count, width in ((len(front), 4), (len(side), 4), (len(back), 4), (len(lfe), 2), (0, 3), (0, 4)):
        bits.put(count, width)  # ... lfe, assoc data, valid cc elements
    bits.put(0, 3)  # no mono or stereo mixdown, no matrix mixdown
    for is_pair, tag in front + side + back:
        bits.put(is_pair, 1)
        bits.put(tag, 4)
    for tag in lfe:
        bits.put(tag, 4)
    bits.align()
    bits.put(len(comment), 8)
    for byte in comment:
        bits.put(byte, 8)
    return bits.data()


def rewrap(adts, vbr=False, copyright=None, comment=b"", bitrate=None):
    """(ADIF bytes, facts) for the ADTS stream `adts`."""
    profile, rate_index, channels, blocks = adts_blocks(adts)
    raw = b"".join(blocks)
    rate = RATES[rate_index]
    seconds = len(blocks) * 1024 / rate
    if bitrate is None:
        bitrate = round(len(raw) * 8 / seconds)
    head = header(profile, rate_index, channels, bitrate, vbr=vbr, copyright=copyright, comment=comment,
                  fullness=0 if vbr else min(len(blocks[0]) * 8, (1 << 20) - 1))
    facts = {"blocks": len(blocks), "sample_rate": rate, "channels": channels,
             "profile": profile, "bitrate": bitrate, "header": len(head), "stream_seconds": seconds, "vbr": vbr}
    return head + raw, facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("adts")
    ap.add_argument("adif")
    ap.add_argument("--vbr", action="store_true")
    ap.add_argument("--copyright")
    ap.add_argument("--comment", default="")
    ap.add_argument("--bitrate", type=int)
    args = ap.parse_args()
    with open(args.adts, "rb") as f:
        data, facts = rewrap(f.read(), vbr=args.vbr, copyright=args.copyright and args.copyright.encode(),
                             comment=args.comment.encode(), bitrate=args.bitrate)
    with open(args.adif, "wb") as f:
        f.write(data)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
