import ShelfCatalog
import ShelfCore
import ShelfFacts
import ShelfWorkers

/// What `info` adds for a CUE sheet: its album, performer and tracks (number, title, performer,
/// start, length, file), beside the text facts every `.cue` file has.
struct CueSheetDescription {
  var sheet: Result<CueSheet, PlaylistError>
  /// Each track's length in seconds (nil when unknown), in the sheet's order.
  var durations: [Double?] = []

  /// Reads the sheet at `path`; the length of the last track of each file comes from that
  /// file's facts, read in one of `extractors`' sandboxed workers like any file `info` reads.
  init(path: RawPath, extractors: ExtractorPool?) {
    do {
      let sheet = try CueSheet.read(path: path)
      self.sheet = .success(sheet)
      durations = sheet.trackDurations { file in
        guard
          let read = try? ReadFacts(
            MetadataExtractor.open(path: file, followLinks: true), fileExtension: file.lowercasedExtension,
            in: extractors)
        else { return nil }
        if let audio = read.audio {
          // Exact from the frame count where there is one.
          if audio.frames > 0, audio.sampleRate > 0 { return Double(audio.frames) / Double(audio.sampleRate) }
          return audio.duration > 0 ? audio.duration : nil
        }
        return read.video.map(\.duration)
      }
    } catch {
      self.sheet = .failure(error)
    }
  }

  /// Seconds to the millisecond, as JSON numbers.
  static func seconds(_ value: Double?) -> JSONValue {
    guard let value, value.isFinite else { return .null }
    return .double((value * 1000).rounded() / 1000)
  }

  /// The `cue` object of `info --json`.
  var json: JSONValue {
    let sheet: CueSheet
    switch self.sheet {
    case .failure(let error): return .object([("error", .string(error.reason))])
    case .success(let read): sheet = read
    }
    func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    let tracks: [JSONValue] = sheet.tracks.enumerated().map { index, track in
      var fields: [(String, JSONValue)] = [
        ("number", .int(Int64(track.number))), ("title", string(track.title)),
        ("performer", string(track.performer)), ("start", Self.seconds(track.start.seconds)),
        ("duration", Self.seconds(durations[index])),
      ]
      fields += JSONValue.pathFields(track.file, key: "file")
      if !track.isAudio { fields.append(("type", .string(track.type))) }
      return .object(fields)
    }
    var fields: [(String, JSONValue)] = [
      ("title", string(sheet.title)), ("performer", string(sheet.performer)), ("tracks", .array(tracks)),
    ]
    let problems = sheet.diagnostics.filter { !$0.isNote }
    if !problems.isEmpty {
      fields.append(("warnings", .array(problems.map { .string($0.description) })))
    }
    return .object(fields)
  }

  /// The rows of the human form: album, performer, then a row per track: its start as the
  /// sheet writes it (mm:ss:ff, 75 frames a second), its length, who and what, its file.
  var rows: [[String]] {
    let sheet: CueSheet
    switch self.sheet {
    case .failure(let error): return [["cue sheet:", error.reason]]
    case .success(let read): sheet = read
    }
    var rows: [[String]] = []
    if let title = sheet.title { rows.append(["album:", title]) }
    if let performer = sheet.performer { rows.append(["performer:", performer]) }
    rows.append(["tracks:", "\(sheet.tracks.count)"])
    for (index, track) in sheet.tracks.enumerated() {
      let length = durations[index].map { Quantities.formatDuration($0) } ?? "-:--"
      var who = [track.performer, track.title].compactMap { $0 }.joined(separator: " – ")
      if !track.isAudio { who += (who.isEmpty ? "" : " ") + "(\(track.type.lowercased()))" }
      rows.append([
        "track \(track.number < 10 ? "0" : "")\(track.number):",
        "\(track.start) +\(length)  \(who)  [\(track.file.lastComponent.escaped)]",
      ])
    }
    for problem in sheet.diagnostics where !problem.isNote { rows.append(["warning:", problem.description]) }
    return rows
  }
}
