import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// The Shorten header shelf reads itself (FFmpeg's raw shn demuxer gives no length): stream
/// headers written here with Shorten's Rice codes around real WAV and AIFF headers, and damaged
/// ones (cut short, lying sizes, absurd channel counts, endless unary runs), which end in an
/// error, never a trap or a hang.
@Suite struct ShortenHeaderTests {
  /// Shorten's unsigned Rice code: `value >> k` zeros, a one, `k` low bits.
  static func uvar(_ bits: inout BitFields, _ value: Int, _ k: Int) {
    for _ in 0..<(value >> k) { bits.put(0, 1) }
    bits.put(1, 1)
    if k > 0 { bits.put(value & (1 << k - 1), k) }
  }

  /// A header field of version 1 and later: its width, then the value.
  static func ulong(_ bits: inout BitFields, _ value: Int) {
    let width = value == 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount
    uvar(&bits, width, 2)
    uvar(&bits, value, width)
  }

  /// A canonical 44-byte WAV header.
  static func wav(rate: Int, channels: Int, bits: Int, dataBytes: UInt64) -> [UInt8] {
    let align = channels * bits / 8
    return Array("RIFF".utf8) + HostileFiles.littleEndian((36 + dataBytes) & 0xFFFF_FFFF, count: 4)
      + Array("WAVEfmt ".utf8) + HostileFiles.littleEndian(16, count: 4)
      + HostileFiles.littleEndian(1, count: 2)
      + HostileFiles.littleEndian(UInt64(channels), count: 2)
      + HostileFiles.littleEndian(UInt64(rate), count: 4)
      + HostileFiles.littleEndian(UInt64(rate * align), count: 4)
      + HostileFiles.littleEndian(UInt64(align), count: 2)
      + HostileFiles.littleEndian(UInt64(bits), count: 2) + Array("data".utf8)
      + HostileFiles.littleEndian(dataBytes, count: 4)
  }

  /// An AIFF header (FORM, COMM with the rate as an 80-bit float, SSND's header).
  static func aiff(rate: Int, channels: Int, frames: UInt64) -> [UInt8] {
    let exponent = Int.bitWidth - 1 - rate.leadingZeroBitCount
    let comm =
      Array("COMM".utf8) + HostileFiles.bigEndian(18, count: 4)
      + HostileFiles.bigEndian(UInt64(channels), count: 2)
      + HostileFiles.bigEndian(frames, count: 4) + HostileFiles.bigEndian(16, count: 2)
      + HostileFiles.bigEndian(UInt64(16383 + exponent), count: 2)
      + HostileFiles.bigEndian(UInt64(rate) << (63 - exponent), count: 8)
    let ssnd = Array("SSND".utf8) + HostileFiles.bigEndian(8, count: 4) + [UInt8](repeating: 0, count: 8)
    return Array("FORM".utf8) + HostileFiles.bigEndian(UInt64(4 + comm.count + ssnd.count), count: 4)
      + Array("AIFF".utf8) + comm + ssnd
  }

  /// `ajkg`, the version, the header fields, a verbatim block with `embedded`, then QUIT.
  static func stream(
    version: Int = 2, type: Int = 5, channels: Int = 2, blockSize: Int = 256, skip: [UInt8] = [],
    embedded: [UInt8], declaredLength: Int? = nil
  ) -> [UInt8] {
    var bits = BitFields()
    for byte in "ajkg".utf8 { bits.put(Int(byte), 8) }
    bits.put(version, 8)
    if version == 0 {
      uvar(&bits, type, 4)
      uvar(&bits, channels, 0)
    } else {
      for field in [type, channels, blockSize, 0, 4, skip.count] { ulong(&bits, field) }
      for byte in skip { bits.put(Int(byte), 8) }
    }
    uvar(&bits, 9, 2)
    uvar(&bits, declaredLength ?? embedded.count, 5)
    for byte in embedded { uvar(&bits, Int(byte), 8) }
    uvar(&bits, 4, 2)
    bits.align()
    return bits.bytes
  }

  @Test func readsAStreamWithAWAVHeader() throws {
    // 44,100 Hz stereo 16-bit, 1,000 frames (4,000 data bytes); two bytes skipped.
    let bytes = Self.stream(
      version: 3, blockSize: 1152, skip: [7, 7],
      embedded: Self.wav(rate: 44100, channels: 2, bits: 16, dataBytes: 4000))
    let header = try ShortenHeader.parse(bytes)
    #expect(
      header
        == ShortenHeader.Header(
          version: 3, fileType: 5, channels: 2, blockSize: 1152, sampleRate: 44100, bitsPerSample: 16,
          frames: 1000, isAIFF: false))
  }

  /// A WAV header with a 1,400-byte LIST chunk before its data chunk: the verbatim block's
  /// length takes a unary run of 45 zeros.
  @Test func readsALongEmbeddedHeader() throws {
    let plain = Self.wav(rate: 32000, channels: 1, bits: 16, dataBytes: 64000)
    let list =
      Array("LIST".utf8) + HostileFiles.littleEndian(1400, count: 4) + [UInt8](repeating: 0x41, count: 1400)
    let embedded = Array(plain.prefix(36)) + list + Array(plain.suffix(8))
    let header = try ShortenHeader.parse(Self.stream(channels: 1, embedded: embedded))
    #expect(header.frames == 32000 && header.sampleRate == 32000 && header.channels == 1)
  }

  @Test func readsVersionZeroAndEightBitSamples() throws {
    let bytes = Self.stream(
      version: 0, type: 2, channels: 1, embedded: Self.wav(rate: 8000, channels: 1, bits: 8, dataBytes: 12345)
    )
    let header = try ShortenHeader.parse(bytes)
    #expect(header.version == 0 && header.blockSize == 256 && header.fileType == 2)
    #expect(header.frames == 12345 && header.sampleRate == 8000 && header.bitsPerSample == 8)
  }

  @Test func readsAnAIFFHeader() throws {
    let bytes = Self.stream(type: 3, embedded: Self.aiff(rate: 22050, channels: 2, frames: 77777))
    let header = try ShortenHeader.parse(bytes)
    #expect(
      header.isAIFF && header.sampleRate == 22050 && header.frames == 77777 && header.bitsPerSample == 16)
  }

  /// The facts of a file: the WAV header's length at its rate, codec shorten, lossless.
  @Test func factsOfAFile() throws {
    let folder = try TemporaryDirectory()
    let bytes = Self.stream(embedded: Self.wav(rate: 48000, channels: 2, bits: 16, dataBytes: 4 * 96000))
    let file = try RegularFile(path: RawPath(try folder.write("song.shn", bytes)))
    let info = try ShortenHeader.info(file)
    #expect(info.frames == 96000 && info.duration == 2 && info.sampleRate == 48000 && info.channels == 2)
    #expect(info.codec == "shorten" && info.encodingName == "Shorten" && info.formatName == "shn")
    #expect(info.isLossless && info.bitsPerSample == 16 && info.defect == nil)
    #expect(info.bitrate == bytes.count * 8 / 2)
    #expect(MediaFileInfo.ownReader(file, mime: "audio/x-shorten") == .shorten)
    #expect(MediaFileInfo.ownReader(file, mime: nil) == .shorten)
    #expect(MediaFileInfo.ownReader(file, mime: "audio/mpeg") == nil)
  }

  /// A WAV header written before its length was known (0, or 0xFFFFFFFF from a pipe): the
  /// length is unknown (0 frames, the defect said), the rest stands.
  @Test func aHeaderWithoutALength() throws {
    let folder = try TemporaryDirectory()
    for size: UInt64 in [0, 0xFFFF_FFFF] {
      let bytes = Self.stream(embedded: Self.wav(rate: 44100, channels: 2, bits: 16, dataBytes: size))
      let info = try ShortenHeader.info(RegularFile(path: RawPath(try folder.write("pipe.shn", bytes))))
      #expect(info.frames == 0 && info.sampleRate == 44100)
      #expect(info.defect?.message == "corrupt: the embedded header declares no length")
    }
  }

  /// Every prefix of a stream's header is cut short: an error, never a trap.
  @Test func everyTruncationIsAnError() {
    let bytes = Self.stream(embedded: Self.wav(rate: 44100, channels: 2, bits: 16, dataBytes: 4000))
    // The header ends a few bits before the stream does (its QUIT command and padding).
    let complete = (0...bytes.count).first { (try? ShortenHeader.parse(Array(bytes.prefix($0)))) != nil }
    #expect((complete ?? 0) >= bytes.count - 1)
    for length in 0..<(complete ?? bytes.count) {
      #expect(throws: ShortenHeader.Problem.self) { try ShortenHeader.parse(Array(bytes.prefix(length))) }
    }
  }

  @Test func absurdAndLyingHeaders() {
    let wav = Self.wav(rate: 44100, channels: 2, bits: 16, dataBytes: 4000)
    func problem(_ bytes: [UInt8]) -> ShortenHeader.Problem? {
      do {
        _ = try ShortenHeader.parse(bytes)
        return nil
      } catch {
        return error
      }
    }
    #expect(problem(Self.stream(channels: 0, embedded: wav)) == .corrupt("no channels"))
    #expect(problem(Self.stream(channels: 9, embedded: wav)) == .unsupported("9 channels"))
    #expect(problem(Self.stream(channels: 1 << 30, embedded: wav)) == .unsupported("1073741824 channels"))
    #expect(problem(Self.stream(blockSize: 0, embedded: wav)) == .corrupt("block size 0"))
    #expect(problem(Self.stream(blockSize: 70000, embedded: wav)) == .corrupt("block size 70000"))
    #expect(problem(Self.stream(type: 7, embedded: wav)) == .unsupported("sample type 7"))
    #expect(problem(Self.stream(version: 4, embedded: wav)) == .unsupported("version 4"))
    #expect(
      problem(Self.stream(embedded: Array(wav.prefix(43)))) == .corrupt("an embedded header of 43 bytes"))
    // A verbatim block that says it is longer than what follows: its QUIT command and padding
    // read as a byte of 256, then the end.
    #expect(problem(Self.stream(embedded: wav, declaredLength: 16000)) == .corrupt("a header byte of 256"))
    #expect(
      problem(Self.stream(type: 2, embedded: wav))
        == .corrupt("16-bit samples in the header, 8-bit in the stream"))
    #expect(
      problem(Self.stream(embedded: Self.wav(rate: 0, channels: 2, bits: 16, dataBytes: 4)))
        == .corrupt("a sample rate of 0"))
    #expect(
      problem(Self.stream(embedded: Self.wav(rate: 44100, channels: 2, bits: 24, dataBytes: 6)))
        == .unsupported("24-bit samples"))
    #expect(problem(Array("RIFF".utf8)) == .notShorten)
    // Ten thousand zero bits where a field should be: refused after 1,024, not counted on.
    #expect(
      problem(Array("ajkg".utf8) + [2] + [UInt8](repeating: 0, count: 1250)) == .corrupt("a value too large"))
    // Skipped bytes beyond the end.
    var bits = BitFields()
    for byte in "ajkg".utf8 { bits.put(Int(byte), 8) }
    bits.put(2, 8)
    for field in [5, 2, 256, 0, 4, 1 << 31] { Self.ulong(&bits, field) }
    bits.align()
    #expect(problem(bits.bytes) == .truncated)
  }
}
