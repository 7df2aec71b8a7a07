public import ShelfAudio
public import ShelfCore
public import ShelfFacts

/// What the operands of `play` and `gain` come to: the tracks in order (files as given,
/// folders' audio files, the entries of M3U, PLS and CUE lists, backup entries) and the query
/// terms, which the command looks up in the catalogue. What goes wrong finding them is
/// reported as it happens, as values the command presents.
public struct AudioOperands: Sendable, Equatable {
  /// The tracks, in the order the operands gave them.
  public var tracks: [PlayerTrack] = []
  /// The query terms among the operands, in order.
  public var queryTerms: [String] = []
  /// The playlist file (M3U, PLS, CUE sheet) the tracks all came from, when the only operand
  /// was one: the key of a resume point, and what `--track N` counts in.
  public var list: RawPath?
  /// The key of the resume point: that list, or the folder that was the only operand.
  public var resumeKey: RawPath?
  /// The first track of each of that list's entries (a CUE sheet: by TRACK number).
  public var listStarts: [Int: Int] = [:]
  /// Indices of the tracks found by walking a folder: the user did not name them (a player
  /// skips a silent video among them with a note rather than failing it).
  public var foundInFolders: Set<Int> = []

  /// Something that went wrong finding the tracks; the rest are still found.
  public enum Diagnostic: Sendable, Equatable {
    /// An operand that names nothing (no file, backup entry or query term).
    case missing(RawPath)
    /// A folder below a walked folder could not be read: nothing below it was found.
    case unreadable(WalkProblem)
    /// A playlist that could not be read: none of its entries were found.
    case unreadableList(PlaylistError)
    /// What a playlist skipped or found under another name (notes and warnings), all at once
    /// before its entries are walked.
    case listEntries(list: RawPath, [PlaylistDiagnostic])
  }

  public init() {}

  /// Resolves `items` (read with `Operand(_:accepting:)`), reporting each problem to `report`
  /// in the order met. Throws when a folder cannot be walked at all.
  public static func resolve(
    _ items: [RawPath], accepting kinds: Operand.Kinds, report: (Diagnostic) -> Void
  ) throws(FileError) -> AudioOperands {
    var operands = AudioOperands()
    for item in items {
      switch Operand(item, accepting: kinds) {
      case .queryTerm(let term):
        operands.queryTerms.append(term)
      case .folder(let folder):
        try operands.addFolder(folder, report: report)
        if items.count == 1 { operands.resumeKey = folder.absolute }
      case .playlist(let list):
        try operands.addList(list, report: report)
        if items.count == 1 {
          operands.list = list.absolute
          operands.resumeKey = list.absolute
        }
      case .file(let file):
        operands.tracks.append(PlayerTrack(path: file, album: AlbumKey.folder(of: file)))
      case .backupEntry(let entry):
        operands.tracks.append(PlayerTrack(path: entry))
      case .missing, .standardInput:
        report(.missing(item))
      }
    }
    return operands
  }

  /// Adds the audio files under `folder`, in name order.
  mutating func addFolder(_ folder: RawPath, report: (Diagnostic) -> Void) throws(FileError) {
    let found = try FolderContents.audio(in: folder)
    for problem in found.unreadable { report(.unreadable(problem)) }
    foundInFolders.formUnion(tracks.count..<(tracks.count + found.names.count))
    tracks += found.paths.map { PlayerTrack(path: $0, album: AlbumKey.folder(of: $0)) }
  }

  /// Adds what the M3U, PLS or CUE file at `path` lists (lists in it followed, folders
  /// walked); a CUE track is a segment of its file, with the sheet's TITLE and PERFORMER and
  /// the sheet as its album.
  mutating func addList(_ path: RawPath, report: (Diagnostic) -> Void) throws(FileError) {
    let expansion: PlaylistExpansion
    do {
      expansion = try PlaylistResolver().expand(path)
    } catch {
      report(.unreadableList(error))
      return
    }
    report(.listEntries(list: path, expansion.diagnostics))
    let first = tracks.count
    var starts: [Int: Int] = [:]
    for item in expansion.items {
      let number = item.cueTrack?.number ?? item.position
      if starts[number] == nil { starts[number] = tracks.count - first }
      if item.isFolder {
        try addFolder(item.path, report: report)
        continue
      }
      guard let span = item.cueTrack else {
        tracks.append(PlayerTrack(path: item.path, album: AlbumKey.folder(of: item.path)))
        continue
      }
      tracks.append(
        PlayerTrack(
          path: item.path, segment: TrackSegment(start: span.start.frames, end: span.end?.frames),
          tags: AudioTags(
            title: item.title, artist: item.performer, album: item.album, track: String(span.number)),
          album: "cue:" + item.list.escaped, albumPosition: AlbumPosition(disc: 1, track: span.number)))
    }
    listStarts = starts
  }

  /// The track index `--track N` starts at: the list's track or entry N when the only operand
  /// was a list (a CUE sheet's TRACK N, else the first after it), else the Nth track.
  public func index(ofTrack number: Int) -> Int? {
    guard list != nil else { return number <= tracks.count ? number - 1 : nil }
    if let exact = listStarts[number] { return exact }
    return listStarts.filter { $0.key > number }.min { $0.key < $1.key }?.value
  }

  /// Gives the tracks whose tags carry no gain the gains `shelf gain` measured, from the
  /// catalogue `store` opens (asked only when a track wants one: backup entries have none
  /// there); without a catalogue, or for a track it cannot look up, a track keeps none.
  public mutating func addMeasuredGains(from store: () -> CatalogStore?) {
    let wanted = tracks.indices.filter {
      tracks[$0].measuredGain == nil && !Operand.namesBackupEntry(tracks[$0].path)
    }
    guard !wanted.isEmpty, let store = store() else { return }
    for index in wanted {
      tracks[index].measuredGain = (try? store.replayGain(forFileAt: tracks[index].path)) ?? nil
    }
  }
}

extension PlayerTrack {
  /// A catalogued audio file as a track: its album from its tags (else its folder), the gain
  /// `shelf gain` measured, and its place in the album.
  public init(catalogued entry: CatalogEntry) {
    self.init(
      path: entry.path,
      album: entry.facts.audio.flatMap { AlbumKey.tagged($0.tags) } ?? AlbumKey.folder(of: entry.path),
      measuredGain: entry.measuredReplayGain,
      albumPosition: entry.facts.audio.flatMap { AlbumPosition($0.tags) })
  }
}
