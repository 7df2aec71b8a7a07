import ShelfAudio
import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf gain`: measure ReplayGain 2.0 track and album gains and keep them in the catalogue.
enum GainCommand {
  static let json = Flag("json", help: "Print one JSON object (tracks and albums) instead of the table.")
  static let jobs = TypedOption<Int?>(
    "jobs", short: "j", value: "n", help: "Files measured at once (default: the number of processors).",
    parser: .integer(in: 1...256), completion: Completion.none)

  static let command = Command(
    name: "gain",
    abstract: "Measure ReplayGain track and album gains and keep them in the catalogue.",
    discussion: """
      Measures the loudness of each audio file (EBU R128 integrated loudness and true peak, \
      through libebur128, on the samples shelf's decoders give) and prints its ReplayGain 2.0 \
      gain (reference -18 LUFS) and peak, per track and per album, as a tab-separated table \
      like 'loudgain -O' (after each album's tracks, a row named Album) or, with --json, one \
      JSON object. An album is the files with the same album tag and album artist (with an \
      album tag and no album artist: the same album tag in one folder); files without an album \
      tag form one album per folder. Items are files, folders (their audio files, as 'shelf \
      play' finds them) or catalogue query terms as in 'shelf ls' (kind:audio is added).

      The gains of catalogued files are kept in the catalogue (under its writer lock, like \
      index: while another writer holds it, gain waits briefly, then prints what it measured \
      and exits with status 75), where 'shelf info', 'shelf ls --json' and 'shelf play' find \
      them when a file has no ReplayGain tags of its own; they stay valid while the file is \
      unchanged (same device, inode, size and times) and are measured again after it changes. \
      A file the catalogue does not hold is measured and printed only. The files themselves \
      are only read, never written. A file that cannot be decoded is reported on one line \
      naming it and left out (its album is measured without it); the exit status is then 1, \
      or that failure's own when no file could be measured.
      """,
    arguments: [
      ArgumentSpec(
        "item", help: "Audio files, folders or catalogue query terms (e.g. album:x).", repeating: true,
        completion: .filesOrQueryTerms)
    ],
    options: [json, jobs],
    examples: [
      Example("shelf gain ~/Music/Album", "Measure an album's files and keep their gains."),
      Example("shelf gain artist:Bach", "Measure the catalogued audio of an artist."),
      Example("shelf gain --json song.flac | jq .tracks[0].gain", "A track's gain, from a script."),
    ],
    acceptsNegatedTerms: true,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let arguments = invocation.arguments
    let width = arguments[jobs] ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    let lockWait = try invocation.lockWait()
    var outcome = BatchOutcome()
    let (inputs, failures) = try await resolve(arguments.positionals.map(\.path), invocation: invocation)
    for failure in failures { outcome.failed(failure, console: invocation.console) }
    let report = await ReplayGainScan.measure(inputs, width: width)
    for failure in report.failures { outcome.failed(failure, console: invocation.console) }
    for _ in report.tracks { outcome.succeeded() }
    var kept = true
    var keepError: (any Error)? = nil
    do {
      _ = try ReplayGainScan.keep(
        report, in: invocation.globals.catalogue, shelfVersion: ShelfInfo.version,
        lockWait: lockWait)
    } catch {
      kept = false
      keepError = error
    }
    if arguments[json] {
      invocation.console.write(jsonReport(report, kept: kept).serialized() + "\n")
    } else if !report.tracks.isEmpty {
      invocation.console.write(table(report))
    }
    if let keepError {
      let advised = AdvisedCatalogError.advising(keepError)
      invocation.console.error("gains not kept in the catalogue: \(advised)")
      return ExitStatus(failure: (advised as? any ShelfError)?.failure ?? .io)
    }
    if inputs.isEmpty && failures.isEmpty { return .partialFailure }
    return outcome.exitStatus
  }

  /// The files to measure: files as given, folders' audio files, the catalogued audio
  /// matching the query terms; each with its catalogue entry when there is one. Missing files
  /// come back as failures.
  static func resolve(_ items: [RawPath], invocation: Invocation) async throws -> ([GainInput], [AudioError])
  {
    var failures: [AudioError] = []
    let operands = try AudioOperands.resolve(items, accepting: .queryTerms) { diagnostic in
      switch diagnostic {
      case .missing(let path):
        failures.append(AudioError(path: path, reason: .missingFile, message: "no such file or directory"))
      case .unreadable(let problem):
        invocation.console.warning("\(problem.path.escaped): \(problem.reason)")
      case .unreadableList, .listEntries:
        break  // playlists are files to gain
      }
    }
    let files = operands.tracks.map(\.path)
    let queryTerms = operands.queryTerms
    var inputs: [GainInput] = []
    var store: CatalogStore? = nil
    if !queryTerms.isEmpty {
      let (opened, entries) = try await CatalogPlaylist.entries(matching: queryTerms, invocation: invocation)
      store = opened
      inputs += entries.map { GainInput(path: $0.path, entry: $0) }
    }
    if !files.isEmpty {
      if store == nil { store = try? invocation.openCatalogueForReading() }
      for file in files {
        let entry = try? store?.entry(path: file.absolute)
        inputs.append(GainInput(path: file, entry: entry ?? nil))
      }
    }
    return (inputs, failures)
  }

  /// The table of `loudgain -O`: a header, each album's tracks, then its Album row.
  static func table(_ report: GainReport) -> String {
    var out =
      "File\tLoudness\tTrue_Peak\tTrue_Peak_dBTP\tReference\tWill_clip\tGain\tNew_Peak\tNew_Peak_dBTP\n"
    func row(_ name: String, loudness: Double, peak: Double, gain: Double) {
      let newPeak = peak * ReplayGain.linear(decibels: gain)
      out +=
        [
          name, fixed(loudness) + " LUFS", fixed(peak, 6), fixed(decibels(peak)) + " dBTP",
          fixed(ReplayGain.referenceLoudness) + " LUFS", newPeak > 1 ? "Y" : "N", fixed(gain) + " dB",
          fixed(newPeak, 6), fixed(decibels(newPeak)) + " dBTP",
        ].joined(separator: "\t") + "\n"
    }
    for album in report.albums {
      for index in album.tracks {
        let track = report.tracks[index]
        row(
          track.path.escaped, loudness: track.loudness, peak: track.truePeak, gain: track.gain.trackGain ?? 0)
      }
      row("Album", loudness: album.loudness, peak: album.truePeak, gain: album.gain)
    }
    return out
  }

  /// The report as JSON: `tracks` (path, album, loudness, true peak, the ReplayGain values,
  /// whether kept in the catalogue) and `albums`.
  static func jsonReport(_ report: GainReport, kept: Bool) -> JSONValue {
    func number(_ value: Double?) -> JSONValue {
      value.map { .double(($0 * 100).rounded() / 100) } ?? .null
    }
    func peak(_ value: Double?) -> JSONValue {
      value.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null
    }
    let tracks: [JSONValue] = report.albums.flatMap { album in
      album.tracks.map { index -> JSONValue in
        let track = report.tracks[index]
        return .object(
          JSONValue.pathFields(track.path) + [
            ("album", .string(album.name)), ("loudness", number(track.loudness)),
            ("true_peak", peak(track.truePeak)), ("track_gain", number(track.gain.trackGain)),
            ("track_peak", peak(track.gain.trackPeak)), ("album_gain", number(track.gain.albumGain)),
            ("album_peak", peak(track.gain.albumPeak)), ("stored", .bool(track.isCatalogued && kept)),
          ])
      }
    }
    let albums: [JSONValue] = report.albums.map { album in
      .object([
        ("name", .string(album.name)), ("loudness", number(album.loudness)),
        ("true_peak", peak(album.truePeak)),
        ("gain", number(album.gain)), ("tracks", .int(Int64(album.tracks.count))),
      ])
    }
    return .object([
      ("reference", number(ReplayGain.referenceLoudness)), ("tracks", .array(tracks)),
      ("albums", .array(albums)),
    ])
  }

  /// `value` with `decimals` decimals.
  static func fixed(_ value: Double, _ decimals: Int = 2) -> String {
    Quantities.formatFixed(value, decimals: decimals)
  }

  /// A linear level in dB (−∞ for 0).
  static func decibels(_ value: Double) -> Double { value > 0 ? 20 * log10(value) : -.infinity }
}
