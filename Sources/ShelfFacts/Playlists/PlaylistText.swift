public import ShelfCore

/// Why a playlist or CUE sheet could not be read at all: the list named, and the reason.
///
/// Problems with single entries are not errors (they are `PlaylistDiagnostic`s): a list that
/// reads costs only its bad entries.
public struct PlaylistError: ShelfError, Equatable {
  /// The list that failed.
  public var path: RawPath
  /// The reason, one line.
  public var reason: String
  public var failure: FailureKind

  /// An error about the list at `path`.
  public init(path: RawPath, reason: String, failure: FailureKind = .badInput) {
    self.path = path
    self.reason = reason
    self.failure = failure
  }

  public var description: String { "\(path.escaped): \(reason)" }
}

/// The lines of a playlist or CUE sheet, decoded: each line's text, and its bytes as the file
/// holds them (a path is tried by its bytes first, since a Linux file name need not be text in
/// any encoding).
///
/// UTF-8 (with or without a byte-order mark) is read as is; UTF-16 and UTF-32 with a mark are
/// decoded; anything else is decoded in the encoding `TextSniffer` detects when `detecting` is
/// set (M3U, PLS and CUE files written on Windows are in the system's code page: Windows-1252,
/// Shift-JIS…), else read as bytes with invalid UTF-8 shown as U+FFFD (M3U8 is UTF-8 by
/// definition). Sizes are bounded: a list is short text, and a hostile one must not make shelf
/// allocate without limit.
public struct PlaylistText: Sendable {
  /// The largest list read, in bytes: a playlist of 20,000 long paths is under 4 MiB.
  public static let sizeLimit = 4 << 20
  /// The most lines read from one list.
  public static let lineLimit = 100_000

  /// One line, without its line break.
  public struct Line: Sendable, Equatable {
    /// 1 for the first line.
    public var number: Int
    /// The line's bytes as written in the file (after a UTF-8 byte-order mark), or its text in
    /// UTF-8 when the file is UTF-16 or UTF-32.
    public var bytes: [UInt8]
    /// The line decoded; bytes that do not decode are U+FFFD.
    public var text: String
    /// True when `bytes` are the UTF-8 of `text` (so a path needs no second spelling).
    public var bytesAreText: Bool
  }

  /// The encoding the text was read in.
  public var encoding: TextEncoding
  public var lines: [Line]

  /// Decodes `bytes`, the whole content of a list; throws (naming `path`) when they are too
  /// long or are not text.
  public init(_ bytes: [UInt8], path: RawPath, detecting: Bool) throws(PlaylistError) {
    guard bytes.count <= Self.sizeLimit else {
      throw PlaylistError(path: path, reason: "larger than \(Self.sizeLimit >> 20) MiB: not a list")
    }
    var body = bytes[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      body = bytes[3...]
      encoding = .utf8
    } else if let detected = Self.unicodeWithMark(bytes) {
      encoding = detected.encoding
      body = bytes[detected.bomLength...]
    } else if bytes.contains(0),
      let detected = TextSniffer.detectEncoding(TextSample(bytes, reachesEnd: true)),
      detected.encoding.unitSize > 1
    {
      // UTF-16 or UTF-32 without a mark (zero bytes are valid UTF-8, but not in a list).
      encoding = detected.encoding
    } else if String(validating: bytes, as: UTF8.self) != nil {
      encoding = .utf8
    } else if detecting {
      guard let detected = TextSniffer.detectEncoding(TextSample(bytes, reachesEnd: true)) else {
        throw PlaylistError(path: path, reason: "not text")
      }
      encoding = detected.encoding
      body = bytes[detected.bomLength...]
    } else {
      encoding = .utf8
    }
    if encoding.unitSize > 1 {
      // Not ASCII-compatible: line breaks are found in the decoded text.
      guard let decoder = try? TextDecoder(encoding) else {
        throw PlaylistError(path: path, reason: "cannot decode \(encoding.rawValue)")
      }
      var utf8: [UInt8] = []
      utf8.reserveCapacity(body.count)
      for scalar in decoder.decodeAll(Array(body)) {
        Self.appendUTF8(scalar, to: &utf8)
      }
      lines = try Self.split(utf8[...], path: path) { raw in (String(decoding: raw, as: UTF8.self), true) }
      return
    }
    if encoding == .utf8 || encoding == .ascii {
      lines = try Self.split(body, path: path) { raw in
        if let text = String(validating: raw, as: UTF8.self) { return (text, true) }
        return (String(decoding: raw, as: UTF8.self), false)
      }
      return
    }
    guard let decoder = try? TextDecoder(encoding) else {
      throw PlaylistError(path: path, reason: "cannot decode \(encoding.rawValue)")
    }
    lines = try Self.split(body, path: path) { raw in
      var utf8: [UInt8] = []
      for scalar in decoder.decodeAll(Array(raw)) { Self.appendUTF8(scalar, to: &utf8) }
      let text = String(decoding: utf8, as: UTF8.self)
      return (text, utf8.elementsEqual(raw))
    }
  }

  /// A UTF-16 or UTF-32 byte-order mark at the start (UTF-32LE's mark begins like UTF-16LE's,
  /// so it is looked for first).
  static func unicodeWithMark(_ bytes: [UInt8]) -> DetectedEncoding? {
    let marks: [([UInt8], TextEncoding)] = [
      ([0xFF, 0xFE, 0, 0], .utf32le), ([0, 0, 0xFE, 0xFF], .utf32be), ([0xFF, 0xFE], .utf16le),
      ([0xFE, 0xFF], .utf16be),
    ]
    for (mark, encoding) in marks where bytes.starts(with: mark) {
      return DetectedEncoding(encoding: encoding, bom: true)
    }
    return nil
  }

  /// Splits at LF, CR LF and lone CR (classic Mac), refusing more than `lineLimit` lines.
  static func split(
    _ bytes: ArraySlice<UInt8>, path: RawPath, decode: (ArraySlice<UInt8>) -> (String, Bool)
  ) throws(PlaylistError) -> [Line] {
    var lines: [Line] = []
    var start = bytes.startIndex
    var index = start
    func add(_ end: Int) throws(PlaylistError) {
      guard lines.count < lineLimit else {
        throw PlaylistError(path: path, reason: "more than \(lineLimit) lines: not a list")
      }
      let raw = bytes[start..<end]
      let (text, same) = decode(raw)
      lines.append(Line(number: lines.count + 1, bytes: Array(raw), text: text, bytesAreText: same))
    }
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == 0x0A || byte == 0x0D {
        try add(index)
        if byte == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A { index += 1 }
        index += 1
        start = index
      } else {
        index += 1
      }
    }
    if start < bytes.endIndex { try add(bytes.endIndex) }
    return lines
  }

  /// Appends a decoded scalar as UTF-8; an undecodable byte (`TextDecoder`'s marks above
  /// Unicode) or a lone surrogate becomes U+FFFD.
  static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
    let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
    UTF8.encode(scalar) { out.append($0) }
  }
}
