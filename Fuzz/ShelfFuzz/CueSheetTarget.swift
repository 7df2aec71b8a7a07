import ShelfCore
import ShelfFacts

/// CUE sheets (`CueSheet.parse`): the grammar, the encodings, the track spans; then every
/// track's span in sample frames and its length against a file of a given length. Parsing
/// touches no file system, so the input's FILE names are never looked for.
enum CueSheetTarget: FuzzTarget {
  static let name = "cue"
  static func run(_ input: [UInt8]) {
    guard let sheet = try? CueSheet.parse(input, path: RawPath("/fuzz/sheet.cue")) else { return }
    for track in sheet.tracks {
      precondition(track.end.map { $0 > track.start } ?? true, "a track ends before it starts")
      precondition(sheet.files.indices.contains(track.fileIndex), "a track's file is not in the sheet")
      for rate in [44_100, 48_000, 8_000, Int.max] {
        _ = CueTrackSpan(number: track.number, start: track.start, end: track.end).sampleFrames(rate: rate)
      }
      _ = track.start.description
    }
    _ = sheet.trackDurations { _ in 3_600 }
    _ = sheet.diagnostics.map(\.description)
  }
}
