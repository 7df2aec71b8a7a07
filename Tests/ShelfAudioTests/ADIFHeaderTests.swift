import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// Bit fields, most significant bit first, for building headers by hand.
struct BitFields {
  private(set) var bytes: [UInt8] = []
  private var pending = 0
  private var count = 0

  mutating func put(_ value: Int, _ width: Int) {
    for shift in stride(from: width - 1, through: 0, by: -1) {
      pending = pending << 1 | (value >> shift & 1)
      count += 1
      if count == 8 {
        bytes.append(UInt8(pending))
        pending = 0
        count = 0
      }
    }
  }

  mutating func align() {
    while count != 0 { put(0, 1) }
  }
}

/// The ADIF header shelf reads itself (FFmpeg 5.1 has no ADIF demuxer): every field of headers
/// built here bit by bit, the facts of a file, and damaged headers (cut short, lying counts, a
/// reserved rate, no channels, no bit rate), which end in an error or a defect, never a trap.
@Suite struct ADIFHeaderTests {
  /// A channel element of a program: a channel pair (two channels) or a single channel.
  struct Element {
    var pair: Bool
    var tag: Int
  }

  /// One program config element.
  static func program(
    _ bits: inout BitFields, objectType: Int = 1, rateIndex: Int = 3,
    front: [Element] = [Element(pair: true, tag: 0)],
    side: [Element] = [], back: [Element] = [], lfe: Int = 0, coupling: Int = 0, mixdowns: Bool = false,
    comment: [UInt8] = []
  ) {
    bits.put(0, 4)
    bits.put(objectType, 2)
    bits.put(rateIndex, 4)
    for count in [front.count, side.count, back.count] { bits.put(count, 4) }
    bits.put(lfe, 2)
    bits.put(0, 3)
    bits.put(coupling, 4)
    // Mono and stereo mixdown elements (4-bit tags), the matrix mixdown (2 bits, 1 bit).
    for width in [4, 4, 3] {
      bits.put(mixdowns ? 1 : 0, 1)
      if mixdowns { bits.put(0b101, width) }
    }
    for element in front + side + back {
      bits.put(element.pair ? 1 : 0, 1)
      bits.put(element.tag, 4)
    }
    for index in 0..<lfe { bits.put(index, 4) }
    for _ in 0..<coupling { bits.put(0, 5) }
    bits.align()
    bits.put(comment.count, 8)
    for byte in comment { bits.put(Int(byte), 8) }
  }

  /// An ADIF header: `programs` writes each program config element (their count is declared
  /// as `declaredPrograms`, default their number).
  static func header(
    copyright: [UInt8]? = nil, variable: Bool = false, bitrate: Int = 128_000, fullness: Int = 0x1234,
    declaredPrograms: Int? = nil, programs: [(inout BitFields) -> Void] = [{ program(&$0) }]
  ) -> [UInt8] {
    var bits = BitFields()
    for byte in "ADIF".utf8 { bits.put(Int(byte), 8) }
    bits.put(copyright == nil ? 0 : 1, 1)
    if let copyright { for byte in copyright { bits.put(Int(byte), 8) } }
    bits.put(1, 1)  // original
    bits.put(0, 1)  // home
    bits.put(variable ? 1 : 0, 1)
    bits.put(bitrate, 23)
    bits.put((declaredPrograms ?? programs.count) - 1, 4)
    if !variable { bits.put(fullness, 20) }
    for write in programs { write(&bits) }
    bits.align()
    return bits.bytes
  }

  @Test func readsEveryFieldOfAConstantBitRateHeader() throws {
    let copyright = Array("shelf-id!".utf8)
    let bytes = Self.header(
      copyright: copyright, bitrate: 96_000,
      programs: [
        {
          Self.program(
            &$0, objectType: 3, rateIndex: 6,
            front: [Element(pair: false, tag: 0), Element(pair: true, tag: 0)],
            back: [Element(pair: true, tag: 1)],
            lfe: 1, coupling: 2, mixdowns: true, comment: Array("hello".utf8))
        }
      ])
    let header = try ADIFHeader.parse(bytes + [0xAA, 0xBB])
    #expect(header.copyrightID == copyright)
    #expect(header.originalCopy && !header.home && !header.variableBitrate)
    #expect(header.bitrate == 96_000)
    #expect(header.bufferFullness == 0x1234)
    #expect(header.size == bytes.count)
    #expect(
      header.programs == [
        ADIFHeader.Program(
          objectType: 3, samplingFrequencyIndex: 6, channels: 6, comment: Array("hello".utf8))
      ])
  }

  @Test func readsAVariableBitRateHeaderWithTwoPrograms() throws {
    let bytes = Self.header(
      variable: true, bitrate: (1 << 23) - 1,
      programs: [
        { Self.program(&$0, objectType: 0, rateIndex: 11, front: [Element(pair: false, tag: 0)]) },
        { Self.program(&$0, rateIndex: 12) },
      ])
    let header = try ADIFHeader.parse(bytes)
    #expect(header.variableBitrate && header.bufferFullness == nil && header.copyrightID == nil)
    #expect(header.bitrate == 8_388_607)
    #expect(header.programs.map(\.channels) == [1, 2])
    #expect(header.programs.map(\.samplingFrequencyIndex) == [11, 12])
    #expect(header.size == bytes.count)
  }

  /// The facts: the first program's rate and channels, and the length mediainfo gives, the
  /// stream's bytes at the header's bit rate (here 4,096 bytes at 128 kbit/s: 0.256 s), after
  /// a leading ID3v2 tag whose title is read too.
  @Test func factsOfAFileWithAnID3TagAhead() throws {
    let folder = try TemporaryDirectory()
    let stream = Self.header(bitrate: 128_000) + [UInt8](repeating: 0x21, count: 4096 - Self.header().count)
    let frame = [0] + Array("Ahead".utf8)
    let body = Array("TIT2".utf8) + [0, 0, 0, UInt8(frame.count), 0, 0] + frame
    let tag = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, UInt8(body.count)] + body
    let file = try RegularFile(path: RawPath(try folder.write("tagged.aac", tag + stream)))
    let info = try ADIFHeader.info(file)
    #expect(info.sampleRate == 48000 && info.channels == 2)
    #expect(info.frames == 12288 && info.duration == 0.256)
    #expect(info.codec == "aac" && info.formatName == "adif" && info.bitrate == 128_000)
    #expect(info.encodingName == "AAC (Advanced Audio Coding)" && !info.isLossless)
    #expect(info.title == "Ahead")
    #expect(info.defect == nil)
    #expect(MediaFileInfo.ownReader(file, mime: "audio/aac") == .adif)
    #expect(try MediaFileInfo.read(file, mime: "audio/aac") == .audio(info))
  }

  /// Every prefix of a header is cut short: an error, never a trap or a read past the end.
  @Test func everyTruncationIsAnError() {
    let bytes = Self.header(
      copyright: Array("123456789".utf8),
      programs: [{ Self.program(&$0, back: [Element(pair: true, tag: 1)], comment: [1, 2, 3]) }])
    for length in 0..<bytes.count {
      #expect(throws: ADIFHeader.Problem.self) { try ADIFHeader.parse(Array(bytes.prefix(length))) }
    }
  }

  @Test func lyingAndImpossibleHeaders() throws {
    // Sixteen programs declared, one present.
    #expect(throws: ADIFHeader.Problem.truncated) { try ADIFHeader.parse(Self.header(declaredPrograms: 16)) }
    // A reserved sampling frequency index.
    #expect(throws: ADIFHeader.Problem.reservedSampleRate(13)) {
      try ADIFHeader.parse(Self.header(programs: [{ Self.program(&$0, rateIndex: 13) }]))
    }
    // A program without channels.
    #expect(throws: ADIFHeader.Problem.noChannels) {
      try ADIFHeader.parse(Self.header(programs: [{ Self.program(&$0, front: []) }]))
    }
    // The most channels a program can declare (45 channel pairs and 3 LFE) are read as said.
    let pairs = (0..<15).map { Element(pair: true, tag: $0) }
    let widest = try ADIFHeader.parse(
      Self.header(programs: [{ Self.program(&$0, front: pairs, side: pairs, back: pairs, lfe: 3) }]))
    #expect(widest.programs[0].channels == 93)
    #expect(throws: ADIFHeader.Problem.notADIF) { try ADIFHeader.parse(Array("ADTS".utf8)) }
  }

  /// No bit rate: the length is unknown (0, with the defect said), the rest of the facts stand.
  @Test func aZeroBitRateLeavesTheLengthUnknown() throws {
    let folder = try TemporaryDirectory()
    let file = try RegularFile(
      path: RawPath(try folder.write("zero.aac", Self.header(bitrate: 0) + [UInt8](repeating: 1, count: 500)))
    )
    let info = try ADIFHeader.info(file)
    #expect(info.frames == 0 && info.duration == 0 && info.bitrate == nil)
    #expect(info.sampleRate == 48000 && info.channels == 2)
    #expect(info.defect?.message.contains("no bit rate") == true)
  }

  /// A file cut inside its header: a one-line error naming the file.
  @Test func aFileCutInsideItsHeaderIsAnError() throws {
    let folder = try TemporaryDirectory()
    let file = try RegularFile(path: RawPath(try folder.write("cut.aac", Array(Self.header().prefix(9)))))
    let error = #expect(throws: FFmpegError.self) { try ADIFHeader.info(file) }
    #expect(error?.message == "truncated ADIF header")
    #expect(error?.failure == .badInput)
  }
}
