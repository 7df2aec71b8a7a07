import ShelfCore

/// A Shorten file's facts from its header (Tony Robinson's lossless format, `.shn`, magic
/// `ajkg`): the stream header gives the channels and the sample type, and the first verbatim
/// block carries the original WAV or AIFF header, whose rate and data size give the length.
///
/// FFmpeg's `shn` demuxer is a raw one: its packets carry no times, so `ffprobe` gives no length
/// and counting packets gives none either. Reading these few hundred bits is what the length
/// needs (decoding the whole file would give the same count, slowly).
package enum ShortenHeader {
  /// What the header says.
  package struct Header: Equatable {
    var version: Int
    /// Shorten's sample type: 1 signed 8-bit, 2 unsigned 8-bit, 3/4 signed/unsigned 16-bit
    /// big-endian, 5/6 the same little-endian.
    var fileType: Int
    var channels: Int
    /// Samples per channel in a block (256 unless the header says otherwise; version 0 cannot).
    var blockSize: Int
    var sampleRate: Int
    var bitsPerSample: Int
    /// Samples per channel, from the embedded header's data size (WAV) or frame count (AIFF);
    /// nil when it declares none.
    var frames: Int64?
    /// True when the embedded header is AIFF (or AIFF-C), false for WAV.
    var isAIFF: Bool
  }

  /// Why a header cannot be read.
  package enum Problem: Error, Equatable {
    case notShorten
    case truncated
    case corrupt(String)
    case unsupported(String)

    var message: String {
      switch self {
      case .notShorten: return "not a Shorten stream"
      case .truncated: return "truncated Shorten header"
      case .corrupt(let why): return "corrupt Shorten header: \(why)"
      case .unsupported(let what): return "unsupported Shorten stream: \(what)"
      }
    }
  }

  /// FFmpeg's limits: channels, block size, and the embedded header's length.
  static let maximumChannels = 8
  static let maximumBlockSize = 65535
  static let embeddedHeaderSizes = 44..<16384
  /// Bytes read: a 16,383-byte verbatim header takes at most 9 bits a byte when well formed,
  /// and the skipped bytes come before it.
  static let prefixLength = 65536

  /// Reads the stream header and the embedded WAV or AIFF header that start `bytes`.
  package static func parse(_ bytes: [UInt8]) throws(Problem) -> Header {
    guard bytes.starts(with: Array("ajkg".utf8)) else { throw .notShorten }
    guard bytes.count > 4 else { throw .truncated }
    let version = Int(bytes[4])
    guard version <= 3 else { throw .unsupported("version \(version)") }
    var bits = BitCursor(bytes, from: 5)
    // Rice codes: `uvar(k)` is a unary high part (zeros ended by a one) and k low bits;
    // a version 1+ `ulong` first says its own k.
    func uvar(_ k: Int) throws(Problem) -> Int {
      var high = 0
      while true {
        guard let bit = bits.read(1) else { throw .truncated }
        if bit == 1 { break }
        high += 1
        // The longest run a header needs is the verbatim block's length (up to 16,383 with
        // k = 5: 511 zeros); a much longer one is garbage.
        guard high <= 1024 else { throw .corrupt("a value too large") }
      }
      guard let low = bits.read(k) else { throw .truncated }
      return high << k | Int(low)
    }
    func ulong(_ k: Int) throws(Problem) -> Int {
      guard version > 0 else { return try uvar(k) }
      let width = try uvar(2)
      guard width <= 32 else { throw .corrupt("a field width of \(width) bits") }
      return try uvar(width)
    }
    let fileType = try ulong(4)
    guard (1...6).contains(fileType) else { throw .unsupported("sample type \(fileType)") }
    let channels = try ulong(0)
    guard channels > 0 else { throw .corrupt("no channels") }
    guard channels <= maximumChannels else { throw .unsupported("\(channels) channels") }
    var blockSize = 256
    if version > 0 {
      blockSize = try ulong(8)
      guard (1...maximumBlockSize).contains(blockSize) else { throw .corrupt("block size \(blockSize)") }
      _ = try ulong(2)  // the most LPC coefficients
      _ = try ulong(0)  // blocks in the running mean
      let skipped = try ulong(1)
      guard skipped <= bits.remaining / 8 else { throw .truncated }
      for _ in 0..<skipped { _ = bits.read(8) }
    }
    // The first command must be a verbatim block holding the original file's header.
    guard try uvar(2) == 9 else { throw .corrupt("no verbatim header block") }
    let length = try uvar(5)
    guard embeddedHeaderSizes.contains(length) else {
      throw .corrupt("an embedded header of \(length) bytes")
    }
    var embedded: [UInt8] = []
    embedded.reserveCapacity(length)
    for _ in 0..<length {
      let byte = try uvar(8)
      guard byte < 256 else { throw .corrupt("a header byte of \(byte)") }
      embedded.append(UInt8(byte))
    }
    let width = fileType <= 2 ? 8 : 16
    let format: EmbeddedFormat
    let isAIFF: Bool
    switch String(decoding: embedded.prefix(4), as: UTF8.self) {
    case "RIFF":
      format = try wave(embedded)
      isAIFF = false
    case "FORM":
      format = try aiff(embedded)
      isAIFF = true
    default:
      throw .unsupported("an embedded header that is neither WAV nor AIFF")
    }
    guard format.bits == width else {
      throw .corrupt("\(format.bits)-bit samples in the header, \(width)-bit in the stream")
    }
    var frames = format.frames
    if let bytes = format.dataBytes {
      frames = bytes / Int64(channels * width / 8)
    }
    return Header(
      version: version, fileType: fileType, channels: channels, blockSize: blockSize,
      sampleRate: format.rate, bitsPerSample: format.bits, frames: frames, isAIFF: isAIFF)
  }

  /// What an embedded header says: rate, sample size, and the data's length in bytes (WAV) or
  /// frames (AIFF).
  struct EmbeddedFormat {
    var rate: Int
    var bits: Int
    var dataBytes: Int64?
    var frames: Int64?
  }

  /// A WAV header: its `fmt ` chunk (PCM or WAVE_FORMAT_EXTENSIBLE) and its `data` chunk's size.
  static func wave(_ h: [UInt8]) throws(Problem) -> EmbeddedFormat {
    guard h.count >= 12, String(decoding: h[8..<12], as: UTF8.self) == "WAVE" else {
      throw .corrupt("a RIFF header that is not WAVE")
    }
    func little(_ at: Int, _ count: Int) -> Int64 { integer(h, at: at, count: count, bigEndian: false) }
    var format: EmbeddedFormat? = nil
    let found = try firstChunk(h, bigEndian: false) { (id, offset, size) throws(Problem) -> EmbeddedFormat? in
      if id == "fmt " {
        guard size >= 16, offset + 24 <= h.count else { throw .corrupt("a short fmt chunk") }
        let tag = little(offset + 8, 2)
        guard tag == 1 || tag == 0xFFFE else { throw .unsupported("WAV format \(tag)") }
        format = EmbeddedFormat(rate: Int(little(offset + 12, 4)), bits: Int(little(offset + 22, 2)))
      } else if id == "data" {
        guard var found = format else { throw .corrupt("a data chunk before the fmt chunk") }
        // A WAV written to a pipe says 0xFFFFFFFF: no length.
        found.dataBytes = size == 0xFFFF_FFFF ? nil : size
        return found
      }
      return nil
    }
    guard let result = found ?? format else { throw .corrupt("no fmt chunk") }
    return try checked(result)
  }

  /// An AIFF or AIFF-C header: its `COMM` chunk (channels, frames, sample size, rate as an
  /// 80-bit float).
  static func aiff(_ h: [UInt8]) throws(Problem) -> EmbeddedFormat {
    guard h.count >= 12, ["AIFF", "AIFC"].contains(String(decoding: h[8..<12], as: UTF8.self)) else {
      throw .corrupt("a FORM header that is not AIFF")
    }
    func big(_ at: Int, _ count: Int) -> Int64 { integer(h, at: at, count: count, bigEndian: true) }
    let found = try firstChunk(h, bigEndian: true) { (id, offset, size) throws(Problem) -> EmbeddedFormat? in
      guard id == "COMM" else { return nil }
      guard size >= 18, offset + 26 <= h.count else { throw .corrupt("a short COMM chunk") }
      let frames = big(offset + 10, 4)
      let bits = Int(big(offset + 14, 2))
      let exponent = Int(big(offset + 16, 2) & 0x7FFF) - 16383 - 63
      let mantissa = UInt64(bitPattern: big(offset + 18, 4) << 32 | big(offset + 22, 4))
      guard h[offset + 16] & 0x80 == 0, (-63...0).contains(exponent) else {
        throw .corrupt("a sample rate out of range")
      }
      // Rounded to the nearest whole rate, as FFmpeg does (without overflowing the mantissa).
      let shift = UInt64(-exponent)
      let rate = shift == 0 ? mantissa : (mantissa >> shift) + (mantissa >> (shift - 1) & 1)
      guard rate <= UInt64(Int32.max) else { throw .corrupt("a sample rate out of range") }
      return EmbeddedFormat(rate: Int(rate), bits: bits, frames: frames)
    }
    guard let found else { throw .corrupt("no COMM chunk") }
    return try checked(found)
  }

  /// Walks the chunks after a RIFF or FORM header's 12 bytes (`bigEndian` for FORM) and
  /// returns the first format `visit` gives for one (its id, its offset, its declared size).
  /// Chunks are padded to even sizes; a size past the header ends the walk.
  private static func firstChunk(
    _ h: [UInt8], bigEndian: Bool,
    _ visit: (_ id: String, _ offset: Int, _ size: Int64) throws(Problem) -> EmbeddedFormat?
  ) throws(Problem) -> EmbeddedFormat? {
    var offset = 12
    while offset + 8 <= h.count {
      let size = integer(h, at: offset + 4, count: 4, bigEndian: bigEndian)
      if let found = try visit(String(decoding: h[offset..<offset + 4], as: UTF8.self), offset, size) {
        return found
      }
      guard size <= Int64(h.count - offset - 8) else { break }
      offset += 8 + Int(size) + Int(size & 1)
    }
    return nil
  }

  /// The unsigned integer of `count` bytes (at most 4) at `at` in `h`, which holds them.
  private static func integer(_ h: [UInt8], at: Int, count: Int, bigEndian: Bool) -> Int64 {
    (0..<count).reduce(Int64(0)) {
      bigEndian ? $0 << 8 | Int64(h[at + $1]) : $0 | Int64(h[at + $1]) << (8 * $1)
    }
  }

  private static func checked(_ format: EmbeddedFormat) throws(Problem) -> EmbeddedFormat {
    guard format.rate > 0 else { throw .corrupt("a sample rate of 0") }
    guard format.bits == 8 || format.bits == 16 else { throw .unsupported("\(format.bits)-bit samples") }
    return format
  }

  /// The facts of a Shorten file (after a leading ID3v2 tag, which some taggers add). A header
  /// that declares no length (a WAV written to a pipe) gives 0 frames, with the defect said.
  ///
  /// Throws `FFmpegError` (the one error type of `MediaFileInfo.read`) when the header is not
  /// there or cannot be read.
  package static func info(_ file: RegularFile) throws(FFmpegError) -> AudioFileInfo {
    let (head, _, id3) = try ID3Reader.headAfterTag(file, count: prefixLength)
    let header: Header
    do {
      header = try parse(head)
    } catch {
      throw FFmpegError(path: file.path, call: "read", code: -22, message: error.message, failure: .badInput)
    }
    var frames: Int64 = 0
    var defect: String? = nil
    // A WAV or AIFF header written before its length was known says 0 (or nothing).
    if let declared = header.frames, declared > 0 {
      frames = declared
    } else {
      defect = "corrupt: the embedded header declares no length"
    }
    let seconds = Double(frames) / Double(header.sampleRate)
    return AudioFileInfo(
      duration: seconds, sampleRate: header.sampleRate, channels: header.channels, frames: frames,
      formatName: "shn", encodingName: "Shorten", bitsPerSample: header.bitsPerSample, isLossless: true,
      tags: id3?.tags ?? AudioTags(), codec: "shorten",
      bitrate: MediaFileInfo.averageBitrate(size: file.status.size, seconds: seconds),
      hasArtwork: id3?.hasPicture ?? false,
      defect: defect.map { AudioError(path: file.path, reason: .damaged, message: $0) })
  }
}
