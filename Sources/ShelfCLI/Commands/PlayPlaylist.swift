import ShelfAudio
import ShelfCatalog
import ShelfCore
import ShelfFacts

/// What the `play` items came to: the tracks in order (`AudioOperands`), and what went wrong
/// finding them. The operands' properties read through (`playlist.tracks`).
@dynamicMemberLookup
struct Playlist {
  var operands = AudioOperands()
  /// Items that were missing (already reported).
  var failures: [FailureKind] = []
  /// The query terms matched no catalogued audio (reported): the exit status is at least 1.
  var queryMatchedNothing = false

  subscript<Value>(dynamicMember path: WritableKeyPath<AudioOperands, Value>) -> Value {
    get { operands[keyPath: path] }
    set { operands[keyPath: path] = newValue }
  }

  /// The playlist index `--track N` starts at (see `AudioOperands.index(ofTrack:)`).
  func index(ofTrack number: Int) -> Int? { operands.index(ofTrack: number) }
}

/// Turns the `play` arguments into a list of files: files as given, folders walked for audio
/// files, M3U, PLS and CUE files expanded, everything else a catalogue query
/// (`AudioOperands`); this presents what went wrong and looks the query up.
enum PlaylistBuilder {
  static func build(_ items: [RawPath], invocation: Invocation) async throws -> Playlist {
    let console = invocation.console
    var failures: [FailureKind] = []
    var playlist = Playlist(
      operands: try AudioOperands.resolve(items, accepting: [.playlists, .backupEntries, .queryTerms]) {
        failures += present($0, console: console)
      })
    playlist.failures = failures
    if !playlist.queryTerms.isEmpty {
      let found = try await CatalogPlaylist.tracks(matching: playlist.queryTerms, invocation: invocation)
      playlist.tracks += found
      playlist.queryMatchedNothing = found.isEmpty
    }
    playlist.operands.addMeasuredGains {
      try? CatalogStore.openForReading(at: invocation.globals.catalogue, shelfVersion: ShelfInfo.version)
    }
    return playlist
  }

  /// Tells one problem met finding the tracks, and returns the failures it counts as: a missing
  /// item and a list that cannot be read are failures, a folder not read and a list's skipped
  /// entries are warnings (a list of thousands of missing entries says so in a few lines).
  static func present(_ diagnostic: AudioOperands.Diagnostic, console: Console) -> [FailureKind] {
    switch diagnostic {
    case .missing(let path):
      let error = AudioError(path: path, reason: .missingFile, message: "no such file or directory")
      console.error(error.description)
      return [error.failure]
    case .unreadable(let problem):
      console.warning("\(problem.path.escaped): \(problem.reason)")
    case .unreadableList(let error):
      console.error(error.description)
      return [error.failure]
    case .listEntries(let path, let diagnostics):
      let shown = 5
      let warnings = diagnostics.filter { !$0.isNote }
      let notes = diagnostics.filter(\.isNote)
      for note in notes.prefix(shown) { console.note(note.description) }
      if notes.count > shown { console.note("\(path.escaped): \(notes.count - shown) more entries found so") }
      for warning in warnings.prefix(shown) { console.warning(warning.description) }
      if warnings.count > shown {
        console.warning(
          "\(path.escaped): \(warnings.count - shown) more entries skipped (\(warnings.count) in all)")
      }
    }
    return []
  }
}

/// Catalogue queries for `play` and `gain`: the catalogued audio files matching the terms.
enum CatalogPlaylist {
  /// The catalogued audio matching every term (`kind:audio` is added to the terms, so
  /// `kind:image` finds nothing), and the catalogue it came from; an empty result is reported.
  /// Without a catalogue, `missingCatalogue` (when given) is thrown in place of the catalogue's
  /// own error.
  static func entries(
    matching terms: [String], invocation: Invocation, missingCatalogue: (any Error)? = nil
  ) async throws -> (store: CatalogStore, entries: [CatalogEntry]) {
    let query = try QueryTerms.query(terms, adding: ["kind:audio"], environment: invocation.environment)
    let store: CatalogStore
    do {
      store = try invocation.openCatalogueForReading()
    } catch let error as AdvisedCatalogError where error.error.reason == .noCatalogue {
      throw missingCatalogue ?? error
    }
    try await invocation.prepareCopyFields(query, in: store)
    let entries = try store.entries(matching: query)
    if entries.isEmpty {
      invocation.console.error("no audio matches '\(terms.joined(separator: " "))' in the catalogue")
    }
    return (store, entries)
  }

  /// The tracks of the catalogued audio matching every term, each with its album.
  static func tracks(matching terms: [String], invocation: Invocation) async throws -> [PlayerTrack] {
    let missing = AudioError(
      subject: terms.joined(separator: " "), reason: .missingFile,
      message: "no such file or folder, and no catalogue to search (run 'shelf index FOLDER' first)")
    return try await entries(matching: terms, invocation: invocation, missingCatalogue: missing).entries
      .map(PlayerTrack.init(catalogued:))
  }
}
