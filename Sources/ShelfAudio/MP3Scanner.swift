import ShelfCore

/// Counts the samples of an MPEG audio stream exactly by walking its frame headers, as decoders
/// see them: tags (ID3v2 at the start, APEv2 and ID3v1 at the end) are skipped, a Xing/Info or
/// VBRI frame is not audio, and a LAME tag's encoder delay and padding are trimmed, as FFmpeg,
/// mpg123 and iTunes trim them.
///
/// libsndfile 1.2.0 reports MP3 files without a Xing/Info header as empty, and estimates
/// others from the file size including tags and cover art; this needs no decoding.
package enum MP3Scanner {
  package struct Result: Equatable {
    /// Samples per channel after the LAME delay and padding are trimmed.
    var frames: Int64
    var sampleRate: Int
    var channels: Int
    /// Why fewer frames are present than the file promises (a cut-off last frame, or fewer
    /// frames than the Xing header counts); nil for a whole file.
    var truncation: String?
    /// MPEG audio frames counted (the Xing/Info frame excluded).
    var mpegFrames: Int64
    /// The frames' bit rates averaged over their samples (exactly the nominal rate for CBR).
    var bitrate: Int
    /// The MPEG audio layer (1, 2 or 3).
    var layer: Int
  }

  /// Scans `file`. Returns nil when no run of MPEG audio frames is found (an MP3 of only a tag).
  package static func scan(_ file: RegularFile) throws -> Result? {
    var reader = ChunkedReader(file: file)
    // Leading ID3v2 tags (sometimes more than one).
    var offset: Int64 = 0
    while let head = try? reader.bytes(at: offset, count: 10), let tagSize = ID3Reader.tagSize(head) {
      offset += Int64(tagSize)
    }
    let end = try audioEnd(file)
    guard let first = try findFirstFrame(&reader, from: offset, end: end) else { return nil }
    offset = first.offset
    let header = first.header
    var delay = 0
    var padding = 0
    var declaredFrames: Int64? = nil
    // A Xing/Info or VBRI header fills the first frame: it is not audio.
    if let info = try encoderInfo(&reader, at: offset, header: header) {
      delay = info.delay
      padding = info.padding
      declaredFrames = info.frames
      offset += Int64(header.length)
    }
    var mpegFrames: Int64 = 0
    var samples: Int64 = 0
    var bitSum: Int64 = 0
    var truncation: String? = nil
    var misses = 0
    while offset + 4 <= end {
      guard let bytes = try reader.fourBytes(at: offset),
        let frame = parse(bytes.0, bytes.1, bytes.2, bytes.3),
        frame.isCompatible(with: header)
      else {
        // Junk between frames: look for the next header, but not through a whole file of junk.
        misses += 1
        if misses > 65536 { break }
        offset += 1
        continue
      }
      if offset + Int64(frame.length) > end {
        truncation = "truncated: the last MPEG frame is cut short"
        break
      }
      misses = 0
      mpegFrames += 1
      samples += Int64(frame.samples)
      bitSum += Int64(frame.bitrate) * Int64(frame.samples)
      offset += Int64(frame.length)
    }
    if truncation == nil, let declaredFrames, declaredFrames > mpegFrames {
      truncation = "truncated: \(mpegFrames) of \(declaredFrames) MPEG frames present"
    }
    let trimmed = max(samples - Int64(delay) - Int64(padding), 0)
    // A cut file keeps its delay trimmed but has no padding left to drop.
    let frames = truncation == nil ? trimmed : max(samples - Int64(delay), 0)
    return Result(
      frames: frames, sampleRate: header.rate, channels: header.channels,
      truncation: truncation, mpegFrames: mpegFrames,
      bitrate: samples > 0 ? Int(bitSum / samples) : 0, layer: header.layer)
  }

  /// Where the audio ends: before an ID3v1 tag and an APEv2 tag at the end of the file.
  static func audioEnd(_ file: RegularFile) throws -> Int64 {
    var end = file.status.size
    if end >= 128, let tail = try? file.read(count: 3, at: end - 128), tail == Array("TAG".utf8) {
      end -= 128
    }
    if end >= 32, let footer = try? file.read(count: 32, at: end - 32), footer.count == 32,
      footer.starts(with: Array("APETAGEX".utf8))
    {
      let tagSize =
        Int64(footer[12]) | Int64(footer[13]) << 8 | Int64(footer[14]) << 16 | Int64(footer[15]) << 24
      let hasHeader = footer[23] & 0x80 != 0
      let total = tagSize + (hasHeader ? 32 : 0)
      if total <= end { end -= total }
    }
    return end
  }

  /// The first frame header followed by a second one where the first frame ends (one header
  /// alone is often a false sync in junk).
  static func findFirstFrame(_ reader: inout ChunkedReader, from start: Int64, end: Int64) throws -> (
    offset: Int64, header: Header
  )? {
    var offset = start
    let limit = min(end, start + 1 << 20)
    while offset + 4 <= limit {
      let bytes = try reader.bytes(at: offset, count: 4)
      guard bytes.count == 4 else { return nil }
      if let header = parse(bytes[0], bytes[1], bytes[2], bytes[3]) {
        let next = offset + Int64(header.length)
        if next + 4 > end { return next <= end ? (offset, header) : nil }
        let following = try reader.bytes(at: next, count: 4)
        if following.count == 4, let second = parse(following[0], following[1], following[2], following[3]),
          second.isCompatible(with: header)
        {
          return (offset, header)
        }
      }
      offset += 1
    }
    return nil
  }

  struct EncoderInfo {
    var delay: Int
    var padding: Int
    var frames: Int64?
  }

  /// The Xing/Info (with a LAME tag) or VBRI header in the frame at `offset`, if there is one.
  static func encoderInfo(_ reader: inout ChunkedReader, at offset: Int64, header: Header) throws
    -> EncoderInfo?
  {
    let frame = try reader.bytes(at: offset, count: min(header.length, 512))
    let sideInfo: Int
    switch (header.mpeg1, header.channels == 1) {
    case (true, false): sideInfo = 32
    case (true, true): sideInfo = 17
    case (false, false): sideInfo = 17
    case (false, true): sideInfo = 9
    }
    let xing = 4 + sideInfo
    func u32(_ at: Int) -> Int64? {
      guard at + 4 <= frame.count else { return nil }
      return Int64(frame[at]) << 24 | Int64(frame[at + 1]) << 16 | Int64(frame[at + 2]) << 8
        | Int64(frame[at + 3])
    }
    func tag(_ at: Int) -> String {
      guard at + 4 <= frame.count else { return "" }
      return String(decoding: frame[at..<at + 4], as: UTF8.self)
    }
    if tag(xing) == "Xing" || tag(xing) == "Info" {
      guard let flags = u32(xing + 4) else { return EncoderInfo(delay: 0, padding: 0, frames: nil) }
      var position = xing + 8
      var frames: Int64? = nil
      if flags & 1 != 0 {
        frames = u32(position)
        position += 4
      }
      if flags & 2 != 0 { position += 4 }
      if flags & 4 != 0 { position += 100 }
      if flags & 8 != 0 { position += 4 }
      var info = EncoderInfo(delay: 0, padding: 0, frames: frames)
      if ["LAME", "Lavf", "Lavc"].contains(tag(position)), position + 24 <= frame.count {
        let packed =
          Int(frame[position + 21]) << 16 | Int(frame[position + 22]) << 8 | Int(frame[position + 23])
        info.delay = (packed >> 12) + 529
        info.padding = max((packed & 0xFFF) - 529, 0)
      }
      return info
    }
    if tag(36) == "VBRI" {
      return EncoderInfo(delay: 0, padding: 0, frames: u32(36 + 14))
    }
    return nil
  }

  struct Header {
    var bitrate: Int
    var length: Int
    var samples: Int
    var rate: Int
    var channels: Int
    var mpeg1: Bool
    var versionBits: UInt8
    var layer: Int

    /// Frames of one stream share version, layer and sample rate.
    func isCompatible(with other: Header) -> Bool {
      versionBits == other.versionBits && layer == other.layer && rate == other.rate
    }
  }

  static func parse(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> Header? {
    guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
    let versionBits = (b1 >> 3) & 3  // 0: 2.5, 2: 2, 3: 1
    let layerBits = (b1 >> 1) & 3  // 1: III, 2: II, 3: I
    guard versionBits != 1, layerBits != 0 else { return nil }
    let bitrateIndex = Int(b2 >> 4)
    let rateIndex = Int((b2 >> 2) & 3)
    guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
    let padding = Int((b2 >> 1) & 1)
    let mpeg1 = versionBits == 3
    let baseRates = [44100, 48000, 32000]
    let rate = baseRates[rateIndex] / (versionBits == 3 ? 1 : versionBits == 2 ? 2 : 4)
    let layer = 4 - Int(layerBits)
    let kbps: [Int]
    switch (mpeg1, layer) {
    case (true, 1): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
    case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
    case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    case (false, 1): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
    case (false, _): kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    }
    let bitrate = kbps[bitrateIndex] * 1000
    let length: Int
    let samples: Int
    switch layer {
    case 1:
      length = (12 * bitrate / rate + padding) * 4
      samples = 384
    case 2:
      length = 144 * bitrate / rate + padding
      samples = 1152
    default:
      length = (mpeg1 ? 144 : 72) * bitrate / rate + padding
      samples = mpeg1 ? 1152 : 576
    }
    guard length > 4 else { return nil }
    return Header(
      bitrate: bitrate, length: length, samples: samples, rate: rate, channels: (b3 >> 6) == 3 ? 1 : 2,
      mpeg1: mpeg1,
      versionBits: versionBits, layer: layer)
  }
}

/// Reads a file through one 64 KiB window, so that walking frame headers costs one read per
/// window rather than one per frame.
struct ChunkedReader {
  let file: RegularFile
  private var window: [UInt8] = []
  private var windowStart: Int64 = 0

  init(file: RegularFile) { self.file = file }

  /// Up to `count` bytes at `offset` (fewer at the end of the file).
  mutating func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
    try slide(to: offset, count: count)
    let start = Int(offset - windowStart)
    return Array(window[start..<min(window.count, start + count)])
  }

  /// The four bytes at `offset` (a frame header) without allocating; nil past the end.
  mutating func fourBytes(at offset: Int64) throws -> (UInt8, UInt8, UInt8, UInt8)? {
    try slide(to: offset, count: 4)
    let start = Int(offset - windowStart)
    guard start + 4 <= window.count else { return nil }
    return (window[start], window[start + 1], window[start + 2], window[start + 3])
  }

  private mutating func slide(to offset: Int64, count: Int) throws {
    if offset < windowStart || offset + Int64(count) > windowStart + Int64(window.count) {
      windowStart = offset
      window = try file.read(count: max(65536, count), at: offset)
    }
  }
}
