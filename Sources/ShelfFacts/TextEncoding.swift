import CTextSupport
import ShelfCore

/// The character encodings the catalogue recognises in text files, by their lower-case
/// IANA/WHATWG names (`latin-1` names ISO-8859-1).
public enum TextEncoding: String, Sendable, CaseIterable {
  case ascii
  case utf8 = "utf-8"
  case utf16le = "utf-16le"
  case utf16be = "utf-16be"
  case utf32le = "utf-32le"
  case utf32be = "utf-32be"
  case latin1 = "latin-1"
  case iso8859_2 = "iso-8859-2"
  case iso8859_3 = "iso-8859-3"
  case iso8859_4 = "iso-8859-4"
  case iso8859_5 = "iso-8859-5"
  case iso8859_6 = "iso-8859-6"
  case iso8859_7 = "iso-8859-7"
  case iso8859_8 = "iso-8859-8"
  case iso8859_9 = "iso-8859-9"
  case iso8859_10 = "iso-8859-10"
  case iso8859_11 = "iso-8859-11"
  case iso8859_13 = "iso-8859-13"
  case iso8859_14 = "iso-8859-14"
  case iso8859_15 = "iso-8859-15"
  case iso8859_16 = "iso-8859-16"
  case windows1250 = "windows-1250"
  case windows1251 = "windows-1251"
  case windows1252 = "windows-1252"
  case windows1253 = "windows-1253"
  case windows1254 = "windows-1254"
  case windows1255 = "windows-1255"
  case windows1256 = "windows-1256"
  case windows1257 = "windows-1257"
  case windows1258 = "windows-1258"
  case koi8r = "koi8-r"
  case koi8u = "koi8-u"
  case ibm775
  case ibm852
  case ibm855
  case ibm866
  case cp1125
  case macintosh
  case macCyrillic = "x-mac-cyrillic"
  case macCentralEurope = "x-mac-ce"
  case tis620 = "tis-620"
  case viscii
  case shiftJIS = "shift_jis"
  case eucJP = "euc-jp"
  case iso2022JP = "iso-2022-jp"
  case eucKR = "euc-kr"
  case iso2022KR = "iso-2022-kr"
  case johab
  case gb18030
  case iso2022CN = "iso-2022-cn"
  case big5
  case eucTW = "euc-tw"
  case utf7 = "utf-7"
  case hzGB2312 = "hz-gb-2312"

  /// The name glibc's iconv decodes it by: the superset WHATWG decodes the name as, where
  /// there is one, since files labelled with the name hold the superset in practice. HZ, which
  /// glibc lacks, is decoded by `TextDecoder` itself, its GB2312 pairs through EUC-CN.
  var iconvName: String {
    switch self {
    case .ascii: "US-ASCII"
    case .hzGB2312: "EUC-CN"
    case .latin1: "ISO-8859-1"
    case .macCyrillic: "MAC-CYRILLIC"
    case .macCentralEurope: "MAC-CENTRALEUROPE"
    case .tis620: "CP874"
    case .shiftJIS: "CP932"
    case .iso2022JP: "ISO-2022-JP-2"
    case .eucKR: "CP949"
    case .big5: "BIG5-HKSCS"
    default: rawValue.uppercased()
    }
  }

  /// True for the encodings of one byte per character, decoded through a table.
  var isSingleByte: Bool {
    switch self {
    case .ascii, .utf8, .utf16le, .utf16be, .utf32le, .utf32be, .shiftJIS, .eucJP, .iso2022JP, .eucKR,
      .iso2022KR, .johab, .gb18030, .iso2022CN, .big5, .eucTW, .utf7, .hzGB2312:
      false
    default: true
    }
  }

  /// Bytes per code unit: 2 or 4 for UTF-16 and UTF-32, 1 for the byte-oriented encodings.
  var unitSize: Int {
    switch self {
    case .utf16le, .utf16be: 2
    case .utf32le, .utf32be: 4
    default: 1
    }
  }

  /// The encoding uchardet 0.0.7 means by `name` (its upper-case names and aliases).
  static func fromUchardet(_ name: String) -> TextEncoding? {
    let lower = name.lowercased()
    switch lower {
    case "iso-8859-1": return .latin1
    case "uhc", "cp949": return .eucKR
    case "mac-cyrillic": return .macCyrillic
    case "mac-centraleurope": return .macCentralEurope
    case "gb2312", "gbk": return .gb18030
    case "euc-tw": return .eucTW
    default: return TextEncoding(rawValue: lower)
    }
  }
}

/// An encoding found in a text file, and whether a byte-order mark announced it.
public struct DetectedEncoding: Sendable, Equatable {
  public var encoding: TextEncoding
  public var bom: Bool

  public init(encoding: TextEncoding, bom: Bool) {
    self.encoding = encoding
    self.bom = bom
  }

  /// The length of the byte-order mark in bytes (0 when none).
  public var bomLength: Int {
    guard bom else { return 0 }
    return encoding == .utf8 ? 3 : encoding.unitSize
  }
}

/// The bytes an encoding is decided from: the whole file up to `wholeFileLimit`, else
/// `segmentCount` evenly spaced segments from its start to its end, so that a first
/// non-ASCII byte late in a long file, or binary data after a text header, is seen. A longer
/// file read from a source is also checked whole for UTF-8 (`wholeFileUTF8`): the sample alone
/// would call a file ASCII whose only accented letters lie between its segments, or UTF-8
/// whose one Latin-1 byte does.
public struct TextSample: Sendable {
  /// Files up to this size are sampled whole.
  public static let wholeFileLimit = 1 << 20
  /// Longer files are sampled in this many segments…
  public static let segmentCount = 16
  /// …of this many bytes each.
  public static let segmentLength = 64 << 10

  /// What the whole of a sampled file is, as UTF-8.
  public enum WholeFileUTF8: Sendable, Equatable {
    /// No byte of 0x80 or more anywhere.
    case ascii
    /// Well-formed UTF-8 with characters beyond ASCII.
    case valid
    /// A byte that is not well-formed UTF-8 somewhere (the sample holds the segment around it).
    case invalid
  }

  /// The segments, in file order; the first starts at offset 0.
  public var segments: [[UInt8]]
  /// True when the segments are the whole file (its last byte is the last byte of the file).
  public var reachesEnd: Bool
  /// For a file longer than `wholeFileLimit` read from a source: what the whole file is as
  /// UTF-8. Nil when the segments are the whole file, or only its prefix is known.
  public var wholeFileUTF8: WholeFileUTF8?

  /// A sample of bytes held in memory; `reachesEnd` false when they are only a file's prefix.
  public init(_ bytes: [UInt8], reachesEnd: Bool = true) {
    segments = [bytes]
    self.reachesEnd = reachesEnd
  }

  /// Reads the sample of `source`; segment offsets are multiples of 4, so that UTF-16 and
  /// UTF-32 code units stay aligned. A file longer than `wholeFileLimit` is then read through
  /// once, in blocks, for `wholeFileUTF8`; the segment where it first fails as UTF-8 joins the
  /// sample when the segments missed it.
  public init(reading source: any ByteSource) throws {
    try self.init(reading: source, wholeFileLimit: Self.wholeFileLimit, segmentLength: Self.segmentLength)
  }

  /// The sample with other sizes than the standard ones (tests and fuzzing, with files of a
  /// few kilobytes). `segmentLength` must be at least 4 and at most `wholeFileLimit`.
  package init(reading source: any ByteSource, wholeFileLimit: Int, segmentLength: Int) throws {
    reachesEnd = true
    if source.size <= Int64(wholeFileLimit) {
      segments = [try source.read(count: Int(source.size), at: 0)]
      return
    }
    let span = source.size - Int64(segmentLength)
    var offsets: [Int64] = []
    for index in 0..<Self.segmentCount {
      var offset = span * Int64(index) / Int64(Self.segmentCount - 1)
      if index < Self.segmentCount - 1 { offset &= ~3 }
      offsets.append(offset)
    }
    segments = try offsets.map { try source.read(count: segmentLength, at: $0) }
    let (verdict, failure) = try Self.checkUTF8(source)
    wholeFileUTF8 = verdict
    if let failure {
      let start = min(max(0, failure - Int64(segmentLength / 2)) & ~3, span & ~3)
      let seen = zip(offsets, segments).contains { failure >= $0 && failure < $0 + Int64($1.count) }
      if !seen, let place = offsets.firstIndex(where: { $0 > start }) {
        segments.insert(try source.read(count: segmentLength, at: start), at: place)
      }
    }
  }

  /// Reads `source` through in blocks: whether it is ASCII, UTF-8 or neither, and where the
  /// first byte that is not well-formed UTF-8 lies (a sequence cut by a block's end is carried
  /// to the next block; one cut by the file's end is not well-formed).
  static func checkUTF8(_ source: any ByteSource) throws -> (WholeFileUTF8, failure: Int64?) {
    let blockSize = 1 << 20
    var sawHigh = false
    var offset: Int64 = 0
    var carried: [UInt8] = []
    while offset < source.size {
      var block = try source.read(count: blockSize, at: offset)
      if block.isEmpty { break }
      let blockStart = offset - Int64(carried.count)
      offset += Int64(block.count)
      if !carried.isEmpty {
        block = carried + block
        carried = []
      }
      let final = offset >= source.size
      var failure: Int?
      block.withUnsafeBufferPointer { bytes in
        var index = 0
        while index < bytes.count {
          index += shelf_plain_ascii_prefix(bytes.baseAddress! + index, bytes.count - index)
          guard index < bytes.count else { break }
          if bytes[index] < 0x80 {
            index += 1
            continue
          }
          sawHigh = true
          switch UTF8Scalars.sequence(in: bytes, at: index) {
          case .scalar(_, let length): index += length
          case .truncated where !final:
            carried = Array(bytes[index...])
            index = bytes.count
          case .truncated, .invalid:
            failure = index
            index = bytes.count
          }
        }
      }
      if let failure { return (.invalid, blockStart + Int64(failure)) }
    }
    return (sawHigh ? .valid : .ascii, nil)
  }

  var isEmpty: Bool { segments.allSatisfy(\.isEmpty) }
  var first: [UInt8] { segments.first ?? [] }
}
