public import ShelfCore

/// Writes extended M3U: `#EXTM3U`, then per file `#EXTINF:SECONDS,ARTIST - TITLE` and its
/// absolute path, lines ending in LF, as mpv, cmus, VLC and foobar2000 read it.
public enum M3UWriter {
  /// `.m3u` keeps a path's bytes whatever they are (a Linux file name need not be text), so
  /// the list finds the file again on the same system; `.m3u8` promises UTF-8 throughout, so a
  /// path that is not UTF-8 cannot be written.
  public enum Flavour: Sendable {
    case m3u
    case m3u8
  }

  /// Why a file cannot be an entry.
  public enum Refusal: Error, Equatable, CustomStringConvertible {
    /// An M3U8 holds UTF-8 only.
    case pathNotUTF8
    /// A line break in a name would end the line: no M3U can hold it.
    case lineBreakInPath

    public var description: String {
      switch self {
      case .pathNotUTF8: "the path is not valid UTF-8, left out of the M3U8 list (--m3u keeps its bytes)"
      case .lineBreakInPath: "the path holds a line break, which no M3U list can hold: left out"
      }
    }
  }

  /// The first line.
  public static let header: [UInt8] = Array("#EXTM3U\n".utf8)

  /// The two lines of one file: `#EXTINF:` with its length in whole seconds (rounded; -1 when
  /// unknown) and its title (`ARTIST - TITLE`, or the title alone, or the file's name when it has
  /// no title tag), then its path.
  public static func entry(
    path: RawPath, duration: Double?, artist: String?, title: String?, flavour: Flavour
  ) throws(Refusal) -> [UInt8] {
    if path.bytes.contains(0x0A) || path.bytes.contains(0x0D) { throw .lineBreakInPath }
    if flavour == .m3u8 && path.utf8String == nil { throw .pathNotUTF8 }
    var shown: String
    if let title = title.flatMap(nonEmpty) {
      shown = artist.flatMap(nonEmpty).map { "\($0) - \(title)" } ?? title
    } else {
      // The name as bytes would not be UTF-8 in an M3U8 (refused above) and is shown as the
      // file system has it in an M3U.
      shown = String(decoding: path.lastComponent.bytes, as: UTF8.self)
    }
    var line = Array("#EXTINF:\(seconds(duration)),".utf8)
    if title.flatMap(nonEmpty) == nil, flavour == .m3u {
      line += path.lastComponent.bytes.map { $0 < 0x20 || $0 == 0x7F ? 0x20 : $0 }
    } else {
      line += singleLine(shown).utf8
    }
    return line + [0x0A] + path.bytes + [0x0A]
  }

  /// Whole seconds, rounded; -1 when unknown, not positive or absurd.
  static func seconds(_ duration: Double?) -> Int {
    guard let duration, duration.isFinite, duration > 0, duration < 1e9 else { return -1 }
    return Int(duration.rounded())
  }

  private static func nonEmpty(_ text: String) -> String? {
    let trimmed = text.trimmingSpaces()
    return trimmed.isEmpty ? nil : trimmed
  }

  /// Control characters (a line break in a tag would end the line) as spaces.
  static func singleLine(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) ? " " : $0 }))
  }
}
