import ShelfCore

/// AAC in ADIF (the Audio Data Interchange Format of MPEG-2 AAC, ISO/IEC 13818-7 and
/// 14496-3 §1.A): one header at the start of the file, then raw data blocks with no framing.
/// FFmpeg 5.1 has no demuxer for it, so shelf reads the header itself: the rate and channels of
/// its program config element, and the bit rate the length is estimated from, as `mediainfo`
/// and `faad` do (there are no frames to count without decoding).
package enum ADIFHeader {
  /// What the header says. Every field is as read; `programs` holds at least one element.
  package struct Header: Equatable {
    /// The 72-bit copyright identifier, when present.
    var copyrightID: [UInt8]?
    var originalCopy: Bool
    var home: Bool
    /// True for a variable bit rate stream (`bitstream_type` 1), where `bitrate` is its peak.
    var variableBitrate: Bool
    /// Bits per second (23 bits; 0 when the writer left it out).
    var bitrate: Int
    /// `adif_buffer_fullness` of a constant bit rate stream.
    var bufferFullness: Int?
    var programs: [Program]
    /// Bytes the header takes, from "ADIF" to the first raw data block.
    var size: Int
  }

  /// One program config element: the stream's profile, rate and channel elements.
  package struct Program: Equatable {
    /// `object_type`: 0 Main, 1 LC, 2 SSR, 3 LTP.
    var objectType: Int
    var samplingFrequencyIndex: Int
    /// Front, side and back elements (a channel pair counts two) and LFE channels.
    var channels: Int
    var comment: [UInt8]
  }

  /// Sampling frequencies by index (13 to 15 are reserved).
  static let sampleRates = [
    96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
  ]
  /// Profile names of the object types, for messages.
  static let profiles = ["Main", "LC", "SSR", "LTP"]

  /// Why a header cannot be read.
  package enum Problem: Error, Equatable {
    case notADIF
    case truncated
    case reservedSampleRate(Int)
    case noChannels

    var message: String {
      switch self {
      case .notADIF: return "not an ADIF stream"
      case .truncated: return "truncated ADIF header"
      case .reservedSampleRate(let index):
        return "corrupt ADIF header: reserved sampling frequency index \(index)"
      case .noChannels: return "corrupt ADIF header: its program declares no channels"
      }
    }
  }

  /// The most bytes a header can take: 16 program config elements of at most 45 channel
  /// elements, 15 coupling elements and a 255-byte comment each (under 400 bytes apiece).
  static let longestHeader = 8192

  /// Reads the header that starts `bytes`.
  package static func parse(_ bytes: [UInt8]) throws(Problem) -> Header {
    guard bytes.starts(with: Array("ADIF".utf8)) else { throw .notADIF }
    var bits = BitCursor(bytes, from: 4)
    func read(_ count: Int) throws(Problem) -> Int {
      guard let value = bits.read(count) else { throw .truncated }
      return Int(value)
    }
    var copyright: [UInt8]? = nil
    if try read(1) == 1 {
      var id: [UInt8] = []
      for _ in 0..<9 { id.append(UInt8(try read(8))) }
      copyright = id
    }
    let originalCopy = try read(1) == 1
    let home = try read(1) == 1
    let variable = try read(1) == 1
    let bitrate = try read(23)
    let programCount = try read(4) + 1
    let fullness = variable ? nil : try read(20)
    var programs: [Program] = []
    for _ in 0..<programCount {
      programs.append(try program(&bits))
    }
    // The raw data blocks start on a byte boundary.
    bits.alignToByte()
    guard let first = programs.first else { throw .truncated }
    guard first.channels > 0 else { throw .noChannels }
    return Header(
      copyrightID: copyright, originalCopy: originalCopy, home: home, variableBitrate: variable,
      bitrate: bitrate, bufferFullness: fullness, programs: programs, size: bits.position / 8)
  }

  /// A `program_config_element()` (14496-3 table 4.2).
  private static func program(_ bits: inout BitCursor) throws(Problem) -> Program {
    func read(_ count: Int) throws(Problem) -> Int {
      guard let value = bits.read(count) else { throw .truncated }
      return Int(value)
    }
    _ = try read(4)  // element_instance_tag
    let objectType = try read(2)
    let frequency = try read(4)
    guard frequency < sampleRates.count else { throw .reservedSampleRate(frequency) }
    let front = try read(4)
    let side = try read(4)
    let back = try read(4)
    let lfe = try read(2)
    let associated = try read(3)
    let coupling = try read(4)
    if try read(1) == 1 { _ = try read(4) }  // mono mixdown element
    if try read(1) == 1 { _ = try read(4) }  // stereo mixdown element
    if try read(1) == 1 { _ = try read(3) }  // matrix mixdown index, pseudo surround
    var channels = lfe
    for _ in 0..<(front + side + back) {
      // element_is_cpe, element_tag_select: a channel pair element carries two channels.
      channels += try read(1) == 1 ? 2 : 1
      _ = try read(4)
    }
    for _ in 0..<(lfe + associated) { _ = try read(4) }
    for _ in 0..<coupling { _ = try read(5) }
    bits.alignToByte()
    let length = try read(8)
    var comment: [UInt8] = []
    for _ in 0..<length { comment.append(UInt8(try read(8))) }
    return Program(
      objectType: objectType, samplingFrequencyIndex: frequency, channels: channels, comment: comment)
  }

  /// The facts of an ADIF file (after a leading ID3v2 tag, which some taggers add): the first
  /// program's rate and channels, and a length of the stream's bytes (from "ADIF" to the end of
  /// the file, as `mediainfo` counts them) at the header's bit rate. Without a bit rate the
  /// length is unknown: 0, with the defect said.
  ///
  /// Throws `FFmpegError` (for the one error type of `MediaFileInfo.read`) when the header is
  /// not there or cannot be read.
  package static func info(_ file: RegularFile) throws(FFmpegError) -> AudioFileInfo {
    func failure(_ message: String) -> FFmpegError {
      FFmpegError(path: file.path, call: "read", code: -22, message: message, failure: .badInput)
    }
    let (head, start, id3) = try ID3Reader.headAfterTag(file, count: longestHeader)
    let header: Header
    do {
      header = try parse(head)
    } catch {
      throw failure(error.message)
    }
    let program = header.programs[0]
    let rate = sampleRates[program.samplingFrequencyIndex]
    let streamBytes = file.status.size - start
    var frames: Int64 = 0
    var defect: String? = nil
    if header.bitrate > 0,
      let counted = MediaFileInfo.frameCount(
        seconds: Double(streamBytes) * 8 / Double(header.bitrate), rate: rate)
    {
      frames = counted
    } else {
      defect = "corrupt: the ADIF header declares no bit rate, so the length is unknown"
    }
    return AudioFileInfo(
      duration: Double(frames) / Double(rate), sampleRate: rate, channels: program.channels, frames: frames,
      formatName: "adif", encodingName: "AAC (Advanced Audio Coding)", bitsPerSample: nil, isLossless: false,
      tags: id3?.tags ?? AudioTags(), codec: "aac", bitrate: header.bitrate > 0 ? header.bitrate : nil,
      hasArtwork: id3?.hasPicture ?? false,
      defect: defect.map { AudioError(path: file.path, reason: .damaged, message: $0) })
  }
}
