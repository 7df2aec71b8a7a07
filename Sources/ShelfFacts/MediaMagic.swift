import ShelfAudio

/// The magic numbers of the rarer audio and video containers FFmpeg reads (DSDIFF, TAK, TTA,
/// Shorten, RealMedia, tracker modules, DV, FLV, MPEG transport streams, LATM/LOAS and ADIF
/// AAC), and what lies behind a leading ID3v2 tag. Kept apart from `ContentSniffer`'s common
/// formats; it calls in here. (ADIF and Shorten are read by shelf's own header readers,
/// ShelfAudio's `ADIFHeader` and `ShortenHeader`.)
enum MediaMagic {
  /// The kind and MIME type of the container whose signature starts `p` (a file's first bytes),
  /// or nil when none of these does. RealMedia, FLV, DV and MPEG-TS are video until probing
  /// finds no picture stream (the extractor then makes it audio).
  static func detect(_ p: [UInt8]) -> (kind: FileKind, mime: String)? {
    let head = ContentSniffer.ascii(p, 0, 4)
    switch head {
    case "FRM8" where ContentSniffer.ascii(p, 12, 4) == "DSD ": return (.audio, "audio/x-dff")
    case "tBaK": return (.audio, "audio/x-tak")
    // TTA1's format field: 1 PCM, 2 encrypted, 3 float.
    case "TTA1" where p.count >= 6 && p[5] == 0 && (1...3).contains(p[4]): return (.audio, "audio/x-tta")
    case ".RMF": return (.video, "video/vnd.rn-realvideo")
    case "IMPM": return (.audio, "audio/x-it")
    // ADIF: a header must follow its signature, whole or cut off by the file's end (text may
    // start with the word); Shorten's version byte is 0 to 3.
    case "ADIF" where isADIF(p): return (.audio, "audio/aac")
    case "ajkg" where p.count >= 5 && p[4] <= 3: return (.audio, "audio/x-shorten")
    default: break
    }
    // RealAudio's fourth byte is not ASCII: `ascii` decodes it as U+FFFD.
    if p.starts(with: [0x2E, 0x72, 0x61, 0xFD]) { return (.audio, "audio/vnd.rn-realaudio") }
    if ContentSniffer.ascii(p, 0, 17) == "Extended Module: " { return (.audio, "audio/x-xm") }
    if ContentSniffer.ascii(p, 44, 4) == "SCRM" { return (.audio, "audio/x-s3m") }
    if isProTrackerModule(p) { return (.audio, "audio/x-mod") }
    if isFLV(p) { return (.video, "video/x-flv") }
    if isDV(p) { return (.video, "video/dv") }
    if isTransportStream(p, packet: 188, sync: 0) || isTransportStream(p, packet: 192, sync: 4) {
      return (.video, "video/mp2t")
    }
    if isLOAS(p) { return (.audio, "audio/aac") }
    return nil
  }

  /// The end of the ID3v2 tag that starts `p` (header, body and footer), or nil when `p` does not
  /// start with one.
  static func id3TagEnd(_ p: [UInt8]) -> Int? {
    guard p.count >= 10, ContentSniffer.ascii(p, 0, 3) == "ID3", p[3] < 0x10 else { return nil }
    // A 28-bit "synchsafe" integer.
    let size = Int(p[6] & 0x7F) << 21 | Int(p[7] & 0x7F) << 14 | Int(p[8] & 0x7F) << 7 | Int(p[9] & 0x7F)
    return 10 + size + (p[5] & 0x10 != 0 ? 10 : 0)
  }

  /// The bytes to sniff for a file that starts with `prefix`: unchanged, unless an ID3v2 tag
  /// starts it and ends past the prefix's first half (cover art), when the tag's body is left
  /// out: its header (its size made zero) followed by what comes after the tag, read from
  /// `source`, so that a FLAC, WAV or Musepack file carrying such a tag is seen for what it is.
  static func prefixWithoutID3Body(_ prefix: [UInt8], source: any ByteSource) throws -> [UInt8] {
    guard let end = id3TagEnd(prefix), end > prefix.count / 2, Int64(end) < source.size else { return prefix }
    var header = Array(prefix[0..<10])
    header[5] &= ~0x10
    header.replaceSubrange(6..<10, with: [0, 0, 0, 0])
    return header + (try source.read(count: ContentSniffer.preferredPrefixLength - 10, at: Int64(end)))
  }

  /// A ProTracker-family module: its signature at byte 1080 (`M.K.`, `M!K!`, `FLT4`, `xCHN`,
  /// `xxCH`, …) after 31 sample headers. The older 15-sample modules have no signature.
  private static func isProTrackerModule(_ p: [UInt8]) -> Bool {
    let tag = ContentSniffer.ascii(p, 1080, 4)
    guard tag.utf8.count == 4 else { return false }
    if ["M.K.", "M!K!", "M&K!", "FLT4", "FLT8", "CD81", "OKTA", "OCTA", "FA04", "FA06", "FA08"].contains(tag)
    {
      return true
    }
    let digits = tag.prefix { $0.isASCII && $0.isNumber }
    return (digits.count == 1 && tag.hasSuffix("CHN"))
      || (digits.count == 2 && (tag.hasSuffix("CH") || tag.hasSuffix("CN")))
      || (tag.hasPrefix("TDZ") && digits.isEmpty && tag.last?.isNumber == true)
  }

  /// An ADIF header that reads; or one cut short by the end of the bytes (a file cut inside
  /// its header is still ADIF, its facts an error) whose first bytes hold a control character,
  /// as a header's bit fields do and text does not (text starting with the word "ADIF" runs
  /// out of bytes too: its program config element seems to declare dozens of elements). A
  /// header with impossible fields is not ADIF.
  private static func isADIF(_ p: [UInt8]) -> Bool {
    do {
      _ = try ADIFHeader.parse(p)
      return true
    } catch {
      return error == .truncated && p.prefix(32).contains { $0 < 0x09 || (0x0E..<0x20).contains($0) }
    }
  }

  /// FLV's header: `FLV`, version 1, the audio/video flags and a header size of 9.
  private static func isFLV(_ p: [UInt8]) -> Bool {
    p.count >= 9 && ContentSniffer.ascii(p, 0, 3) == "FLV" && p[3] == 1 && p[4] & 0xFA == 0
      && p[5] == 0 && p[6] == 0 && p[7] == 0 && p[8] == 9
  }

  /// A raw DV stream: a DIF sequence's header block (ID `1F 07 00`, the 525/625-line flag in the
  /// top bit of the fourth byte) followed by its first subcode block (`3F 07 00`).
  private static func isDV(_ p: [UInt8]) -> Bool {
    p.count >= 83 && p[0] == 0x1F && p[1] == 0x07 && p[2] == 0x00 && p[3] & 0x7F == 0x3F
      && p[80] == 0x3F && p[81] == 0x07 && p[82] == 0x00
  }

  /// MPEG-TS (188-byte packets) or M2TS/Blu-ray (a 4-byte timecode before each, 192 bytes): the
  /// sync byte 0x47 where each of the first packets starts, at least three of them in view.
  private static func isTransportStream(_ p: [UInt8], packet: Int, sync: Int) -> Bool {
    let packets = min((p.count - sync) / packet, 8)
    guard packets >= 3 else { return false }
    return (0..<packets).allSatisfy { p[sync + $0 * packet] == 0x47 }
  }

  /// AAC in LOAS (the AudioSyncStream that carries LATM, as DVB broadcasts and FFmpeg's `latm`
  /// muxer write it): an 11-bit sync word 0x2B7 and a 13-bit frame length, and the next sync
  /// word where that frame ends.
  private static func isLOAS(_ p: [UInt8]) -> Bool {
    guard p.count >= 3, p[0] == 0x56, p[1] & 0xE0 == 0xE0 else { return false }
    let next = 3 + (Int(p[1] & 0x1F) << 8 | Int(p[2]))
    return next + 2 <= p.count && p[next] == 0x56 && p[next + 1] & 0xE0 == 0xE0
  }
}
