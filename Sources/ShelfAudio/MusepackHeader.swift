import ShelfCore

/// The length of a Musepack SV8 stream, from its stream header packet (`SH`).
///
/// FFmpeg's mpc8 demuxer keeps only a whole-frame duration (rounded down, so `ffprobe` reports
/// less than the file holds) and its decoder hands out the last 1,152-sample frame whole, where
/// the reference decoder (`mpcdec`) ends at the header's sample count. The header is read here
/// so that the catalogue's length and what `play` hands out are what `mpcdec` yields.
package enum MusepackHeader {
  package struct Length: Equatable {
    /// Samples per channel to hand out (the header's count less its beginning silence).
    var frames: Int64
    /// Samples of silence the encoder put before the audio, to skip.
    var leadIn: Int64
  }

  /// Reads `file`'s SV8 stream header, after an ID3v2 tag that some taggers put ahead of it (as
  /// FFmpeg and mpcdec skip it); nil when the file is not Musepack SV8 or the header is
  /// unreadable (the demuxer's length then stands).
  package static func read(_ file: RegularFile) -> Length? {
    let start = (try? file.read(count: 10, at: 0)).flatMap(ID3Reader.tagSize) ?? 0
    guard let head = try? file.read(count: 64, at: Int64(start)), head.starts(with: Array("MPCK".utf8)) else {
      return nil
    }
    // Packets: a two-letter key, then the packet's size (key and size field included) as a
    // big-endian base-128 number with the top bit of each byte meaning "more follows".
    var offset = 4
    while offset + 3 <= head.count {
      let key = String(decoding: head[offset..<offset + 2], as: UTF8.self)
      var cursor = offset + 2
      guard let size = varint(head, &cursor), size > 0 else { return nil }
      if key == "SH" {
        // CRC-32 (4 bytes), stream version (8), sample count, beginning silence.
        cursor += 4
        guard cursor < head.count, head[cursor] == 8 else { return nil }
        cursor += 1
        guard let samples = varint(head, &cursor), let silence = varint(head, &cursor), samples > silence
        else { return nil }
        return Length(frames: samples - silence, leadIn: silence)
      }
      // A packet that ends past the header read holds no SH packet in it (and a size of up to
      // 2^63 - 1 would overflow the offset).
      guard size <= Int64(head.count - offset) else { return nil }
      offset += Int(size)
    }
    return nil
  }

  private static func varint(_ bytes: [UInt8], _ cursor: inout Int) -> Int64? {
    var value: Int64 = 0
    for _ in 0..<9 {
      guard cursor < bytes.count else { return nil }
      let byte = bytes[cursor]
      cursor += 1
      value = value << 7 | Int64(byte & 0x7F)
      if byte & 0x80 == 0 { return value }
    }
    return nil
  }
}
