/// The broad kind of a file, as the catalogue groups it.
public enum FileKind: String, Sendable, CaseIterable {
  case image, audio, video, text, plist, other
}

/// How a file's kind was decided.
public enum DetectionMethod: String, Sendable {
  /// The content alone decided (the extension is absent, unknown or disagrees).
  case content
  /// The content was not conclusive; the extension decided.
  case `extension`
  /// The content decided and the extension agrees.
  case contentAndExtension = "content+extension"
}

/// What sniffing a file's first bytes found.
public struct SniffResult: Sendable, Equatable {
  /// The broad kind.
  public var kind: FileKind
  /// The MIME type, without parameters (`image/png`, `text/plain`).
  public var mime: String
  /// How the kind was decided.
  public var detectedBy: DetectionMethod
  /// True when the content was recognised and the extension names another type.
  public var extensionMismatch: Bool
  /// The encoding of a text file, as `TextSniffer` decided it.
  public var textEncoding: DetectedEncoding?

  /// Creates a result.
  public init(
    kind: FileKind, mime: String, detectedBy: DetectionMethod, extensionMismatch: Bool,
    textEncoding: DetectedEncoding? = nil
  ) {
    self.kind = kind
    self.mime = mime
    self.detectedBy = detectedBy
    self.extensionMismatch = extensionMismatch
    self.textEncoding = textEncoding
  }
}

/// Decides a file's kind and MIME type from its first bytes (magic numbers first), using the
/// extension only as a tie-breaker.
public enum ContentSniffer {
  /// How many leading bytes `sniff` wants to see for a confident answer.
  public static let preferredPrefixLength = 8192

  /// Sniffs a file from its content and its extension (with or without the dot, any case):
  /// magic numbers in its first `preferredPrefixLength` bytes, else whether it is text, decided
  /// from a `TextSample` (the whole file up to 1 MiB, evenly spaced samples beyond).
  public static func sniff(_ source: any ByteSource, fileExtension: String) throws -> SniffResult {
    let prefix = try MediaMagic.prefixWithoutID3Body(
      source.read(count: preferredPrefixLength, at: 0), source: source)
    let footer =
      ImageHeaderReader.isPlausibleTGAHeader(prefix) && source.size > Int64(prefix.count)
      ? try source.read(count: 26, at: source.size - 26) : nil
    var sample: TextSample?
    return try sniff(prefix: prefix, footer: footer, fileExtension: fileExtension) {
      if let sample { return sample }
      if TextSniffer.prefixRulesOutText(prefix) { return TextSample(prefix, reachesEnd: false) }
      let read = try TextSample(reading: source)
      sample = read
      return read
    }
  }

  /// Sniffs a file from its first bytes (ideally `preferredPrefixLength` of them, fewer when the
  /// file is shorter) and its extension (with or without the dot, any case); text is decided
  /// from these bytes alone.
  public static func sniff(prefix: [UInt8], fileExtension: String) -> SniffResult {
    let sample = TextSample(prefix, reachesEnd: prefix.count < preferredPrefixLength)
    return sniff(prefix: prefix, footer: nil, fileExtension: fileExtension) { sample }
  }

  /// `footer` is the file's last 26 bytes when the prefix does not reach them and the prefix
  /// could be a TGA's (which keeps its signature there).
  private static func sniff(
    prefix: [UInt8], footer: [UInt8]?, fileExtension: String, textSample: () throws -> TextSample
  ) rethrows -> SniffResult {
    var ext = fileExtension.lowercased()
    if ext.hasPrefix(".") { ext.removeFirst() }
    let byExtension = extensionTable[ext]

    if prefix.isEmpty {
      return SniffResult(
        kind: .other, mime: "application/x-empty", detectedBy: .content, extensionMismatch: false)
    }

    let tail = footer ?? (prefix.count < preferredPrefixLength ? Array(prefix.suffix(26)) : [])
    switch try detect(prefix, footer: tail, textSample: textSample) {
    case .text(let encoding):
      var result = decided(kind: .text, mime: "text/plain", byExtension: byExtension, ext: ext)
      result.textEncoding = encoding
      return result
    case .strong(let kind, let mime):
      return decided(kind: kind, mime: mime, byExtension: byExtension, ext: ext)
    case .weak(let kind, let mime):
      // A weak signal (one MPEG frame header) counts only when the extension agrees.
      if let known = byExtension, known.mime == mime {
        return SniffResult(
          kind: kind, mime: mime, detectedBy: .contentAndExtension, extensionMismatch: false)
      }
      return unknownContent(byExtension: byExtension, prefix: prefix)
    case .none:
      return unknownContent(byExtension: byExtension, prefix: prefix)
    }
  }

  // MARK: - Decision

  private static func decided(
    kind: FileKind, mime: String, byExtension: (kind: FileKind, mime: String)?, ext: String
  ) -> SniffResult {
    guard let known = byExtension.map({ (kind: $0.kind, mime: $0.mime, ext: ext) }) else {
      return SniffResult(kind: kind, mime: mime, detectedBy: .content, extensionMismatch: false)
    }
    let agrees: Bool
    if kind == .text {
      agrees = known.kind == .text
      // Text is text; a text extension only names the dialect (`.md` is text/markdown).
      if agrees, let refined = textMIMEs[known.ext] {
        return SniffResult(
          kind: kind, mime: refined, detectedBy: .contentAndExtension, extensionMismatch: false)
      }
    } else {
      agrees = known.mime == mime || equivalentMIMEs(known.mime, mime)
    }
    return SniffResult(
      kind: kind, mime: mime, detectedBy: agrees ? .contentAndExtension : .content,
      extensionMismatch: !agrees)
  }

  private static func unknownContent(byExtension: (kind: FileKind, mime: String)?, prefix: [UInt8])
    -> SniffResult
  {
    if let known = byExtension, known.kind != .text {
      return SniffResult(
        kind: known.kind, mime: known.mime, detectedBy: .extension, extensionMismatch: false)
    }
    return SniffResult(
      kind: .other, mime: "application/octet-stream", detectedBy: .content,
      extensionMismatch: byExtension != nil)
  }

  private static func equivalentMIMEs(_ a: String, _ b: String) -> Bool {
    let groups: [Set<String>] = [
      ["image/heic", "image/heif"],
      ["image/jp2", "image/jpx"],
      ["audio/ogg", "audio/opus"],
      // One container family, whatever its brand says: an `.m4a` may say `mp42`, an `.mp4` may
      // hold only sound.
      ["audio/mp4", "video/mp4", "video/quicktime", "video/x-m4v", "video/3gpp", "audio/3gpp"],
      ["video/webm", "video/x-matroska", "audio/x-matroska", "audio/webm"],
      ["audio/x-ms-wma", "video/x-ms-asf", "video/x-ms-wmv"],
      ["audio/amr", "audio/amr-wb"],
      ["audio/ac3", "audio/eac3"],
      ["video/vnd.rn-realvideo", "audio/vnd.rn-realaudio"],
      ["application/x-plist", "application/x-bplist"],
    ]
    return groups.contains { $0.contains(a) && $0.contains(b) }
  }

  private enum Detection {
    case text(DetectedEncoding)
    case strong(FileKind, String)
    case weak(FileKind, String)
    case none
  }

  // MARK: - Magic numbers

  private static func detect(_ p: [UInt8], footer: [UInt8], textSample: () throws -> TextSample) rethrows
    -> Detection
  {
    // Images.
    if p.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      return .strong(.image, "image/png")
    }
    if p.count >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF {
      return .strong(.image, "image/jpeg")
    }
    if p.starts(with: Array("GIF87a".utf8)) || p.starts(with: Array("GIF89a".utf8)) {
      return .strong(.image, "image/gif")
    }
    if isBMP(p) { return .strong(.image, "image/bmp") }
    if p.starts(with: [0x49, 0x49, 0x2A, 0x00]) || p.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
      || p.starts(with: [0x49, 0x49, 0x2B, 0x00]) || p.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
    {
      return .strong(.image, "image/tiff")
    }
    if matchesRIFF(p, form: "WEBP") { return .strong(.image, "image/webp") }
    if let ftyp = isoBrand(p) { return ftyp }
    if let netpbm = netpbm(p) { return netpbm }
    if p.starts(with: Array("/* XPM */".utf8)) || p.starts(with: Array("! XPM2".utf8)) {
      return .strong(.image, "image/x-xpixmap")
    }
    if let icon = windowsIcon(p) { return icon }
    if p.starts(with: Array("icns".utf8)) && p.count >= 16 && ascii(p, 8, 2).allSatisfy(\.isASCII) {
      return .strong(.image, "image/x-icns")
    }
    if p.starts(with: Array("8BPS".utf8)) && p.count >= 6 && p[4] == 0 && (p[5] == 1 || p[5] == 2) {
      return .strong(.image, "image/vnd.adobe.photoshop")
    }
    if p.starts(with: Array("qoif".utf8)) && p.count >= 14 && (p[12] == 3 || p[12] == 4) {
      return .strong(.image, "image/x-qoi")
    }
    if p.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
      return .strong(.image, p.count >= 24 && ascii(p, 20, 4) == "jpx " ? "image/jpx" : "image/jp2")
    }
    if p.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return .strong(.image, "image/x-jp2-codestream") }
    if isSVG(p) { return .strong(.image, "image/svg+xml") }
    if let mime = ClassicImageMagic.mime(forPrefix: p) { return .strong(.image, mime) }

    // Audio.
    if matchesRIFF(p, form: "WAVE") { return .strong(.audio, "audio/wav") }
    if p.count >= 12 && ascii(p, 0, 4) == "RF64" && ascii(p, 8, 4) == "WAVE" {
      return .strong(.audio, "audio/wav")
    }
    if p.count >= 12 && ascii(p, 0, 4) == "BW64" && ascii(p, 8, 4) == "WAVE" {
      return .strong(.audio, "audio/wav")
    }
    if p.starts(with: w64RIFF) && p.count >= 40 && Array(p[24..<40]) == w64WAVE {
      return .strong(.audio, "audio/x-w64")
    }
    if p.count >= 12 && ascii(p, 0, 4) == "FORM"
      && (ascii(p, 8, 4) == "AIFF" || ascii(p, 8, 4) == "AIFC")
    {
      return .strong(.audio, "audio/aiff")
    }
    if p.starts(with: Array("fLaC".utf8)) { return .strong(.audio, "audio/flac") }
    if p.starts(with: Array("OggS".utf8)) { return ogg(p) }
    if p.count >= 6 && ascii(p, 0, 4) == "caff" && p[4] == 0 && p[5] == 1 {
      return .strong(.audio, "audio/x-caf")
    }
    if p.starts(with: Array(".snd".utf8)) { return .strong(.audio, "audio/basic") }
    if p.starts(with: Array("ID3".utf8)) && p.count >= 10 && p[3] < 0x10 {
      return afterID3(p)
    }
    if p.starts(with: Array("MThd".utf8)) { return .strong(.audio, "audio/midi") }
    if p.starts(with: Array("#!AMR-WB\n".utf8)) { return .strong(.audio, "audio/amr-wb") }
    if p.starts(with: Array("#!AMR".utf8)) { return .strong(.audio, "audio/amr") }
    if p.starts(with: Array("MAC ".utf8)) { return .strong(.audio, "audio/x-ape") }
    if p.starts(with: Array("wvpk".utf8)) { return .strong(.audio, "audio/x-wavpack") }
    if p.starts(with: Array("MPCK".utf8)) || p.starts(with: Array("MP+".utf8)) {
      return .strong(.audio, "audio/x-musepack")
    }
    if p.starts(with: asfHeader) { return .strong(.audio, "audio/x-ms-wma") }
    if p.count >= 32 && ascii(p, 0, 4) == "DSD " && ascii(p, 28, 4) == "fmt " {
      return .strong(.audio, "audio/x-dsf")
    }
    if p.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return matroska(p) }
    if matchesRIFF(p, form: "AVI ") { return .strong(.video, "video/x-msvideo") }
    if let ac3 = ac3(p) { return ac3 }
    if let dts = dts(p) { return dts }
    if let media = MediaMagic.detect(p) { return .strong(media.kind, media.mime) }

    // Property lists.
    if p.starts(with: Array("bplist0".utf8)) { return .strong(.plist, "application/x-bplist") }
    if isXMLPlist(p) { return .strong(.plist, "application/x-plist") }

    // A few common other formats, so that their MIME type is right.
    if p.starts(with: Array("%PDF-".utf8)) { return .strong(.other, "application/pdf") }
    if p.starts(with: [0x50, 0x4B, 0x03, 0x04]) || p.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
      return .strong(.other, "application/zip")
    }
    if p.starts(with: [0x1F, 0x8B]) { return .strong(.other, "application/gzip") }
    if p.starts(with: [0x7F, 0x45, 0x4C, 0x46]) { return .strong(.other, "application/x-executable") }
    if p.starts(with: Array("SQLite format 3\0".utf8)) {
      return .strong(.other, "application/vnd.sqlite3")
    }
    if p.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .strong(.other, "application/zstd") }
    if p.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
      return .strong(.other, "application/x-xz")
    }

    // Formats without a magic number: a TGA (its footer's signature, else a plausible header,
    // which counts only when the extension agrees) and a DIB without its BMP file header.
    if ImageHeaderReader.isPlausibleTGAHeader(p) {
      return footer.count == 26 && ascii(footer, 8, 18) == "TRUEVISION-XFILE.\0"
        ? .strong(.image, "image/x-tga") : .weak(.image, "image/x-tga")
    }
    if isBareDIB(p) { return .weak(.image, "image/bmp") }

    // A UTF-16 byte-order mark looks like an MPEG frame sync: settle text first.
    if p.starts(with: [0xFF, 0xFE]), let encoding = TextSniffer.detectEncoding(try textSample()) {
      return .text(encoding)
    }
    // MPEG audio without a tag: frame sync with a plausible header.
    if let mpeg = mpegAudio(p, at: 0) { return mpeg }

    // Text last: anything else that decodes cleanly, judged over the whole sample, so that
    // binary data after a text header (FITS, PostScript, a PDF) is seen.
    if let encoding = TextSniffer.detectEncoding(try textSample()) { return .text(encoding) }
    return .none
  }

  /// Netpbm images (PBM, PGM, PPM, PAM), plain (ASCII) or raw: `P1`–`P7`, then white space and
  /// a width or a comment. `file(1)` calls the plain ones text; they are images.
  private static func netpbm(_ p: [UInt8]) -> Detection? {
    guard p.count >= 4, p[0] == 0x50, (0x31...0x37).contains(p[1]),
      [0x20, 0x09, 0x0A, 0x0D].contains(p[2])
    else { return nil }
    var index = 2
    while index < p.count, [0x20, 0x09, 0x0A, 0x0D].contains(p[index]) { index += 1 }
    guard index < p.count, p[index] == 0x23 || (0x30...0x39).contains(p[index]) || p[1] == 0x37
    else { return nil }
    let mimes = [
      "image/x-portable-bitmap", "image/x-portable-graymap", "image/x-portable-pixmap",
    ]
    let type = Int(p[1] - 0x31)
    if type == 6 { return .strong(.image, "image/x-portable-arbitrarymap") }
    return .strong(.image, mimes[type % 3])
  }

  /// ICO (type 1) or CUR (type 2): a directory of at least one entry whose reserved byte is
  /// zero; an icon entry's planes are 0 or 1 and its bit count one the format allows.
  private static func windowsIcon(_ p: [UInt8]) -> Detection? {
    guard p.count >= 22, p[0] == 0, p[1] == 0, p[2] == 1 || p[2] == 2, p[3] == 0, p[4] != 0 || p[5] != 0,
      p[9] == 0
    else { return nil }
    if p[2] == 2 { return .strong(.image, "image/x-win-bitmap") }
    let planes = Int(p[10]) | Int(p[11]) << 8
    let bits = Int(p[12]) | Int(p[13]) << 8
    guard planes <= 1, [0, 1, 2, 4, 8, 16, 24, 32].contains(bits) else { return nil }
    return .strong(.image, "image/vnd.microsoft.icon")
  }

  /// An SVG document: its first element (after the XML declaration, comments and a DOCTYPE)
  /// is `<svg>`.
  private static func isSVG(_ p: [UInt8]) -> Bool {
    var index = p.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while index < p.count, [0x20, 0x09, 0x0A, 0x0D].contains(p[index]) { index += 1 }
    guard index < p.count, p[index] == 0x3C else { return false }
    return ImageHeaderReader.svgRootAttributes(p) != nil
  }

  /// A device-independent bitmap without the `BM` file header (`.dib`, the clipboard's format):
  /// a known header size, one plane and a valid bit count.
  private static func isBareDIB(_ p: [UInt8]) -> Bool {
    guard p.count >= 16 else { return false }
    let size = Int(p[0]) | Int(p[1]) << 8 | Int(p[2]) << 16 | Int(p[3]) << 24
    if size == 12 { return p[8] == 1 && p[9] == 0 && [1, 4, 8, 24].contains(Int(p[10]) | Int(p[11]) << 8) }
    guard ImageHeaderReader.dibHeaderSizes.contains(size) else { return false }
    return p[12] == 1 && p[13] == 0 && [1, 2, 4, 8, 16, 24, 32].contains(Int(p[14]) | Int(p[15]) << 8)
  }

  private static let w64RIFF: [UInt8] = [
    0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00,
  ]
  private static let w64WAVE: [UInt8] = [
    0x77, 0x61, 0x76, 0x65, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A,
  ]

  static func ascii(_ p: [UInt8], _ offset: Int, _ count: Int) -> String {
    guard offset >= 0, offset + count <= p.count else { return "" }
    return String(decoding: p[offset..<offset + count], as: UTF8.self)
  }

  private static func matchesRIFF(_ p: [UInt8], form: String) -> Bool {
    p.count >= 12 && ascii(p, 0, 4) == "RIFF" && ascii(p, 8, 4) == form
  }

  private static func isBMP(_ p: [UInt8]) -> Bool {
    guard p.count >= 18, p[0] == 0x42, p[1] == 0x4D else { return false }
    // Reserved fields are zero and the DIB header has one of the known sizes.
    guard p[6] == 0, p[7] == 0, p[8] == 0, p[9] == 0 else { return false }
    let dib = UInt32(p[14]) | UInt32(p[15]) << 8 | UInt32(p[16]) << 16 | UInt32(p[17]) << 24
    return [12, 16, 40, 52, 56, 64, 108, 124].contains(dib)
  }

  private static func isoBrand(_ p: [UInt8]) -> Detection? {
    guard p.count >= 12, ascii(p, 4, 4) == "ftyp" else { return nil }
    let boxSize = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
    var brands = [ascii(p, 8, 4)]
    var offset = 16
    while offset + 4 <= min(boxSize, p.count, 256) {
      brands.append(ascii(p, offset, 4))
      offset += 4
    }
    let major = brands[0]
    if ["heic", "heix", "heim", "heis"].contains(major) { return .strong(.image, "image/heic") }
    if ["hevc", "hevx", "hevm", "hevs"].contains(major) {
      return .strong(.image, "image/heic-sequence")
    }
    if major == "avif" || major == "avis" { return .strong(.image, "image/avif") }
    if major == "mif1" || major == "msf1" {
      if brands.contains("avif") { return .strong(.image, "image/avif") }
      if brands.contains(where: { $0.hasPrefix("hei") }) { return .strong(.image, "image/heic") }
      return .strong(.image, major == "msf1" ? "image/heif-sequence" : "image/heif")
    }
    if ["M4A ", "M4B ", "M4P ", "M4R "].contains(major) { return .strong(.audio, "audio/mp4") }
    if brands.contains(where: { $0.hasPrefix("hei") || $0 == "mif1" }) {
      return .strong(.image, "image/heif")
    }
    // Video until probing finds no picture stream (then the extractor makes it audio).
    if major == "qt  " { return .strong(.video, "video/quicktime") }
    if major.hasPrefix("3g") { return .strong(.video, "video/3gpp") }
    if major.hasPrefix("M4V") { return .strong(.video, "video/x-m4v") }
    return .strong(.video, "video/mp4")
  }

  private static func ogg(_ p: [UInt8]) -> Detection {
    // The first page's first packet names the codec; it starts after the segment table.
    guard p.count >= 27 else { return .strong(.audio, "audio/ogg") }
    let segments = Int(p[26])
    let start = 27 + segments
    let packet = start < p.count ? Array(p[start..<min(p.count, start + 16)]) : []
    if packet.starts(with: [0x01] + Array("vorbis".utf8)) { return .strong(.audio, "audio/ogg") }
    if packet.starts(with: Array("OpusHead".utf8)) { return .strong(.audio, "audio/ogg") }
    if packet.starts(with: [0x7F] + Array("FLAC".utf8)) { return .strong(.audio, "audio/ogg") }
    if packet.starts(with: Array("Speex   ".utf8)) { return .strong(.audio, "audio/ogg") }
    if packet.starts(with: [0x80] + Array("theora".utf8)) { return .strong(.video, "video/ogg") }
    return .strong(.audio, "audio/ogg")
  }

  /// ASF's header object GUID (WMA, WMV).
  private static let asfHeader: [UInt8] = [
    0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C,
  ]

  /// Matroska or WebM, told apart by the EBML header's DocType; video until probing finds no
  /// picture stream.
  private static func matroska(_ p: [UInt8]) -> Detection {
    let head = p[0..<min(p.count, 64)]
    if contains(head, [0x42, 0x82, 0x84] + Array("webm".utf8)) { return .strong(.video, "video/webm") }
    return .strong(.video, "video/x-matroska")
  }

  /// An AC-3 or E-AC-3 sync frame; strong when a second sync word follows where the first frame
  /// ends.
  private static func ac3(_ p: [UInt8]) -> Detection? {
    guard p.count >= 6, p[0] == 0x0B, p[1] == 0x77 else { return nil }
    let bsid = p[5] >> 3
    let length: Int
    let mime: String
    if bsid <= 8 {
      let rateCode = Int(p[4] >> 6)
      let sizeCode = Int(p[4] & 0x3F)
      guard rateCode < 3, sizeCode < 38 else { return nil }
      let kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][
        sizeCode / 2]
      let rate = [48000, 44100, 32000][rateCode]
      let words = kbps * 96000 / rate + (rate == 44100 ? sizeCode & 1 : 0)
      length = words * 2
      mime = "audio/ac3"
    } else if bsid <= 16 {
      length = ((Int(p[2] & 0x07) << 8) | Int(p[3]) + 1) * 2
      mime = "audio/eac3"
    } else {
      return nil
    }
    if length + 2 <= p.count {
      return p[length] == 0x0B && p[length + 1] == 0x77 ? .strong(.audio, mime) : nil
    }
    return .weak(.audio, mime)
  }

  /// A DTS core frame (16-bit big-endian sync word, as `.dts` files and ffmpeg write it); strong
  /// when a second sync word follows where the first frame ends.
  private static func dts(_ p: [UInt8]) -> Detection? {
    let sync: [UInt8] = [0x7F, 0xFE, 0x80, 0x01]
    guard p.count >= 8, p.starts(with: sync) else { return nil }
    // After the sync word: frame type (1 bit), deficit samples (5), CRC flag (1), blocks (7),
    // then the frame size less one (14 bits).
    let length = (Int(p[5] & 0x03) << 12 | Int(p[6]) << 4 | Int(p[7] >> 4)) + 1
    guard length >= 96 else { return nil }
    if length + 4 <= p.count {
      return Array(p[length..<length + 4]) == sync ? .strong(.audio, "audio/vnd.dts") : nil
    }
    return .weak(.audio, "audio/vnd.dts")
  }

  /// What follows a leading ID3v2 tag decides: MPEG audio mostly, but FLAC, WAV, Musepack and
  /// others are found with one too.
  private static func afterID3(_ p: [UInt8]) -> Detection {
    var next = MediaMagic.id3TagEnd(p) ?? p.count
    while next < p.count && p[next] == 0 { next += 1 }  // padding
    let rest = Array(p[min(next, p.count)...])
    if !rest.starts(with: Array("ID3".utf8)),
      case .strong(let kind, let mime) = detect(
        rest, footer: [], textSample: { TextSample(rest, reachesEnd: false) }),
      kind == .audio || kind == .video
    {
      return .strong(kind, mime)
    }
    return .strong(.audio, "audio/mpeg")
  }

  /// Checks for an MPEG audio frame header at `offset`; a second header where the first frame
  /// ends makes it strong.
  private static func mpegAudio(_ p: [UInt8], at offset: Int) -> Detection? {
    guard let length = mpegFrameLength(p, at: offset) else {
      return adts(p)
    }
    let next = offset + length
    if next + 4 <= p.count {
      return mpegFrameLength(p, at: next) != nil ? .strong(.audio, "audio/mpeg") : nil
    }
    return .weak(.audio, "audio/mpeg")
  }

  /// The length of the MPEG audio frame whose header starts at `offset`, or nil when the four
  /// bytes there are not a plausible header.
  static func mpegFrameLength(_ p: [UInt8], at offset: Int) -> Int? {
    guard offset + 4 <= p.count, p[offset] == 0xFF, p[offset + 1] & 0xE0 == 0xE0 else {
      return nil
    }
    let version = (p[offset + 1] >> 3) & 0x3  // 0: 2.5, 1: reserved, 2: 2, 3: 1
    let layer = (p[offset + 1] >> 1) & 0x3  // 1: III, 2: II, 3: I, 0: reserved
    let bitrateIndex = Int(p[offset + 2] >> 4)
    let rateIndex = Int((p[offset + 2] >> 2) & 0x3)
    let padding = Int((p[offset + 2] >> 1) & 0x1)
    guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else {
      return nil
    }
    let v1: [[Int]] = [
      [],
      [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // layer III
      [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // layer II
      [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // layer I
    ]
    let v2: [[Int]] = [
      [],
      [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
      [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
      [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    ]
    let bitrate = (version == 3 ? v1 : v2)[Int(layer)][bitrateIndex] * 1000
    let baseRates = [44100, 48000, 32000]
    let rate = baseRates[rateIndex] / (version == 3 ? 1 : version == 2 ? 2 : 4)
    if layer == 3 { return (12 * bitrate / rate + padding) * 4 }
    if layer == 1 && version != 3 { return 72 * bitrate / rate + padding }
    return 144 * bitrate / rate + padding
  }

  /// AAC in ADTS frames (sync word with layer 0).
  private static func adts(_ p: [UInt8]) -> Detection? {
    guard p.count >= 7, p[0] == 0xFF, p[1] & 0xF6 == 0xF0 else { return nil }
    let length = Int(p[3] & 0x3) << 11 | Int(p[4]) << 3 | Int(p[5] >> 5)
    guard length >= 7 else { return nil }
    if length + 2 <= p.count {
      return p[length] == 0xFF && p[length + 1] & 0xF6 == 0xF0 ? .strong(.audio, "audio/aac") : nil
    }
    return .weak(.audio, "audio/aac")
  }

  private static func isXMLPlist(_ p: [UInt8]) -> Bool {
    var index = p.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while index < p.count, p[index] == 0x20 || p[index] == 0x09 || p[index] == 0x0A || p[index] == 0x0D {
      index += 1
    }
    let rest = p[index..<min(p.count, index + 2048)]
    if rest.starts(with: plistTag) { return true }
    guard rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<!DOCTYPE".utf8)) else {
      return false
    }
    return contains(rest, Array("<!DOCTYPE plist".utf8)) || contains(rest, plistTag)
  }

  private static let plistTag = Array("<plist".utf8)

  private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
    guard let first = needle.first, haystack.count >= needle.count else { return false }
    var index = haystack.startIndex
    let last = haystack.endIndex - needle.count
    while index <= last {
      if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) {
        return true
      }
      index += 1
    }
    return false
  }

  // MARK: - Extensions

  /// MIME types of text dialects, by extension; other text is text/plain.
  static let textMIMEs: [String: String] = [
    "md": "text/markdown", "markdown": "text/markdown", "csv": "text/csv",
    "tsv": "text/tab-separated-values", "html": "text/html", "htm": "text/html", "css": "text/css",
    "json": "application/json", "xml": "text/xml", "js": "text/javascript",
    "yaml": "application/yaml", "yml": "application/yaml", "rtf": "text/rtf", "srt": "application/x-subrip",
    "vtt": "text/vtt",
  ]

  private static let extensionTable: [String: (kind: FileKind, mime: String)] = {
    var table: [String: (kind: FileKind, mime: String)] = [:]
    func add(_ kind: FileKind, _ mime: String, _ extensions: [String]) {
      for ext in extensions { table[ext] = (kind, mime) }
    }
    add(.image, "image/png", ["png", "apng"])
    add(.image, "image/jpeg", ["jpg", "jpeg", "jpe", "jfif"])
    add(.image, "image/gif", ["gif"])
    add(.image, "image/bmp", ["bmp", "dib"])
    add(.image, "image/tiff", ["tif", "tiff"])
    add(.image, "image/webp", ["webp"])
    add(.image, "image/heic", ["heic", "heics"])
    add(.image, "image/heif", ["heif", "heifs", "hif"])
    add(.image, "image/avif", ["avif"])
    add(.image, "image/x-portable-bitmap", ["pbm"])
    add(.image, "image/x-portable-graymap", ["pgm"])
    add(.image, "image/x-portable-pixmap", ["ppm", "pnm"])
    add(.image, "image/x-portable-arbitrarymap", ["pam"])
    add(.image, "image/x-xpixmap", ["xpm"])
    add(.image, "image/vnd.microsoft.icon", ["ico"])
    add(.image, "image/x-win-bitmap", ["cur"])
    add(.image, "image/x-icns", ["icns"])
    add(.image, "image/vnd.adobe.photoshop", ["psd", "psb"])
    add(.image, "image/x-tga", ["tga", "icb", "vda", "vst"])
    add(.image, "image/x-qoi", ["qoi"])
    add(.image, "image/jp2", ["jp2"])
    add(.image, "image/jpx", ["jpx", "jpf"])
    add(.image, "image/x-jp2-codestream", ["j2k", "j2c", "jpc"])
    add(.image, "image/svg+xml", ["svg"])
    for format in ClassicImageMagic.extensions { add(.image, format.mime, format.extensions) }
    add(.audio, "audio/wav", ["wav", "wave", "rf64", "bwf"])
    add(.audio, "audio/x-w64", ["w64"])
    add(.audio, "audio/aiff", ["aif", "aiff", "aifc"])
    add(.audio, "audio/flac", ["flac"])
    add(.audio, "audio/ogg", ["ogg", "oga", "opus", "spx"])
    add(.audio, "audio/mpeg", ["mp3", "mp2", "mpga"])
    add(.audio, "audio/x-caf", ["caf"])
    add(.audio, "audio/basic", ["au", "snd"])
    add(.audio, "audio/mp4", ["m4a", "m4b", "m4r", "m4p"])
    add(.audio, "audio/amr", ["amr"])
    add(.audio, "audio/amr-wb", ["awb"])
    add(.audio, "audio/x-ape", ["ape"])
    add(.audio, "audio/x-wavpack", ["wv"])
    add(.audio, "audio/x-musepack", ["mpc", "mpp"])
    add(.audio, "audio/x-ms-wma", ["wma"])
    add(.audio, "audio/ac3", ["ac3"])
    add(.audio, "audio/eac3", ["eac3", "ec3"])
    add(.audio, "audio/vnd.dts", ["dts"])
    add(.audio, "audio/x-dsf", ["dsf"])
    add(.audio, "audio/x-matroska", ["mka"])
    add(.audio, "audio/x-dff", ["dff"])
    add(.audio, "audio/x-tak", ["tak"])
    add(.audio, "audio/x-tta", ["tta"])
    add(.audio, "audio/x-shorten", ["shn"])
    add(.audio, "audio/vnd.rn-realaudio", ["ra"])
    add(.audio, "audio/x-mod", ["mod"])
    add(.audio, "audio/x-s3m", ["s3m"])
    add(.audio, "audio/x-xm", ["xm"])
    add(.audio, "audio/x-it", ["it"])
    add(.video, "video/vnd.rn-realvideo", ["rm", "rmvb"])
    add(.video, "video/dv", ["dv", "dif"])
    add(.video, "video/x-flv", ["flv"])
    add(.video, "video/mp2t", ["m2ts", "mts"])
    add(.video, "video/mp4", ["mp4"])
    add(.video, "video/x-m4v", ["m4v"])
    add(.video, "video/quicktime", ["mov", "qt"])
    add(.video, "video/3gpp", ["3gp", "3g2"])
    add(.video, "video/x-matroska", ["mkv"])
    add(.video, "video/webm", ["webm"])
    add(.video, "video/x-msvideo", ["avi"])
    add(.video, "video/x-ms-wmv", ["wmv", "asf"])
    add(.video, "video/ogg", ["ogv"])
    add(.audio, "audio/aac", ["aac"])
    add(.audio, "audio/midi", ["mid", "midi"])
    add(.plist, "application/x-plist", ["plist"])
    add(
      .text, "text/plain",
      [
        "txt", "text", "md", "markdown", "rst", "csv", "tsv", "json", "xml", "html", "htm", "css",
        "js", "ts", "swift", "c", "h", "m", "mm", "cpp", "hpp", "py", "rb", "sh", "yaml", "yml",
        "toml", "ini", "cfg", "conf", "log", "strings", "tex", "srt", "vtt", "lrc", "rtf",
        "go", "rs", "java", "kt", "sql", "lua", "pl", "php", "diff", "patch", "nfo",
      ])
    return table
  }()

  /// The kind and MIME type the extension alone suggests (lower-case, no dot), if known.
  public static func kindForExtension(_ ext: String) -> (kind: FileKind, mime: String)? {
    extensionTable[ext.lowercased()]
  }
}
