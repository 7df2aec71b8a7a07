import ShelfAudio
import ShelfCatalog
import ShelfCore
import ShelfFacts
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf play`: Play audio files, folders or a catalogue query through ALSA.
enum PlayCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let device = TypedOption(
    "device", short: "D", value: "name", help: "The ALSA device ('shelf devices' lists them).",
    parser: .text, default: "default", completion: .devices(playback: true))
  static let volume = TypedOption(
    "volume", value: "0-100", help: "Software volume; 100 leaves samples untouched.",
    parser: .integer(in: 0...100), default: 100, completion: Completion.none)
  static let start = TypedOption<Double?>(
    "start", value: "time",
    help:
      "Start the first track at this time (90, 1:30, 2m); past its end, the track is skipped (exit 1).",
    parser: .duration(), completion: Completion.none)
  static let shuffle = Flag("shuffle", help: "Play the tracks in random order.")
  static let albumShuffle = Flag(
    "album-shuffle", help: "Play the albums in random order, each album's tracks in track order.")
  static let seed = TypedOption<Int?>(
    "seed", value: "N", help: "Seed of the shuffled order: the same seed gives the same order.",
    parser: .integer(in: 0...Int.max), completion: Completion.none)
  static let repeatMode = TypedOption(
    "repeat", value: "mode",
    help: "one: play the track again and again; all: start the playlist again after its end; off.",
    parser: .cases, default: RepeatMode.off)
  static let track = TypedOption<Int?>(
    "track", value: "N", help: "Start at track N of the playlist or CUE sheet (1 is the first).",
    parser: .integer(in: 1...Int.max), completion: Completion.none)
  static let resume = Flag(
    "resume", help: "Start where the last 'shelf play' of this file or playlist stopped.")
  static let replayGain = TypedOption(
    "replaygain", value: "mode",
    help:
      "Which ReplayGain applies: track, album, auto (the album's while an album plays in order, else the track's) or off.",
    parser: .cases, default: ReplayGain.Mode.auto)
  static let preamp = TypedOption(
    "preamp", value: "dB", help: "Added to the ReplayGain where one applies (-30 to 30).",
    parser: .decibels(in: -30...30), default: 0, completion: Completion.none)
  static let force = Flag("force", help: "Let -D file:PATH replace an existing file.")
  static let noInteractive = Flag("no-interactive", help: "Do not read keys or draw a status line.")
  static let json = Flag(
    "json", help: "Print one JSON object per event on stdout (implies --no-interactive).")

  static let command = Command(
    name: "play",
    abstract: "Play audio files, folders or a catalogue query through ALSA.",
    discussion: """
      Plays the items as one playlist, in order: files as given, folders recursively \
      (audio files by extension, sorted by name; hidden entries skipped; links followed only \
      where they stay inside the folder and never twice into one folder, so a link to a \
      parent cannot loop; FIFOs never opened), playlists (.m3u, .m3u8, .pls: relative \
      entries from the list's folder, lists in lists followed to a depth of 8, a list that \
      includes itself reported once, URLs and missing entries warned about and skipped, the \
      first 5 of a list one by one and the rest as a count; a \
      list not in UTF-8 is read in the encoding shelf detects), CUE sheets (.cue: each TRACK \
      from its INDEX 01 to the next track's, gapless, with the sheet's TITLE and PERFORMER; a \
      FILE that is missing is looked for under the other audio extensions), and the \
      catalogued audio matching the \
      remaining words, which are a query as in 'shelf ls' (kind:audio is added to the terms, \
      so kind:image plays nothing; a query that matches nothing exits 1; a term that names a \
      field, such as root:/path or path:'/x/*', is always a query term; another word with a \
      slash or an audio extension is a missing file, not a query). The decoder is chosen by the \
      file's content, not its name: libsndfile for what it decodes bit-exactly (WAV, RF64, \
      AIFF, FLAC, Ogg Vorbis, Opus, MP3, CAF, W64, AU), FFmpeg for the rest (M4A, M4B, M4R, \
      MP4 and 3GP with AAC, HE-AAC, ALAC, Opus or FLAC; CAF with AAC; AMR; APE; WavPack; \
      Musepack; WMA; AC-3 and E-AC-3; DTS; DSF; Speex; TTA) and for the sound of video files \
      (MOV, MP4, MKV, WebM, AVI). AAC's encoder delay and padding are trimmed (MP4 edit \
      list, iTunSMPB), and seeking lands on the exact sample. Consecutive tracks with the \
      same sample rate, channel count and sample width play without a gap. A file that \
      cannot be decoded is reported and skipped (a video without sound: 'no audio track'); \
      a video without sound found in a folder is only noted ('skipped: no audio track') and \
      is not a failure; the playlist goes on, and the exit status is 1 when some tracks failed (65 when the \
      only track could not be decoded). Entries of iPhone backups (a catalogued \
      BACKUP/DOMAIN/relativePath, or a query such as area:voicemail) play from their \
      content: each is read and decrypted into a private temporary file just before it \
      plays (a wrong backup password is found before the first track).

      On a terminal a status line shows the title and artist, the elapsed and total time, a \
      progress bar and the volume. Keys: space pauses and resumes, left and right arrows \
      seek 5 seconds back and forward, up and down arrows change the volume by 5, n and p \
      go to the next and previous track (p restarts the track after its first 3 seconds), \
      s turns shuffling on (the tracks after this one) and off (the list's order from this \
      track on), r cycles repeat through off, all and one, and q quits. Keys typed in a burst are all applied in order (n n n moves three tracks on), \
      and a seek, a volume change or a pause shows on the status line at once, also while \
      paused. The terminal is restored on exit, Ctrl-C and SIGTERM; a signal prints \
      'interrupted' and exits 130.

      The volume is a software gain with a squared curve (50 is -12 dB). At 100, the \
      default, the decoder's samples reach ALSA unchanged, in the codec's own sample type \
      (16 or 32-bit integers, or float for lossy codecs): use the mixer of the sound card \
      for loudness. \
      ALSA's 'default' device converts rate and format through the plug layer; on a \
      'hw:' device that takes neither the file's rate nor its channel count, shelf opens \
      the nearest ones it takes and converts with libswresample (as ffmpeg and mpv do).

      Without a sound card, ALSA's plugins play into files: -D file:/path/out.wav writes a \
      WAV file, -D file:/path/out.raw (any other extension) the raw samples; the path may \
      hold commas and quotes. ALSA's own spelling, -D "file:'/path',wav", works as well, and \
      -D null discards the sound as fast as it is decoded. The path is taken literally (ALSA's \
      %r-style expansions do not apply). An existing file is refused unless --force is given \
      (exit 73), and a file that is one of the items played is refused even with it; a new \
      file gets the mode the umask gives, and is removed again if nothing played into it. The \
      file is written anew each time the device is opened: when a playlist changes rate or \
      channel count, it holds the tracks after the last change.

      --shuffle plays the tracks in a random order, --album-shuffle the albums (album and \
      album artist when tagged, else the folder), each album's tracks in track order (disc, \
      then track number, as tagged; untagged tracks after them in the order given); --seed N \
      gives the same order again. --repeat all starts the playlist again after its \
      end (reshuffled), --repeat one plays a track again until n or p moves on. --track N \
      starts at the Nth track of the playlist.

      Where playing stops part way (q, Ctrl-C, SIGTERM, the device failing) is kept in \
      $XDG_STATE_HOME/shelf/resume (~/.local/state/shelf/resume), keyed by the absolute path \
      of the playlist file or folder when it was the only item, else of the track's file: \
      --resume starts there (a file changed since starts at 0; --start and --track win over \
      it). A position belongs to the file it was heard in: when a list or folder no longer \
      holds that file, it plays from the top. A track or a playlist played to \
      its end is forgotten. The catalogue is never written.

      ReplayGain: a track's gain comes from its tags (REPLAYGAIN_* Vorbis comments in FLAC, \
      Ogg and Opus, ID3v2 TXXX frames, APEv2, MP4 ----:com.apple.iTunes:replaygain_* atoms, \
      Opus R128_*_GAIN + 5 dB), else from what 'shelf gain' measured and the catalogue \
      keeps. --replaygain auto (the default) applies the album's gain while the tracks before \
      or after in the order are of the same album (an album played in order), the track's \
      otherwise; track and album force one (each falls back on the other when missing); off \
      applies none. --preamp adds dB to it. The samples are then scaled as floats, undithered, \
      by 10^(gain / 20), lowered so that the tagged peak stays at or under full scale. A \
      track without gain information stays bit-exact.

      With --json, one JSON object per line describes each event (start, end, error, skip, \
      pause, resume, seek, volume, shuffle, repeat, gain, finish), for scripts.

      While it plays, shelf is an MPRIS media player on the D-Bus session bus \
      (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus), named \
      org.mpris.MediaPlayer2.shelf (a second shelf playing at once takes \
      org.mpris.MediaPlayer2.shelf.instance<PID>), so that playerctl (playerctl -p shelf \
      pause, next, metadata, position 30) and a desktop's media keys drive it: Play, Pause, \
      PlayPause, Next, Previous (as p), Seek, SetPosition and Volume act as the keys do, Stop \
      and Quit as q (exit 0); Metadata holds the title (else the file name), artist, album, \
      length and a track id. Without a session bus, nothing is published and nothing is said.
      """,
    arguments: [
      ArgumentSpec(
        "item", help: "Audio files, folders or catalogue query terms (e.g. kind:audio artist:x).",
        repeating: true, completion: .filesOrQueryTerms)
    ],
    options: [
      device, volume, start, shuffle, albumShuffle, seed, repeatMode, track, resume, replayGain, preamp,
      force, noInteractive, json,
    ],
    examples: [
      Example("shelf play song.flac", "Play one file on the default device."),
      Example("shelf play --shuffle --repeat all Music/", "Play a folder in random order, forever."),
      Example("shelf play --album-shuffle --seed 7 kind:audio", "Albums in an order seed 7 gives again."),
      Example("shelf play --resume audiobook.m4b", "Go on where the last play of it stopped."),
      Example("shelf play --track 5 album.cue", "Play a CUE sheet from its fifth track."),
      Example("shelf play -D hw:1,0 --start 1:30 talk.mp3", "Start 90 seconds in, on the second card."),
      Example("shelf play -D file:/tmp/out.wav song.m4a", "Play into a WAV file (no sound card needed)."),
      Example("shelf play kind:audio artist:Bach", "Play the catalogued audio by an artist."),
      Example("shelf play --json --no-interactive a.wav | jq .event", "Follow events from a script."),
    ],
    manSections: AudioManual.playSections,
    acceptsNegatedTerms: true,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    var options = try PlayOptions(invocation.arguments, invocation: invocation)
    var playlist = try await PlaylistBuilder.build(options.items, invocation: invocation)
    let backupFiles = BackupEntryFiles(invocation)
    playlist.checkBackupEntries(through: backupFiles, console: invocation.console)
    if options.player.shuffle == .albums {
      playlist.tracks.readAlbumPositions(skipping: Operand.namesBackupEntry)
    }
    guard !playlist.tracks.isEmpty else { return nothingToPlay(playlist, console: invocation.console) }
    // A file device is checked and created once, before anything plays into it.
    let created = try options.sink?.claim(
      overwrite: options.overwrite, inputs: options.items + playlist.tracks.map(\.path))
    defer { options.sink?.release(created) }
    if let number = options.startsAt {
      guard let index = playlist.index(ofTrack: number) else {
        let count = playlist.list == nil ? playlist.tracks.count : playlist.listStarts.count
        throw invocation.usageError(
          "--track \(number): the playlist has \(count) track\(count == 1 ? "" : "s")")
      }
      options.player.startTrack = index
    }
    let resumePoints = ResumePoints(environment: invocation.environment)
    if options.startsWhereStopped, options.startsAt == nil,
      let (track, position) = resumePoints?.start(of: playlist.tracks, list: playlist.resumeKey)
    {
      options.player.startTrack = track
      if !options.startIsGiven { options.player.start = position }
    }
    let outcome = await play(
      playlist.tracks, silentSkippable: playlist.foundInFolders, options: options,
      console: invocation.console,
      names: backupFiles)
    do {
      try resumePoints?.record(outcome.summary, tracks: playlist.tracks, list: playlist.resumeKey)
    } catch {
      invocation.console.warning("cannot keep where playing stopped: \(error.description)")
    }
    return exitStatus(outcome, playlist: playlist, json: options.json, console: invocation.console)
  }

  /// The exit status when no track was found: 1 when a query matched nothing (as `ls`), else
  /// the failures' own.
  static func nothingToPlay(_ playlist: Playlist, console: Console) -> ExitStatus {
    if !playlist.failures.isEmpty { return exitStatus(failures: playlist.failures, played: 0) }
    if playlist.queryMatchedNothing { return .partialFailure }
    console.error("nothing to play: no audio files found")
    return .noInput
  }

  /// What playing produced: the player's summary and whether a signal stopped it.
  struct Outcome {
    var summary: PlayerSummary
    var interrupted: Bool
  }

  /// Plays `tracks`, with keys and a status line when both ends are a terminal, until the end,
  /// `q`, or Ctrl-C/SIGTERM/SIGHUP.
  static func play(
    _ tracks: [PlayerTrack], silentSkippable: Set<Int> = [], options: PlayOptions, console: Console,
    names: BackupEntryFiles
  ) async -> Outcome {
    let player = Player(tracks: tracks, options: options.player, silentSkippable: silentSkippable) {
      path throws(AudioError) in
      try names.openAudio(path)
    }
    // On the session bus for playerctl and media keys (MPRIS); without a bus, nothing.
    let mpris = MPRISService.start(player: player)
    let interactive = options.terminalUI && console.stdinIsTerminal && console.stderrIsTerminal
    let keys = interactive ? TerminalKeyInput() : nil
    // A device or pipe that goes away must fail a write, not kill the player.
    signal(SIGPIPE, SIG_IGN)
    let interrupted = Atomic<Int32>(0)
    let signals = StopSignals { number in
      interrupted.store(number, ordering: .sequentiallyConsistent)
      player.send(.quit)
    }
    keys?.readKeys { key in
      if let command = command(for: key) { player.send(command) }
    }
    let reporter = EventReporter(
      console: console, json: options.json, interactive: interactive, trackCount: tracks.count, names: names)
    let summary = await runPlayer(player, reporter: reporter, showingStatus: interactive)
    mpris?.stop()
    keys?.stop()
    keys?.restore()
    signals.cancel()
    console.clearStatus()
    reporter.finish(summary)
    return Outcome(summary: summary, interrupted: interrupted.load(ordering: .sequentiallyConsistent) != 0)
  }

  /// The player command a key stands for.
  static func command(for key: Key) -> PlayerCommand? {
    switch key {
    case .character(" "): .togglePause
    case .left: .seek(by: -5)
    case .right: .seek(by: 5)
    case .up: .changeVolume(by: 5)
    case .down: .changeVolume(by: -5)
    case .character("n"), .character("N"): .next
    case .character("p"), .character("P"): .previous
    case .character("q"), .character("Q"): .quit
    case .character("s"), .character("S"): .toggleShuffle
    case .character("r"), .character("R"): .cycleRepeat
    default: nil
    }
  }

  /// Runs the player on a thread of its own, redrawing the status line meanwhile.
  static func runPlayer(_ player: Player, reporter: EventReporter, showingStatus: Bool) async -> PlayerSummary
  {
    let done = Atomic<Bool>(false)
    async let statusLoop: Void = {
      guard showingStatus else { return }
      while !done.load(ordering: .sequentiallyConsistent) {
        reporter.showStatus(player.status)
        try? await Task.sleep(nanoseconds: 200_000_000)
      }
    }()
    let summary = await BlockingThread.run {
      let summary = player.run { event in
        reporter.report(event)
        // A seek, a volume change or a pause shows at once, not at the next redraw (and
        // while paused, nothing else would show a seek).
        if showingStatus && event.changesStatus { reporter.showStatus(player.status) }
      }
      done.store(true, ordering: .sequentiallyConsistent)
      return summary
    }
    await statusLoop
    return summary
  }

  /// Reports how playing ended and turns it into the exit status: the device's failure, 130
  /// after a signal, else the batch rule over every failed item.
  static func exitStatus(_ outcome: Outcome, playlist: Playlist, json: Bool, console: Console) -> ExitStatus {
    let summary = outcome.summary
    if summary.underruns > 0 && !json {
      console.warning("\(summary.underruns) underrun(s): the device ran dry and playback was recovered")
    }
    if let error = summary.deviceError {
      console.error(ErrorAdvice.message(for: error, command: "play"))
      return ExitStatus(failure: error.failure)
    }
    if outcome.interrupted {
      console.error("interrupted")
      return .interrupted
    }
    let status = exitStatus(
      failures: playlist.failures + summary.failures.map(\.failure), played: summary.played)
    if status == .success && (summary.startedPastEnd || playlist.queryMatchedNothing) {
      return .partialFailure
    }
    return status
  }

  /// 0 when everything played, 1 when some tracks failed, the most severe failure's code when
  /// nothing played (the rules of `BatchOutcome`).
  static func exitStatus(failures: [FailureKind], played: Int) -> ExitStatus {
    BatchOutcome.exitStatus(successes: played, failures: failures)
  }
}

/// The options of `shelf play`, read once from the command line.
struct PlayOptions {
  /// Files, folders and query terms, in order.
  var items: [RawPath]
  /// Device, volume, start, shuffle and repeat, as the player takes them.
  var player: PlayerOptions
  /// One JSON object per event on stdout.
  var json: Bool
  /// Keys and a status line are wanted (not `--json`, not `--no-interactive`); they also need
  /// a terminal.
  var terminalUI: Bool
  /// `--track N`: the 1-based track of the playlist to start with.
  var startsAt: Int?
  /// `--resume`: start where the last play of the first file or playlist stopped.
  var startsWhereStopped: Bool
  /// `--start` was given: it wins over a resume point.
  var startIsGiven: Bool
  /// The file a `-D file:PATH` device writes.
  var sink: ALSAFileSink?
  /// `--force`: the file device may replace an existing file.
  var overwrite: Bool

  init(_ arguments: ParsedArguments, invocation: Invocation) throws {
    if arguments[PlayCommand.shuffle] && arguments[PlayCommand.albumShuffle] {
      throw invocation.usageError("--shuffle and --album-shuffle cannot be used together")
    }
    player = PlayerOptions(
      device: arguments[PlayCommand.device],
      volume: arguments[PlayCommand.volume],
      start: arguments[PlayCommand.start] ?? 0,
      shuffle: arguments[PlayCommand.shuffle]
        ? .tracks : arguments[PlayCommand.albumShuffle] ? .albums : .off,
      seed: arguments[PlayCommand.seed].map { UInt64($0) },
      repeatMode: arguments[PlayCommand.repeatMode],
      replayGain: arguments[PlayCommand.replayGain],
      preamp: arguments[PlayCommand.preamp])
    startsAt = arguments[PlayCommand.track]
    startsWhereStopped = arguments[PlayCommand.resume]
    startIsGiven = arguments.isGiven(PlayCommand.start)
    sink = try ALSAFileSink.parse(player.device)
    overwrite = arguments[PlayCommand.force]
    json = arguments[PlayCommand.json]
    terminalUI = !json && !arguments[PlayCommand.noInteractive]
    items = arguments.positionals.map(\.path)
    guard !items.isEmpty else { throw invocation.usageError("missing files, folders or a query to play") }
  }
}

/// Prints the player's events: one-line messages on stderr, JSON lines on stdout, or the
/// in-place status line on a terminal.
final class EventReporter: Sendable {
  let console: Console
  let json: Bool
  let interactive: Bool
  let trackCount: Int

  /// Gives spooled backup entries their catalogued paths in every message.
  let names: BackupEntryFiles

  init(console: Console, json: Bool, interactive: Bool, trackCount: Int, names: BackupEntryFiles) {
    self.names = names
    self.console = console
    self.json = json
    self.interactive = interactive
    self.trackCount = trackCount
  }

  private func emit(_ fields: [(String, JSONValue)]) {
    console.write(JSONValue.object(fields).serialized() + "\n")
  }

  private static func seconds(_ value: Double) -> JSONValue {
    .double((value * 1000).rounded() / 1000)
  }

  func report(_ original: PlayerEvent) {
    let event = names.naming(original)
    switch event {
    case .started(let track, let path, let info):
      if json {
        var fields: [(String, JSONValue)] = [("event", .string("start")), ("track", .int(Int64(track + 1)))]
        fields += JSONValue.pathFields(path)
        if let title = info.tags.title { fields.append(("title", .string(title))) }
        if let artist = info.tags.artist { fields.append(("artist", .string(artist))) }
        if let album = info.tags.album { fields.append(("album", .string(album))) }
        fields += [
          ("duration", Self.seconds(info.duration)), ("sample_rate", .int(Int64(info.sampleRate))),
          ("channels", .int(Int64(info.channels))), ("format", .string(info.formatName)),
          ("encoding", .string(info.encodingName)),
        ]
        emit(fields)
      } else {
        let name = [info.tags.artist, info.tags.title].compactMap { $0 }.joined(separator: " - ")
        let shape =
          "\(info.encodingName), \(info.sampleRate) Hz, \(info.channels == 1 ? "mono" : info.channels == 2 ? "stereo" : "\(info.channels) channels")"
        console.note(
          "Playing \(path.escaped)\(name.isEmpty ? "" : " (\(name))"): \(shape), \(Quantities.formatDuration(info.duration))"
        )
      }
    case .finished(let track, let path):
      if json {
        emit([("event", .string("end")), ("track", .int(Int64(track + 1)))] + JSONValue.pathFields(path))
      }
    case .failed(let track, let path, let error):
      if json {
        emit(
          [("event", .string("error")), ("track", .int(Int64(track + 1)))] + JSONValue.pathFields(path) + [
            ("message", .string(error.description))
          ])
      }
      console.error(error.description)
    case .startPastEnd(let track, let path, let start, let duration):
      let message =
        "--start \(Quantities.formatDuration(start)) is past the end (\(Quantities.formatDuration(duration)))"
      if json {
        emit(
          [("event", .string("error")), ("track", .int(Int64(track + 1)))] + JSONValue.pathFields(path) + [
            ("message", .string("\(path.escaped): \(message)"))
          ])
      }
      console.error("\(path.escaped): \(message)")
    case .skipped(let track, let path, let reason):
      if json {
        emit(
          [("event", .string("skip")), ("track", .int(Int64(track + 1)))] + JSONValue.pathFields(path) + [
            ("reason", .string(reason.message))
          ])
      } else {
        console.note("\(path.escaped): skipped: \(reason.message) (a video without sound)")
      }
    case .paused(let position):
      if json { emit([("event", .string("pause")), ("position", Self.seconds(position))]) }
    case .resumed(let position):
      if json { emit([("event", .string("resume")), ("position", Self.seconds(position))]) }
    case .seeked(let position):
      if json { emit([("event", .string("seek")), ("position", Self.seconds(position))]) }
    case .volume(let volume):
      if json { emit([("event", .string("volume")), ("volume", .int(Int64(volume)))]) }
    case .shuffle(let mode):
      if json { emit([("event", .string("shuffle")), ("shuffle", .string(mode.rawValue))]) }
    case .repeatMode(let mode):
      if json { emit([("event", .string("repeat")), ("repeat", .string(mode.rawValue))]) }
    case .gain(let track, let mode, let decibels, let factor):
      if json {
        emit([
          ("event", .string("gain")), ("track", .int(Int64(track + 1))), ("mode", .string(mode.rawValue)),
          ("gain", .double((decibels * 100).rounded() / 100)), ("factor", .double(factor)),
        ])
      }
    }
  }

  func finish(_ summary: PlayerSummary) {
    guard json else { return }
    var fields: [(String, JSONValue)] = [
      ("event", .string("finish")), ("played", .int(Int64(summary.played))),
      ("failed", .int(Int64(summary.failures.count))), ("quit", .bool(summary.quit)),
      ("underruns", .int(Int64(summary.underruns))),
    ]
    if let error = summary.deviceError { fields.append(("error", .string(error.description))) }
    emit(fields)
  }

  /// Draws `> 2/5 Artist - Title  1:02 / 3:45 [#####-----] vol 80% shuffle repeat all` in
  /// place, fitted to the terminal's width (`columns`, the console's by default).
  func showStatus(_ status: PlayerStatus) {
    guard interactive,
      let line = Self.statusLine(status, trackCount: trackCount, names: names, columns: console.width)
    else { return }
    console.status(line)
  }

  /// The status line within `columns - 1` columns. The track number, the times and the
  /// shuffle and repeat state always stay; the progress bar gives way first, then the name is
  /// cut (to 12 columns), then the volume, then the name again.
  static func statusLine(
    _ status: PlayerStatus, trackCount: Int, names: BackupEntryFiles, columns: Int
  ) -> String? {
    guard let number = status.trackNumber else { return nil }
    let name =
      [status.artist, status.title].compactMap { $0 }.joined(separator: " - ").nonEmpty
      ?? status.path.map { names.name(of: $0) }?.lastComponent.escaped ?? ""
    let elapsed = Quantities.formatDuration(status.position)
    let total = status.duration > 0 ? Quantities.formatDuration(status.duration) : "-:--"
    var bar = ""
    if status.duration > 0 {
      let width = 20
      let filled = min(width, max(0, Int(status.position / status.duration * Double(width))))
      bar = " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
    let symbol = status.paused ? "||" : ">"
    let order = [
      status.shuffle == .off ? nil : status.shuffle == .tracks ? "shuffle" : "album shuffle",
      status.repeatMode == .off ? nil : "repeat \(status.repeatMode.rawValue)",
    ].compactMap { $0 }.map { " " + $0 }.joined()
    let head = "\(symbol) \(number + 1)/\(trackCount) "
    let times = "  \(elapsed) / \(total)"
    var volume = " vol \(status.volume)%"
    let room = max(1, columns - 1)
    func line(_ name: String) -> String { head + name + times + bar + volume + order }
    if TextLayout.displayWidth(line(name)) <= room { return line(name) }
    bar = ""
    let fixed = TextLayout.displayWidth(line(""))
    if fixed + min(12, TextLayout.displayWidth(name)) > room { volume = "" }
    let nameRoom = max(0, room - TextLayout.displayWidth(line("")))
    return line(nameRoom == 0 ? "" : TextLayout.truncateEnd(name, to: nameRoom))
  }
}

extension String {
  fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
