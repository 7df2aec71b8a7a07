import ShelfAudio
import ShelfCatalog
import ShelfCore
import ShelfFacts

/// What the `play` items came to: the tracks in order, and what went wrong finding them.
struct Playlist {
  var tracks: [PlayerTrack] = []
  /// The playlist file (m3u, pls, CUE sheet) the tracks all came from, when the only item was
  /// one: the key of its resume point, and what `--track N` counts in.
  var list: RawPath?
  /// The key of the resume point: that list, or the folder that was the only item.
  var resumeKey: RawPath?
  /// The first track of each of that list's entries (a CUE sheet: by TRACK number), for
  /// `--track N`.
  var listStarts: [Int: Int] = [:]
  /// Items that were missing (already reported).
  var failures: [FailureKind] = []
  /// The query terms matched no catalogued audio (reported): the exit status is at least 1.
  var queryMatchedNothing = false
  /// Indices of the tracks found by walking a folder: a silent video among them is skipped
  /// with a note rather than failed (the user did not name it).
  var foundInFolders: Set<Int> = []
}

extension Playlist {
  /// Adds the audio files under `folder`, in name order.
  mutating func addFolder(_ folder: RawPath, console: Console) throws {
    let found = try PlaylistBuilder.audioFiles(in: folder, console: console)
    foundInFolders.formUnion(tracks.count..<(tracks.count + found.count))
    tracks += found.map { PlayerTrack(path: $0, album: AlbumKey.folder(of: $0)) }
  }

  /// Adds what the M3U, PLS or CUE file at `path` lists (lists in it followed, folders walked);
  /// what it skips or finds under another name is reported, and a list that cannot be read is
  /// a failure of its own.
  mutating func addList(_ path: RawPath, console: Console) throws {
    let expansion: PlaylistExpansion
    do {
      expansion = try PlaylistResolver().expand(path)
    } catch {
      console.error(error.description)
      failures.append(error.failure)
      return
    }
    // A list of thousands of missing entries says so in a few lines, not thousands.
    let shown = 5
    let warnings = expansion.diagnostics.filter { !$0.isNote }
    let notes = expansion.diagnostics.filter(\.isNote)
    for note in notes.prefix(shown) { console.note(note.description) }
    if notes.count > shown { console.note("\(path.escaped): \(notes.count - shown) more entries found so") }
    for warning in warnings.prefix(shown) { console.warning(warning.description) }
    if warnings.count > shown {
      console.warning(
        "\(path.escaped): \(warnings.count - shown) more entries skipped (\(warnings.count) in all)")
    }
    let first = tracks.count
    var starts: [Int: Int] = [:]
    for item in expansion.items {
      let number = item.cueTrack?.number ?? item.position
      if starts[number] == nil { starts[number] = tracks.count - first }
      if item.isFolder {
        try addFolder(item.path, console: console)
        continue
      }
      guard let span = item.cueTrack else {
        tracks.append(PlayerTrack(path: item.path, album: AlbumKey.folder(of: item.path)))
        continue
      }
      // A CUE track shows the sheet's TITLE and PERFORMER, and its album is the sheet.
      tracks.append(
        PlayerTrack(
          path: item.path, segment: TrackSegment(start: span.start.frames, end: span.end?.frames),
          tags: AudioTags(
            title: item.title, artist: item.performer, album: item.album, track: String(span.number)),
          album: "cue:" + item.list.escaped, albumPosition: AlbumPosition(disc: 1, track: span.number)))
    }
    listStarts = starts
  }

  /// The playlist index `--track N` starts at: the list's track or entry N when the only item
  /// was a list (a CUE sheet's TRACK N, else the first after it), else the Nth track.
  func index(ofTrack number: Int) -> Int? {
    guard list != nil else { return number <= tracks.count ? number - 1 : nil }
    if let exact = listStarts[number] { return exact }
    return listStarts.filter { $0.key > number }.min { $0.key < $1.key }?.value
  }
}

/// Turns the `play` arguments into a list of files: files as given, folders walked for audio
/// files, M3U, PLS and CUE files expanded, everything else a catalogue query.
enum PlaylistBuilder {
  static func build(_ items: [RawPath], invocation: Invocation) async throws -> Playlist {
    var playlist = Playlist()
    var queryTerms: [RawPath] = []
    for item in items {
      if let text = item.utf8String, QueryTerms.namesField(text) {
        queryTerms.append(item)
      } else if let status = try? FileStatus.stat(item) {
        if status.type == .directory {
          try playlist.addFolder(item, console: invocation.console)
          if items.count == 1 { playlist.resumeKey = item.absolute }
        } else if PlaylistResolver.isPlaylist(item) {
          try playlist.addList(item, console: invocation.console)
          if items.count == 1 {
            playlist.list = item.absolute
            playlist.resumeKey = item.absolute
          }
        } else {
          playlist.tracks.append(PlayerTrack(path: item, album: AlbumKey.folder(of: item)))
        }
      } else if BackupEntryFiles.isBackupEntryPath(item) {
        playlist.tracks.append(PlayerTrack(path: item))
      } else if isQueryTerm(item) {
        queryTerms.append(item)
      } else {
        let error = AudioError(path: item, reason: .missingFile, message: "no such file or directory")
        invocation.console.error(error.description)
        playlist.failures.append(error.failure)
      }
    }
    if !queryTerms.isEmpty {
      let found = try await CatalogPlaylist.tracks(
        matching: queryTerms.map { $0.utf8String ?? "" }, invocation: invocation)
      playlist.tracks += found
      playlist.queryMatchedNothing = found.isEmpty
    }
    CatalogPlaylist.addMeasuredGains(to: &playlist.tracks, invocation: invocation)
    return playlist
  }

  /// A missing item that names no field is a query term (`Bach`, `kidn:audio`, which the
  /// query then refuses) unless it looks like a path: a slash or an audio extension make it a
  /// missing file instead. A term that names a field (`root:/x`) never reaches here.
  static func isQueryTerm(_ item: RawPath) -> Bool {
    guard let text = item.utf8String, !text.isEmpty, !text.contains("/") else { return false }
    if text.contains(":") { return true }
    return !AudioContainer.audioExtensions.contains(item.lowercasedExtension)
  }

  /// Audio files (by extension) under `folder`, in name order folder by folder, through the
  /// one tree walker: hidden entries are skipped, links are followed only where they stay
  /// inside the folder and never twice into the same folder, and FIFOs are never opened. Each
  /// path is spelled from `folder` as given.
  static func audioFiles(in folder: RawPath, console: Console) throws -> [RawPath] {
    let walker = try TreeWalker(root: folder, followLinks: true, includeHidden: false)
    var found: [RawPath] = []
    let summary = walker.walk { file in
      let relative = RawPath(bytes: file.relative)
      guard AudioContainer.audioExtensions.contains(relative.lowercasedExtension) else { return }
      found.append(folder.appending(relative))
    }
    for problem in summary.unreadable {
      console.warning("\(problem.path.escaped): \(problem.reason)")
    }
    return found
  }
}

/// Catalogue queries for `play`: the catalogued audio files matching the terms, by path.
enum CatalogPlaylist {
  /// The catalogued audio matching every term (`kind:audio` is added to the terms, so
  /// `kind:image` finds nothing), with the album each belongs to; an empty result is reported.
  static func tracks(matching terms: [String], invocation: Invocation) async throws -> [PlayerTrack] {
    let query = try QueryTerms.query(terms, adding: ["kind:audio"], environment: invocation.environment)
    try invocation.refuseFolderAsCatalogue(failure: .missingInput)
    let store: CatalogStore
    do {
      store = try CatalogStore.openForReading(
        at: invocation.globals.catalogue, shelfVersion: ShelfInfo.version)
    } catch let error as CatalogError where error.reason == .noCatalogue {
      throw AudioError(
        subject: terms.joined(separator: " "), reason: .missingFile,
        message: "no such file or folder, and no catalogue to search (run 'shelf index FOLDER' first)")
    } catch {
      throw AdvisedCatalogError.advising(error)
    }
    try await invocation.prepareCopyFields(query, in: store)
    let tracks = try store.entries(matching: query).map { entry in
      PlayerTrack(
        path: entry.path,
        album: entry.facts.audio.flatMap { AlbumKey.tagged($0.tags) } ?? AlbumKey.folder(of: entry.path),
        measuredGain: entry.measuredReplayGain,
        albumPosition: entry.facts.audio.flatMap { AlbumPosition($0.tags) })
    }
    if tracks.isEmpty {
      invocation.console.error("no audio matches '\(terms.joined(separator: " "))' in the catalogue")
    }
    return tracks
  }

  /// The gains `shelf gain` measured for files named on the command line (or by a folder or a
  /// list), for tracks whose tags carry none: looked up when a catalogue is there, read-only.
  /// Without one (or when it cannot be read) the tracks play with their tags' gains alone.
  static func addMeasuredGains(to tracks: inout [PlayerTrack], invocation: Invocation) {
    let wanted = tracks.indices.filter {
      tracks[$0].measuredGain == nil && !BackupEntryFiles.isBackupEntryPath(tracks[$0].path)
    }
    guard !wanted.isEmpty,
      let store = try? CatalogStore.openForReading(
        at: invocation.globals.catalogue, shelfVersion: ShelfInfo.version)
    else { return }
    for index in wanted {
      tracks[index].measuredGain = (try? store.replayGain(forFileAt: tracks[index].path)) ?? nil
    }
  }
}
