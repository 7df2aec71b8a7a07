public import ShelfCore

/// The kinds of list `shelf play` follows, known by their extension (as mpv and cmus know them):
/// a list's content says too little to tell an M3U from a text file of paths.
public enum PlaylistFormat: String, Sendable, CaseIterable {
  /// M3U and extended M3U: the system's encoding (decoded by detection) or raw bytes.
  case m3u
  /// M3U in UTF-8.
  case m3u8
  /// Winamp's PLS (`[playlist]`, `FileN=`, `TitleN=`, `LengthN=`).
  case pls
  /// A CUE sheet: tracks as spans of audio files (see `CueSheet`).
  case cue

  /// The format named by the extension of `path` (any case), or nil when it names none.
  public init?(path: RawPath) {
    switch path.lowercasedExtension {
    case "m3u": self = .m3u
    case "m3u8": self = .m3u8
    case "pls": self = .pls
    case "cue": self = .cue
    default: return nil
    }
  }

  /// M3U8 is UTF-8 by definition; the others were written in whatever the system used.
  var detectsEncoding: Bool { self != .m3u8 }
}

/// Something worth telling the user about a list's entry, naming the list, the line and the
/// entry as written: `Music/a.m3u:3: http://x/y.mp3: a URL, skipped`.
public struct PlaylistDiagnostic: Sendable, Equatable, CustomStringConvertible {
  /// The list the entry is in.
  public var list: RawPath
  /// Its line (1 for the first), when it has one.
  public var line: Int?
  /// The entry as written in the list (escaped for a terminal), when there is one.
  public var entry: String?
  /// What is wrong or what was done, one line.
  public var message: String
  /// True for a note (the entry still plays, e.g. under another extension), false for a
  /// warning (it was skipped).
  public var isNote: Bool

  /// A diagnostic about `entry` at `line` of `list`.
  public init(list: RawPath, line: Int?, entry: String?, message: String, isNote: Bool = false) {
    self.list = list
    self.line = line
    self.entry = entry
    self.message = message
    self.isNote = isNote
  }

  public var description: String {
    var text = list.escaped
    if let line { text += ":\(line)" }
    if let entry { text += ": " + entry }
    return text + ": " + message
  }
}

/// Where a list's entry points.
public enum PlaylistLocation: Sendable, Equatable {
  /// A file, by the spellings to try in order (the first that exists wins): the entry's bytes
  /// as written, then its decoded text when the list is in a legacy encoding (a list written
  /// on Windows names files by their text, and a copy onto Linux names them in UTF-8), then
  /// that text with Windows' backslashes as slashes. Relative spellings are joined to the
  /// list's folder; `file://` URLs are decoded.
  case file([RawPath])
  /// A URL other than a local `file://` one (shelf plays no streams).
  case url(String)
}

/// One entry of an M3U or PLS list.
public struct PlaylistEntry: Sendable, Equatable {
  public var location: PlaylistLocation
  /// The entry as written, for messages (escaped, decoded).
  public var written: String
  /// Its line in the list (for a PLS, the `FileN=` line).
  public var line: Int
  /// The display title of `#EXTINF` or `TitleN=` (conventionally "Artist - Title").
  public var title: String?
  /// The length `#EXTINF` or `LengthN=` gives, in seconds; nil when unknown (-1) or absent. A
  /// hint only: the file's own length wins.
  public var duration: Double?
}

/// An M3U, M3U8 or PLS list, parsed; CUE sheets are `CueSheet`s.
public struct PlaylistFile: Sendable {
  public var format: PlaylistFormat
  /// The encoding the list was read in.
  public var encoding: TextEncoding
  /// The entries, in play order.
  public var entries: [PlaylistEntry]
  /// Lines that were skipped, and why.
  public var diagnostics: [PlaylistDiagnostic]

  /// Parses `bytes`, the content of the list at `path` (whose folder relative entries are
  /// joined to; it should be absolute). Throws when the bytes are too long or not text.
  public static func parse(_ bytes: [UInt8], path: RawPath, format: PlaylistFormat) throws(PlaylistError)
    -> PlaylistFile
  {
    let text = try PlaylistText(bytes, path: path, detecting: format.detectsEncoding)
    var list = PlaylistFile(format: format, encoding: text.encoding, entries: [], diagnostics: [])
    let folder = path.parent
    switch format {
    case .pls: list.parsePLS(text.lines, path: path, folder: folder)
    case .m3u, .m3u8, .cue: list.parseM3U(text.lines, path: path, folder: folder)
    }
    return list
  }

  /// M3U: a path or URL per line; `#EXTINF:SECONDS[ attributes],TITLE` describes the next
  /// entry; other `#` lines are directives or comments.
  mutating func parseM3U(_ lines: [PlaylistText.Line], path: RawPath, folder: RawPath) {
    var pendingTitle: String?
    var pendingDuration: Double?
    for line in lines {
      let text = PlaylistSyntax.trimmed(line.text)
      if text.isEmpty { continue }
      if text.hasPrefix("#") {
        if text.uppercased().hasPrefix("#EXTINF:") {
          let info = text.dropFirst(8)
          let comma = info.firstIndex(of: ",")
          let head = comma.map { info[..<$0] } ?? info
          // `-1 tvg-id="x"`: the length is the first word.
          pendingDuration = PlaylistSyntax.seconds(head.split(separator: " ").first.map(String.init) ?? "")
          let title = comma.map { PlaylistSyntax.trimmed(String(info[info.index(after: $0)...])) } ?? ""
          pendingTitle = title.isEmpty ? nil : title
        }
        continue
      }
      add(
        bytes: PlaylistSyntax.trimmed(line.bytes[...]), text: text, bytesAreText: line.bytesAreText,
        line: line.number, title: pendingTitle, duration: pendingDuration, path: path, folder: folder)
      pendingTitle = nil
      pendingDuration = nil
    }
  }

  /// PLS: `[playlist]`, then `FileN=`, `TitleN=`, `LengthN=` in any order (entries play by
  /// N); `NumberOfEntries` and `Version` are not needed to read it.
  mutating func parsePLS(_ lines: [PlaylistText.Line], path: RawPath, folder: RawPath) {
    struct Slot {
      var file: (bytes: ArraySlice<UInt8>, text: String, same: Bool, line: Int)?
      var title: String?
      var duration: Double?
    }
    var slots: [Int: Slot] = [:]
    for line in lines {
      let text = PlaylistSyntax.trimmed(line.text)
      guard let equals = text.firstIndex(of: "=") else { continue }
      let key = text[..<equals].trimmingSpaces().lowercased()
      let value = PlaylistSyntax.trimmed(String(text[text.index(after: equals)...]))
      let field: String
      if key.hasPrefix("file") {
        field = "file"
      } else if key.hasPrefix("title") {
        field = "title"
      } else if key.hasPrefix("length") {
        field = "length"
      } else {
        continue
      }
      // Up to 9 digits: a hostile index cannot overflow, and no list has a billion entries.
      let digits = key.dropFirst(field.count)
      guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(digits)
      else { continue }
      var slot = slots[number] ?? Slot()
      switch field {
      case "file":
        let raw = line.bytes.firstIndex(of: UInt8(ascii: "=")).map { line.bytes[($0 + 1)...] } ?? []
        slot.file = (PlaylistSyntax.trimmed(raw), value, line.bytesAreText, line.number)
      case "title": slot.title = value.isEmpty ? nil : value
      default: slot.duration = PlaylistSyntax.seconds(value)
      }
      slots[number] = slot
    }
    for number in slots.keys.sorted() {
      guard let slot = slots[number], let file = slot.file else { continue }
      add(
        bytes: file.bytes, text: file.text, bytesAreText: file.same, line: file.line, title: slot.title,
        duration: slot.duration, path: path, folder: folder)
    }
  }

  /// Adds the entry written `text` (its file bytes `bytes`), or a diagnostic when it cannot
  /// name a file.
  mutating func add(
    bytes: ArraySlice<UInt8>, text: String, bytesAreText: Bool, line: Int, title: String?, duration: Double?,
    path: RawPath, folder: RawPath
  ) {
    let written = RawPath(text).escaped
    guard !text.isEmpty else { return }
    switch PlaylistSyntax.location(bytes: bytes, text: text, bytesAreText: bytesAreText, folder: folder) {
    case .success(let location):
      entries.append(
        PlaylistEntry(location: location, written: written, line: line, title: title, duration: duration))
    case .failure(let reason):
      diagnostics.append(PlaylistDiagnostic(list: path, line: line, entry: written, message: reason.message))
    }
  }
}

/// Why an entry names no file.
struct PlaylistEntryProblem: Error {
  var message: String
}

/// What M3U, PLS and CUE share: trimming, lengths, URLs and paths.
enum PlaylistSyntax {
  /// The text without spaces and tabs around it.
  static func trimmed(_ text: String) -> String { text.trimmingSpaces() }

  /// The bytes without spaces and tabs around them.
  static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
    while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
    return slice
  }

  /// A length in seconds: nil for -1 (unknown), negative, non-numbers and beyond a year.
  static func seconds(_ text: String) -> Double? {
    guard text.utf8.count <= 32, let value = Double(text), value.isFinite, value >= 0, value < 31_557_600
    else { return nil }
    return value
  }

  /// True when `text` starts with a URL scheme and `://` (`http://`, `file://`); a Windows
  /// drive (`C:\`) is no scheme.
  static func isURL(_ text: String) -> Bool {
    guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
    let scheme = text.utf8[..<colon]
    guard scheme.count >= 2, let first = scheme.first, isLetter(first),
      scheme.allSatisfy({
        isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
      })
    else { return false }
    return text.utf8[colon...].starts(with: "://".utf8)
  }

  private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

  /// The location an entry names; relative paths are joined to `folder`.
  static func location(bytes: ArraySlice<UInt8>, text: String, bytesAreText: Bool, folder: RawPath)
    -> Result<PlaylistLocation, PlaylistEntryProblem>
  {
    if text.lowercased().hasPrefix("file:") {
      guard let path = fileURLPath(text) else {
        return .failure(PlaylistEntryProblem(message: "a file URL of another host, skipped"))
      }
      guard !path.isEmpty, !path.contains(0) else {
        return .failure(PlaylistEntryProblem(message: "not a valid file URL, skipped"))
      }
      return .success(.file([RawPath(bytes: path)]))
    }
    if isURL(text) {
      return .failure(PlaylistEntryProblem(message: "a URL (shelf plays files only), skipped"))
    }
    var spellings: [[UInt8]] = []
    if !bytesAreText { spellings.append(Array(bytes)) }
    spellings.append(Array(text.utf8))
    if text.contains("\\") {
      // `Album\01.flac` from Windows; a drive (`C:\…`) cannot be found on this system.
      var slashed = Array(text.utf8).map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }
      if slashed.count >= 2, isLetter(slashed[0]), slashed[1] == UInt8(ascii: ":") {
        slashed.removeFirst(2)
        if slashed.first == UInt8(ascii: "/") { slashed = [] }
      }
      if !slashed.isEmpty { spellings.append(slashed) }
    }
    var paths: [RawPath] = []
    for spelling in spellings where !spelling.contains(0) {
      let path = spelling.first == UInt8(ascii: "/") ? RawPath(bytes: spelling) : joined(folder, spelling)
      if !paths.contains(path) { paths.append(path) }
    }
    guard !paths.isEmpty else { return .failure(PlaylistEntryProblem(message: "holds a NUL byte, skipped")) }
    return .success(.file(paths))
  }

  /// `folder/name`, without a `./` in front of `name`.
  static func joined(_ folder: RawPath, _ name: [UInt8]) -> RawPath {
    var name = name[...]
    while name.starts(with: [0x2E, 0x2F]) {
      name = name.dropFirst(2)
      while name.first == 0x2F { name = name.dropFirst() }
    }
    if folder.bytes == [0x2E] { return RawPath(bytes: Array(name)) }
    return folder.appending(RawPath(bytes: Array(name)))
  }

  /// The path bytes of a `file:` URL (`file:///a%20b`, `file://localhost/a`, `file:/a`),
  /// percent-decoded; nil when it names another host.
  static func fileURLPath(_ text: String) -> [UInt8]? {
    var rest = Array(text.utf8.dropFirst(5))[...]
    if rest.starts(with: [0x2F, 0x2F]) {
      rest = rest.dropFirst(2)
      let slash = rest.firstIndex(of: 0x2F) ?? rest.endIndex
      let host = String(decoding: rest[..<slash], as: UTF8.self).lowercased()
      guard host.isEmpty || host == "localhost" else { return nil }
      rest = rest[slash...]
    }
    // A query or fragment is not part of a file's name.
    if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
      rest = rest[..<end]
    }
    return percentDecoded(rest)
  }

  /// `%XX` as the byte XX; a `%` not followed by two hex digits stays.
  static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
        let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
      {
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(bytes[index])
        index += 1
      }
    }
    return out
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }
}

extension StringProtocol {
  /// The text without spaces and tabs at either end.
  func trimmingSpaces() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
    let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars[first...last])
    return String(out)
  }
}
