import ShelfAudio
import ShelfCatalog
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf record`: Record audio from an ALSA device into a file.
enum RecordCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let device = TypedOption(
    "device", short: "D", value: "name", help: "The ALSA capture device ('shelf devices' lists them).",
    parser: .text, default: "default", completion: .devices(playback: false))
  /// Nil when not given: the format's own rate, `RecordingRate.preferred` where it holds it.
  static let rate = TypedOption<Int?>(
    "rate", short: "r", value: "hz",
    help: "Sample rate in Hz (Opus, which cannot hold \(RecordingRate.preferred): 48000).",
    parser: .integer(in: 1000...768_000), shownDefault: RecordingRate.preferred, completion: Completion.none)
  static let channels = TypedOption(
    "channels", short: "c", value: "n", help: "Number of channels.", parser: .integer(in: 1...64), default: 2,
    completion: Completion.none)
  static let sampleFormat = TypedOption(
    "sample-format", value: "format", help: "Sample format asked of ALSA and stored when possible.",
    parser: .cases, default: SampleFormat.s16)
  static let format = TypedOption<AudioContainer?>(
    "format", short: "f", value: "type", help: "File format (default: from OUTPUT's extension).",
    parser: .cases)
  static let codec = TypedOption<RecordingCodec?>(
    "codec", value: "codec",
    help: "The codec where the format offers a choice (m4a: aac, alac; caf: pcm, alac).",
    parser: .cases)
  static let duration = TypedOption<Double?>(
    "duration", short: "d", value: "time", help: "Stop after this long (90, 1:30, 1h30m).",
    parser: .duration(aboveZero: true), completion: Completion.none)
  static let maxSize = TypedOption<Int64?>(
    "max-size", value: "size",
    help: "Stop before the file passes this size (10M, 2G); compressed formats stop once they reach it.",
    parser: .byteSize(), completion: Completion.none)
  static let force = Flag("force", help: "Overwrite an existing file.")
  static let noInteractive = Flag("no-interactive", help: "Do not draw the status line.")

  static let command = Command(
    name: "record",
    abstract: "Record audio from an ALSA device into a file.",
    discussion: """
      Records until Ctrl-C, SIGTERM or SIGHUP, --duration or --max-size, whichever comes \
      first, then finalises the file. None of these endings loses a sample, and each exits \
      with status 0. The header is kept current as the recording goes, so that even after \
      kill -9 or a power loss the file opens with everything written so far. A full disk \
      stops the recording with an error (exit status 74) and a valid file holding everything \
      written before. Overruns (the device delivered faster than shelf wrote) are recovered \
      and counted in the summary.

      The format comes from OUTPUT's extension (wav, flac, ogg, opus, aiff, caf, w64, au, \
      mp3, m4a) unless --format names it. WAV is written as RF64 when it would pass 4 GiB and \
      as plain WAV otherwise. M4A holds AAC-LC (as Voice Memos records, about 64 kbit/s per \
      channel) or, with --codec alac, Apple Lossless; it is written as fragmented MP4, its \
      moov first and a fragment about every second, so that after kill -9 (even in the \
      first second) or a full disk it opens and plays with every fragment written (up to \
      the last second or so). When recording ends normally, an AAC recording is rewritten \
      as a plain MP4 whose edit list trims the encoder delay, so that it decodes to exactly \
      the samples captured. CAF holds PCM or, with --codec alac, \
      Apple Lossless (whose packet table is written when the recording ends: only PCM CAF \
      survives kill -9). The sample format is what is asked of ALSA and what is stored when \
      the container allows: FLAC and ALAC in M4A store at most 24 bits, the lossy formats \
      store none. Where the format cannot hold 44100 Hz, the default rate is the next one it \
      holds, with a note: Opus records at 48000 Hz. A --rate the format cannot hold is a usage \
      error (exit 64) naming the rates it holds: Opus 8000, 12000, 16000, 24000 or 48000 Hz; \
      MP3 the MPEG rates from 8000 to 48000 Hz; AAC in M4A the MPEG-4 rates from 7350 to \
      96000 Hz; Ogg Vorbis at most 200000 Hz; FLAC at most 655350 Hz.

      On a terminal a status line shows the elapsed time, the size and a peak meter per \
      channel in dBFS, with CLIP when a sample reached full scale. An existing OUTPUT is \
      refused unless --force is given.
      """,
    arguments: [ArgumentSpec("output", help: "The file to write.")],
    options: [device, rate, channels, sampleFormat, format, codec, duration, maxSize, force, noInteractive],
    examples: [
      Example("shelf record memo.wav", "Record CD-quality stereo until Ctrl-C."),
      Example("shelf record -d 30 -c 1 -r 48000 take.flac", "Record 30 seconds of 48 kHz mono FLAC."),
      Example("shelf record -c 1 memo.m4a", "Record a mono AAC voice memo, as Voice Memos does."),
      Example(
        "shelf record --sample-format s24 -D hw:1,0 --max-size 2G concert.wav",
        "Record 24-bit from the second card."),
    ],
    manSections: AudioManual.recordSections,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let arguments = invocation.arguments
    let console = invocation.console
    guard let output = arguments.positionals.first?.path else {
      throw invocation.usageError("missing the output file")
    }
    guard arguments.positionals.count == 1 else {
      throw invocation.usageError("record writes one file; got \(arguments.positionals.count)")
    }
    let container: AudioContainer
    if let named = arguments[RecordCommand.format] {
      container = named
    } else if let fromName = AudioContainer(extensionOf: output) {
      container = fromName
    } else {
      throw invocation.usageError(
        "cannot tell the file format from '\(output.escaped)': add an extension such as .wav or use --format")
    }
    // Read before recording: a bad SHELF_LOCK_WAIT is refused now, not after the take.
    let lockWait = try invocation.lockWait()
    var request = RecordingRequest(output: output, container: container)
    if let codec = arguments[RecordCommand.codec] {
      let offered = container.recordingCodecs
      guard !offered.isEmpty else {
        throw invocation.usageError(
          "\(container.rawValue.uppercased()) has a codec of its own; --codec applies to m4a and caf")
      }
      guard offered.contains(codec) else {
        throw arguments.invalid(
          RecordCommand.codec, expected: offered.map(\.rawValue).joined(separator: " or "))
      }
      request.codec = codec
    }
    request.device = arguments[RecordCommand.device]
    let requestedRate = arguments[RecordCommand.rate]
    request.sampleRate = try RecordingRate.choose(
      requestedRate, container: container, codec: request.codec, output: output)
    if requestedRate == nil && request.sampleRate != RecordingRate.preferred {
      console.note(
        "\(container.displayName(codec: request.codec)) cannot hold \(RecordingRate.preferred) Hz: recording at \(request.sampleRate) Hz"
      )
    }
    request.channels = arguments[RecordCommand.channels]
    request.sampleFormat = arguments[RecordCommand.sampleFormat]
    request.maxDuration = arguments[RecordCommand.duration]
    request.maxBytes = arguments[RecordCommand.maxSize]
    request.overwrite = arguments[RecordCommand.force]

    let recorder = Recorder(request)
    let stoppedBy = Atomic<Int32>(0)
    // A file size limit (ulimit -f) must fail the write, not kill the recorder.
    signal(SIGXFSZ, SIG_IGN)
    let signals = StopSignals { number in
      stoppedBy.store(number, ordering: .sequentiallyConsistent)
      recorder.stop()
    }
    defer { signals.cancel() }
    let interactive = !arguments[RecordCommand.noInteractive] && console.stderrIsTerminal
    let channels = request.channels
    let result: Result<RecordingSummary, AudioError> = await BlockingThread.run {
      do throws(AudioError) {
        return .success(
          try recorder.run { progress in
            guard interactive else { return }
            console.status(statusLine(progress, channels: channels))
          })
      } catch {
        return .failure(error)
      }
    }
    console.clearStatus()
    let summary = try result.get()
    let size = Quantities.formatByteSize(summary.bytes)
    let length = Quantities.formatFixed(summary.seconds, decimals: 2)
    var line =
      "Recorded \(length) s (\(summary.frames) frames, \(summary.sampleRate) Hz, \(summary.channels) ch, \(summary.storedFormat.rawValue)) to \(output.escaped), \(size)"
    if summary.overruns > 0 { line += "; \(summary.overruns) overrun(s) recovered (samples were lost)" }
    console.note(line)
    catalogue(output, lockWait: lockWait, invocation: invocation)
    switch summary.stop {
    case .writeFailed(let error), .deviceFailed(let error):
      console.error(error.description)
      console.note("\(output.escaped) is complete and valid up to the failure (\(length) s)")
      return ExitStatus(failure: error.failure)
    case .requested, .duration, .size:
      return .success
    }
  }

  /// Adds the finished recording to the catalogue when it lies inside a catalogued root. A
  /// catalogue problem is a warning: the recording itself is done.
  static func catalogue(_ output: RawPath, lockWait: Double, invocation: Invocation) {
    if case .file(let database) = invocation.globals.catalogue, (try? FileStatus.stat(database)) == nil {
      return
    }
    do {
      let store = try invocation.openCatalogueForWriting(lockWait: lockWait, create: false)
      let entry = try Indexer(store: store, options: IndexOptions()).indexFile(output)
      if entry != nil { invocation.console.note("Catalogued \(output.escaped)") }
    } catch {
      invocation.console.warning("the recording was not catalogued: \(error)")
    }
  }

  /// `● REC 0:12  1.2 MiB  L -12.3 R -11.0 dBFS  CLIP`.
  static func statusLine(_ progress: RecordingProgress, channels: Int) -> String {
    let names = channels == 2 ? ["L", "R"] : (1...max(1, channels)).map { "\($0)" }
    var meters: [String] = []
    for (index, peak) in progress.peakDBFS.enumerated() where index < 8 {
      let value = peak.isFinite ? Quantities.formatFixed(max(-99.9, peak), decimals: 1) : "-inf"
      meters.append("\(names[index]) \(value)")
    }
    var line =
      "REC \(Quantities.formatDuration(progress.seconds))  \(Quantities.formatByteSize(progress.bytes))  \(meters.joined(separator: " ")) dBFS"
    if progress.clipped { line += "  CLIP" }
    if progress.overruns > 0 { line += "  overruns \(progress.overruns)" }
    return line
  }
}
