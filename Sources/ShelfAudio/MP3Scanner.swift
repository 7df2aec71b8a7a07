import ShelfCore

/// Counts the frames of an MPEG audio stream by walking its frame headers.
///
/// libsndfile 1.2.0 reports MP3 files without a Xing/Info header as empty; this recovers their
/// length (and so their duration) without decoding.
enum MP3Scanner {
  struct Result {
    var frames: Int64
    var sampleRate: Int
  }

  static func scan(_ file: RegularFile) throws -> Result {
    let size = file.status.size
    var offset: Int64 = 0
    let head = try file.read(count: 10, at: 0)
    if head.count == 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 {
      offset = 10 + Int64(ID3Reader.syncsafe(head[6..<10])) + (head[5] & 0x10 != 0 ? 10 : 0)
    }
    var frames: Int64 = 0
    var rate = 0
    var chunk: [UInt8] = []
    var chunkStart: Int64 = 0
    var misses = 0
    while offset + 4 <= size {
      if offset < chunkStart || offset + 4 > chunkStart + Int64(chunk.count) {
        chunkStart = offset
        chunk = try file.read(count: 65536, at: offset)
        if chunk.count < 4 { break }
      }
      let i = Int(offset - chunkStart)
      guard let header = parse(chunk[i], chunk[i + 1], chunk[i + 2], chunk[i + 3]) else {
        if chunk[i] == 0x54 && chunk[i + 1] == 0x41 && chunk[i + 2] == 0x47 { break }  // ID3v1
        misses += 1
        if misses > 65536 { break }
        offset += 1
        continue
      }
      misses = 0
      frames += Int64(header.samples)
      rate = header.rate
      offset += Int64(header.length)
    }
    return Result(frames: frames, sampleRate: rate)
  }

  struct Header {
    var length: Int
    var samples: Int
    var rate: Int
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
    return Header(length: length, samples: samples, rate: rate)
  }
}
