public import ShelfCore

extension CueSheet {
  /// Parses `bytes`, the content of the sheet at `path` (which should be absolute: FILEs are
  /// relative to its folder), without touching the file system: each FILE's `path` is its first
  /// spelling until `locateFiles` looks. Throws only when the bytes are too long or not text.
  public static func parse(_ bytes: [UInt8], path: RawPath) throws(PlaylistError) -> CueSheet {
    let text = try PlaylistText(bytes, path: path, detecting: true)
    var parser = CueSheetParser(path: path)
    for line in text.lines { parser.take(line) }
    var sheet = parser.finish()
    sheet.encoding = text.encoding
    return sheet
  }
}

/// The state of one pass over a sheet's lines.
struct CueSheetParser {
  /// A TRACK being read, before its start is known.
  struct PendingTrack {
    var number: Int
    var type: String
    var line: Int
    var title: String?
    var performer: String?
    var songwriter: String?
    var isrc: String?
    var flags: [String] = []
    var remarks: [CueSheet.Remark] = []
    var indexOne: (time: CueTime, fileIndex: Int)?
    var indexZero: (time: CueTime, fileIndex: Int)?
    var pregapSilence: CueTime?
    var postgapSilence: CueTime?
  }

  var sheet: CueSheet
  var pending: [PendingTrack] = []
  var folder: RawPath

  init(path: RawPath) {
    sheet = CueSheet(path: path, encoding: .utf8)
    folder = path.parent
  }

  /// Lines that make no sense reported at most: a text file that is no sheet would otherwise
  /// give one warning per line.
  static let warningLimit = 50
  var unreported = 0

  mutating func warn(_ line: PlaylistText.Line, _ message: String) {
    guard sheet.diagnostics.count < Self.warningLimit else {
      unreported += 1
      return
    }
    let shown = RawPath(PlaylistSyntax.trimmed(line.text)).escaped
    sheet.diagnostics.append(
      PlaylistDiagnostic(
        list: sheet.path, line: line.number, entry: String(shown.prefix(200)), message: message))
  }

  mutating func take(_ line: PlaylistText.Line) {
    let bytes = PlaylistSyntax.trimmed(line.bytes[...])
    let text = Array(PlaylistSyntax.trimmed(line.text).utf8)[...]
    guard !text.isEmpty else { return }
    let (commandBytes, rest) = Self.firstWord(text)
    let command = String(decoding: commandBytes, as: UTF8.self).uppercased()
    let restText = String(decoding: rest, as: UTF8.self)
    let inTrack = !pending.isEmpty
    switch command {
    case "REM":
      let (name, value) = Self.firstWord(rest)
      guard !name.isEmpty else { return }
      let remark = CueSheet.Remark(
        name: String(decoding: name, as: UTF8.self).uppercased(),
        value: String(decoding: Self.value(value).value, as: UTF8.self))
      if inTrack { pending[pending.count - 1].remarks.append(remark) } else { sheet.remarks.append(remark) }
    case "TITLE", "PERFORMER", "SONGWRITER":
      let value = String(decoding: Self.value(rest).value, as: UTF8.self)
      if inTrack {
        switch command {
        case "TITLE": pending[pending.count - 1].title = value
        case "PERFORMER": pending[pending.count - 1].performer = value
        default: pending[pending.count - 1].songwriter = value
        }
      } else {
        switch command {
        case "TITLE": sheet.title = value
        case "PERFORMER": sheet.performer = value
        default: sheet.songwriter = value
        }
      }
    case "CATALOG": sheet.catalog = String(decoding: Self.value(rest).value, as: UTF8.self)
    case "CDTEXTFILE": sheet.cdTextFile = String(decoding: Self.value(rest).value, as: UTF8.self)
    case "ISRC":
      guard inTrack else { return warn(line, "ISRC outside a TRACK, ignored") }
      pending[pending.count - 1].isrc = String(decoding: Self.value(rest).value, as: UTF8.self)
    case "FLAGS":
      guard inTrack else { return warn(line, "FLAGS outside a TRACK, ignored") }
      pending[pending.count - 1].flags = restText.split(separator: " ").map { $0.uppercased() }
    case "FILE": file(line, bytes: bytes, text: text)
    case "TRACK":
      let words = restText.split(whereSeparator: { $0 == " " || $0 == "\t" })
      // A track that cannot be kept still takes the INDEX lines that follow it.
      let ignored = PendingTrack(number: -1, type: "", line: line.number)
      guard sheet.files.count > 0 else {
        pending.append(ignored)
        if pending.count > 1 { finishTrack(at: 0) }
        return warn(line, "TRACK before any FILE, ignored")
      }
      guard let first = words.first, first.count <= 4, first.allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(first)
      else {
        pending.append(ignored)
        if pending.count > 1 { finishTrack(at: 0) }
        return warn(line, "not a track number, ignored")
      }
      if let previous = pending.last?.number ?? sheet.tracks.last?.number, number <= previous {
        warn(line, "track \(number) after track \(previous)")
      }
      let type = words.count > 1 ? words[1].uppercased() : "AUDIO"
      pending.append(PendingTrack(number: number, type: type, line: line.number))
      if pending.count > 1 { finishTrack(at: 0) }
    case "INDEX":
      let words = restText.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard inTrack, !sheet.files.isEmpty else { return warn(line, "INDEX outside a TRACK, ignored") }
      guard words.count >= 2, words[0].count <= 2, words[0].allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(words[0]), let time = CueTime(words[1])
      else { return warn(line, "not an INDEX nn mm:ss:ff, ignored") }
      let at = (time: time, fileIndex: sheet.files.count - 1)
      if number == 1 {
        pending[pending.count - 1].indexOne = at
      } else if number == 0 {
        pending[pending.count - 1].indexZero = at
      }
    case "PREGAP", "POSTGAP":
      guard inTrack else { return warn(line, "\(command) outside a TRACK, ignored") }
      guard let time = CueTime(restText.trimmingSpaces()) else { return warn(line, "not a time, ignored") }
      if command == "PREGAP" {
        pending[pending.count - 1].pregapSilence = time
      } else {
        pending[pending.count - 1].postgapSilence = time
      }
    default:
      // Other tools' commands (`CATALOG`-like extensions, `ARRANGER`, `MESSAGE`): not needed.
      break
    }
  }

  /// `FILE "name" TYPE`: the name quoted (with spaces, quotes inside kept as written) or bare.
  mutating func file(_ line: PlaylistText.Line, bytes: ArraySlice<UInt8>, text: ArraySlice<UInt8>) {
    let (_, restText) = Self.firstWord(text)
    let (nameText, typeText) = Self.fileValue(restText)
    let (_, restBytes) = Self.firstWord(bytes)
    let nameBytes = Self.fileValue(restBytes).name
    guard !nameText.isEmpty else { return warn(line, "FILE without a name, ignored") }
    let name = String(decoding: nameText, as: UTF8.self)
    var spellings: [RawPath] = []
    switch PlaylistSyntax.location(
      bytes: nameBytes, text: name, bytesAreText: line.bytesAreText, folder: folder)
    {
    case .success(.file(let paths)): spellings = paths
    case .success(.url), .failure: break
    }
    // The name's last component in the sheet's folder: `C:\Rips\x.wav`, `/home/a/x.flac`.
    let lastSlash = nameText.lastIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
    if let lastSlash, lastSlash + 1 < nameText.endIndex {
      let base = PlaylistSyntax.joined(folder, Array(nameText[(lastSlash + 1)...]))
      if !base.bytes.contains(0), !spellings.contains(base) { spellings.append(base) }
    }
    // A FILE that names no local file is kept (its tracks are then missing), so that the
    // tracks after it are not taken for the previous file's.
    let type = String(decoding: typeText, as: UTF8.self).uppercased()
    sheet.files.append(
      CueSheet.File(
        name: name, type: type, path: spellings.first ?? RawPath(name), spellings: spellings,
        location: spellings.isEmpty ? .missing : .notLooked, line: line.number))
  }

  /// Turns the oldest pending track into a track once its start is known (the next TRACK has
  /// begun, or the sheet ended), or drops it with a warning.
  mutating func finishTrack(at index: Int) {
    let track = pending.remove(at: index)
    guard track.number >= 0 else { return }
    let start: (time: CueTime, fileIndex: Int)
    if let one = track.indexOne {
      start = one
    } else if let zero = track.indexZero {
      start = zero
      sheet.diagnostics.append(
        PlaylistDiagnostic(
          list: sheet.path, line: track.line, entry: "TRACK \(track.number)",
          message: "no INDEX 01, starts at its INDEX 00", isNote: true))
    } else {
      sheet.diagnostics.append(
        PlaylistDiagnostic(
          list: sheet.path, line: track.line, entry: "TRACK \(track.number)", message: "no INDEX 01, skipped")
      )
      return
    }
    if let previous = sheet.tracks.last, previous.fileIndex == start.fileIndex {
      guard previous.start < start.time else {
        sheet.diagnostics.append(
          PlaylistDiagnostic(
            list: sheet.path, line: track.line, entry: "TRACK \(track.number)",
            message:
              "starts at \(start.time), not after track \(previous.number) (\(previous.start)): skipped"))
        return
      }
      sheet.tracks[sheet.tracks.count - 1].end = start.time
    }
    let file = sheet.files[start.fileIndex]
    sheet.tracks.append(
      CueSheet.Track(
        number: track.number, type: track.type, title: track.title,
        performer: track.performer ?? sheet.performer,
        songwriter: track.songwriter ?? sheet.songwriter, isrc: track.isrc, flags: track.flags,
        remarks: track.remarks, fileIndex: start.fileIndex, file: file.path, start: start.time, end: nil,
        pregap: track.indexZero, pregapSilence: track.pregapSilence, postgapSilence: track.postgapSilence,
        line: track.line))
  }

  mutating func finish() -> CueSheet {
    while !pending.isEmpty { finishTrack(at: 0) }
    if unreported > 0 {
      sheet.diagnostics.append(
        PlaylistDiagnostic(
          list: sheet.path, line: nil, entry: nil,
          message: "\(unreported) more line\(unreported == 1 ? "" : "s") that make no sense, ignored"))
    }
    return sheet
  }

  /// The first word (up to a space or tab) and the rest without the spaces after it.
  static func firstWord(_ bytes: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
    let end = bytes.firstIndex { $0 == 0x20 || $0 == 0x09 } ?? bytes.endIndex
    return (bytes[..<end], PlaylistSyntax.trimmed(bytes[end...]))
  }

  /// A value: between the first and the last double quote when it starts with one (quotes
  /// inside kept, as sheets write `"Say "Hi""`), else the whole rest; and what follows it.
  static func value(_ bytes: ArraySlice<UInt8>) -> (value: ArraySlice<UInt8>, after: ArraySlice<UInt8>) {
    guard bytes.first == 0x22 else { return (bytes, []) }
    let inner = bytes.dropFirst()
    guard let close = inner.lastIndex(of: 0x22) else { return (inner, []) }
    return (inner[..<close], PlaylistSyntax.trimmed(inner[(close + 1)...]))
  }

  /// A FILE's name and type: quoted, or bare with the type as its last word.
  static func fileValue(_ bytes: ArraySlice<UInt8>) -> (name: ArraySlice<UInt8>, type: ArraySlice<UInt8>) {
    if bytes.first == 0x22 {
      let (name, after) = value(bytes)
      return (name, after)
    }
    guard let space = bytes.lastIndex(where: { $0 == 0x20 || $0 == 0x09 }) else { return (bytes, []) }
    return (PlaylistSyntax.trimmed(bytes[..<space]), bytes[(space + 1)...])
  }
}
