import ShelfCatalog
import ShelfCore
import ShelfPNG
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf crush FILE|DIR…`: lossless PNG optimization, in place or into a folder. Parsing and
/// presentation only: `PNGFileCrusher` plans, crushes and writes.
enum CrushCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let outDir = Option(
    "out-dir", short: "o", value: "dir",
    help: "Write results into <dir> (created if missing), keeping names and relative paths.",
    completion: .directory)
  static let inPlace = Flag("in-place", help: "Replace each file that can be made smaller.")
  static let force = Flag("force", help: "With --out-dir, replace files that already exist in <dir>.")
  static let recursive = Flag(
    "recursive", short: "r", help: "Recurse into folders, crushing every *.png file.")
  static let level = TypedOption(
    "level", value: "level",
    help: "Effort: 0 is fastest, 6 tries every filter, max adds brute force and zopfli.",
    parser: .choices(PNGOptimizationLevel.allCases, named: \.description), default: .standard)
  static let strip = TypedOption(
    "strip", value: "mode",
    help: "Remove chunks: none keeps all still valid, safe keeps colour/gamma/pHYs/sBIT, all none.",
    parser: .cases, default: PNGStripMode.none)
  static let alpha = Flag(
    "alpha", help: "Clean the colour of fully transparent pixels (changes invisible RGB).")
  static let jobs = TypedOption<Int?>(
    "jobs", short: "j", value: "n",
    help: "Files and trials processed in parallel (default: all cores).", parser: .integer(in: 1...256),
    completion: Completion.none)
  static let dryRun = Flag("dry-run", short: "n", help: "Report what would be saved; write nothing.")
  static let json = Flag("json", help: "Print one JSON object with every file's result and a summary.")
  static let preserve = Flag(
    "preserve", short: "p", help: "Keep each input's permissions and modification time.")
  static let iphone = Flag("iphone", help: "Write iPhone-optimized CgBI files, as Xcode's pngcrush -iphone.")
  static let revertIphone = Flag(
    "revert-iphone", help: "Convert iPhone-optimized CgBI files to standard PNGs.")
  static let maxPixels = TypedOption(
    "max-pixels", value: "n", help: "Refuse images with more than <n> pixels before decoding.",
    parser: .integer(in: 1...(1 << 40)), default: PNGDecoder.defaultPixelLimit, completion: Completion.none)

  static let command = Command(
    name: "crush",
    abstract: "Optimize PNG files losslessly.",
    discussion: """
      Each PNG is decoded with libpng and re-encoded as small as it can be without changing a \
      pixel: 16-bit samples become 8-bit when every sample allows it, colour becomes gray, \
      alpha becomes a tRNS colour key or disappears, true colour becomes a palette of up to \
      256 entries (sorted and packed to 1, 2 or 4 bits), interlacing is removed; row filter \
      strategies are tried with fast trial compressions and the winner is compressed with \
      libdeflate (zopfli at --level max), or coded by zlib as literals only where that is \
      smaller (noisy photographs). A file that cannot be made smaller is left as it is.

      With --strip none (the default) every ancillary chunk is kept in place: bKGD and sBIT \
      are rewritten for the new colour type; hIST, iDOT and an sBIT that says every bit is \
      significant (it tells a decoder nothing) are dropped. Chunks that libpng rejects \
      (empty or malformed, a second copy of a chunk allowed once, out of place) are dropped \
      with a warning naming each, so that strict decoders read the output.

      Every output is decoded again and compared with the input, pixel by pixel (16-bit \
      samples included), before anything is written; a mismatch keeps the original and is \
      reported as an error. Files are written to a temporary file in the same folder, \
      flushed to disk, then renamed over the target, so an interrupted run never leaves a \
      truncated or empty file. With --in-place, a file replaced or changed while it was \
      being crushed (its device, inode, size or times differ from when it was read) is \
      the user's newer work: the result is dropped, the file left as it is, with a warning \
      (exit 1).

      Give -o/--out-dir or --in-place (or --dry-run to only report). With --out-dir, a file \
      named on the command line becomes DIR/NAME and files found under a named folder (with \
      -r) keep their path relative to it; every input gets an output, a plain copy when it \
      cannot be made smaller. A file that already exists there is never replaced without \
      --force: that input is refused (exit 73 when every input was) and the file left as it \
      was. Every folder below DIR is opened from DIR's own descriptor, never through a \
      symbolic link: nothing is written outside DIR, even if a folder in it is swapped for a \
      link during the run. Temporary files left in DIR by a killed run are removed by the \
      next. A bare number for -o that is not an existing folder (-o 4: oxipng's -o is its \
      level) is a usage error that suggests --level; write -o ./4 to make a folder of that \
      name.

      A catalogued path inside an iPhone backup (BACKUP/DOMAIN/relativePath) is read from the \
      backup, decrypted when need be; it can only be crushed with --out-dir (the backup is \
      never written).

      iPhone-optimized PNGs (CgBI, as Xcode's pngcrush -iphone writes them) stay CgBI and are \
      recompressed; --revert-iphone turns them into standard PNGs and --iphone writes CgBI \
      (8-bit premultiplied BGRA, raw deflate) from any image: 16-bit samples are rounded as \
      libpng rounds them, with a warning when that loses detail. Animated PNGs keep every \
      frame exactly: each frame's image data is recompressed with its filtered bytes \
      unchanged, and they stay standard APNG even with --iphone (a file is left as it is \
      when this wins nothing).

      Bad input (corrupt, truncated, bad CRC, huge dimensions, not a PNG) gives a one-line \
      error naming the file; the batch goes on and the original is never touched. The summary \
      says how many files failed and why; the exit status is 1 when some inputs failed and, \
      when every input failed, that failure's (65 for bad data; when they differ, the most \
      severe: 77 > 74 > 73 > 66 > 65). A progress bar is drawn on a terminal, unless \
      NO_COLOR is set: the level, the files done and the file being crushed, from the moment \
      work on it starts.
      """,
    arguments: [
      ArgumentSpec("file", help: "PNG files, or folders to crush with -r.", repeating: true)
    ],
    options: [
      outDir, inPlace, force, recursive, level, strip, alpha, jobs, dryRun, json, preserve, iphone,
      revertIphone, maxPixels, ShowOptions.maxDecodedBytesOption,
    ],
    examples: [
      Example("shelf crush -o out/ icon.png", "Write a crushed copy to out/icon.png."),
      Example("shelf crush -r --in-place Assets/", "Crush every PNG under Assets/ in place."),
      Example("shelf crush --level max --strip safe -o out/ *.png", "Smallest output, dropping metadata."),
      Example("shelf crush --iphone -o ios/ AppIcon.png", "Write the CgBI form Xcode would ship."),
      Example("shelf crush --revert-iphone -o plain/ Payload/App.app/*.png", "Make iPhone PNGs readable."),
      Example("shelf crush -n -r --json Assets/", "Report possible savings as JSON, write nothing."),
    ],
    manSections: PNGManual.crushSections,
    run: run)

  /// The options of one `shelf crush`, read once from the command line.
  struct CrushOptions {
    var inputs: [RawPath]
    var recursive: Bool
    var destination: PNGCrushDestination
    var dryRun: Bool
    var json: Bool
    var verbose: Bool
    var preserve: Bool
    var jobs: Int
    var optimization: PNGOptimizationOptions
    /// `--force`: replace files that already exist in the output folder.
    var force: Bool

    init(_ invocation: Invocation) throws(UsageError) {
      let arguments = invocation.arguments
      let outDir = arguments.path(CrushCommand.outDir)
      let inPlace = arguments[CrushCommand.inPlace]
      dryRun = arguments[CrushCommand.dryRun]
      if outDir != nil && inPlace {
        throw invocation.usageError("--out-dir and --in-place cannot be used together")
      }
      if outDir == nil && !inPlace && !dryRun {
        throw invocation.usageError("say where results go: -o/--out-dir <dir>, --in-place or --dry-run")
      }
      if let outDir, let text = outDir.utf8String, !text.isEmpty,
        text.allSatisfy({ $0.isASCII && $0.isNumber }),
        (try? FileStatus.stat(outDir))?.type != .directory
      {
        throw invocation.usageError(
          "-o \(text) names an output folder that does not exist; did you mean --level \(text)? (write -o ./\(text) for a new folder)"
        )
      }
      if arguments[CrushCommand.iphone] && arguments[CrushCommand.revertIphone] {
        throw invocation.usageError("--iphone and --revert-iphone cannot be used together")
      }
      inputs = arguments.positionals.map(\.path)
      guard !inputs.isEmpty else { throw invocation.usageError("no input files") }
      destination = outDir.map { .folder($0) } ?? (inPlace ? .inPlace : .nowhere)
      recursive = arguments[CrushCommand.recursive]
      json = arguments[CrushCommand.json]
      verbose = invocation.globals.verbose
      preserve = arguments[CrushCommand.preserve]
      force = arguments[CrushCommand.force]
      jobs = arguments[CrushCommand.jobs] ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
      optimization = PNGOptimizationOptions(
        level: arguments[CrushCommand.level],
        strip: arguments[CrushCommand.strip],
        cleanTransparentColor: arguments[CrushCommand.alpha],
        cgbi: arguments[CrushCommand.iphone]
          ? .convertToCgBI : arguments[CrushCommand.revertIphone] ? .revertToStandard : .keep,
        pixelLimit: arguments[CrushCommand.maxPixels],
        maxDecodedBytes: Int(arguments[ShowOptions.maxDecodedBytesOption]))
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try CrushOptions(invocation)
    let console = invocation.console
    var outcome = BatchOutcome()
    let backupFiles = BackupEntryFiles(invocation)
    let inputs = collectInputs(options, backupFiles: backupFiles, outcome: &outcome, console: console)
    let crusher = PNGFileCrusher(
      settings: PNGCrushSettings(
        destination: options.destination, dryRun: options.dryRun, preserve: options.preserve,
        optimization: options.optimization, width: options.jobs, replaceExisting: options.force,
        writerBeforeRename: testPauseBeforeRename(invocation.environment)))
    let plan = crusher.plan(inputs)
    for refused in plan.refused { outcome.failed(refused, console: console) }

    // A stop removes the temporary files being written; every target keeps its old content.
    let signals = StopSignals { _ in
      AtomicFileWriter.removeTemporaryFiles()
      console.error("interrupted")
      _exit(130)
    }
    defer { signals.cancel() }
    let started = MonotonicClock.seconds()
    let progress = CrushProgress(
      total: plan.jobs.count, level: options.optimization.level, console: console, names: backupFiles)
    let reports = await crusher.run(plan.jobs, finished: progress.finished, started: progress.started)
      .map(backupFiles.naming)
    console.clearStatus()
    let elapsed = MonotonicClock.seconds() - started

    let totals = tally(reports, outcome: &outcome, options: options, console: console)
    if options.json {
      console.write(json(reports, totals, elapsed: elapsed, options: options, console: console))
    } else {
      console.write(summary(totals, elapsed: elapsed, dryRun: options.dryRun) + "\n")
    }
    return outcome.exitStatus
  }

  /// The files named on the command line, and with -r the PNGs (by extension) under the
  /// folders named (`FolderContents.png`); inputs that cannot be used are reported.
  static func collectInputs(
    _ options: CrushOptions, backupFiles: BackupEntryFiles, outcome: inout BatchOutcome, console: Console
  ) -> [PNGCrushInput] {
    var inputs: [PNGCrushInput] = []
    func missing(_ path: RawPath) {
      outcome.failed(
        FileError(path: path, reason: "no such file or directory", failure: .missingInput), console: console)
    }
    for path in options.inputs {
      switch Operand(path, accepting: .backupEntries) {
      case .backupEntry:
        // A backup entry, read (decrypted) from the backup; the backup itself is never written.
        guard case .folder = options.destination else {
          outcome.failed(
            FileError(
              path: path, reason: "is a file inside an iPhone backup, which is never written (use -o DIR)",
              failure: .cannotCreate), console: console)
          continue
        }
        do {
          guard let readable = try backupFiles.readablePath(path) else {
            missing(path)
            continue
          }
          inputs.append(PNGCrushInput(path: readable, outputName: path.lastComponent))
        } catch {
          outcome.failed(AdvisedBackupError.advising(error), console: console)
        }
      case .folder:
        guard options.recursive else {
          outcome.failed(
            FileError(
              path: path, reason: "is a directory (use -r to crush the PNGs inside)", failure: .missingInput),
            console: console)
          continue
        }
        do {
          let found = try FolderContents.png(in: path)
          for problem in found.unreadable {
            outcome.failed(
              FileError(path: problem.path, reason: problem.reason, failure: .missingInput), console: console)
          }
          inputs += found.names.map { PNGCrushInput(path: path.appending($0), outputName: $0) }
        } catch {
          outcome.failed(error, console: console)
        }
      case .missing:
        missing(path)
      case .file, .playlist, .queryTerm, .standardInput:
        inputs.append(PNGCrushInput(path: path))
      }
    }
    return inputs
  }

  /// The progress line of a batch on a terminal: the level, how many files are done, and a
  /// file being crushed, shown as soon as work on it starts (at --level max one big file can
  /// take many seconds), else the last one done.
  final class CrushProgress: Sendable {
    let total: Int
    let verb: String
    let console: Console
    let names: BackupEntryFiles
    /// The files being crushed, in the order they started, and how many are done.
    private let state = Mutex<(working: [RawPath], done: Int)>(([], 0))

    init(total: Int, level: PNGOptimizationLevel, console: Console, names: BackupEntryFiles) {
      self.total = total
      verb = "crush level \(level)"
      self.console = console
      self.names = names
    }

    func started(_ job: PNGCrushJob) {
      let name = names.name(of: job.input)
      let done = state.withLock { state in
        state.working.append(name)
        return state.done
      }
      console.progressBar(verb, finished: done, of: total, current: name)
    }

    func finished(_ report: PNGCrushReport, _ done: Int) {
      let name = names.name(of: report.job.input)
      let current = state.withLock { state in
        state.working.removeAll { $0 == name }
        state.done = done
        return state.working.last ?? name
      }
      console.progressBar(verb, finished: done, of: total, current: current)
    }
  }

  /// What a batch did, in numbers.
  struct Totals {
    var before = 0
    var after = 0
    var crushed = 0
    var unchanged = 0
    var failures: [FailureKind] = []
    /// Files replaced or changed while being crushed: left as they are.
    var changed = 0
    var inputs: Int { crushed + unchanged + changed + failures.count }
  }

  /// Counts the reports, reports each failure and warning (and with -v each file) and records them in
  /// `outcome`, which already holds the inputs that failed before a job was made.
  static func tally(
    _ reports: [PNGCrushReport], outcome: inout BatchOutcome, options: CrushOptions, console: Console
  ) -> Totals {
    var totals = Totals()
    for report in reports {
      if let error = report.error as? FileError, error.isChangedSinceRead {
        outcome.changed(error.description, console: console)
        totals.changed += 1
        continue
      }
      if let error = report.error {
        outcome.failed(error, console: console)
        continue
      }
      outcome.succeeded()
      for note in report.notes { console.warning("\(report.job.input.escaped): \(note)") }
      totals.before += report.sizeBefore
      totals.after += report.sizeAfter
      if report.changed { totals.crushed += 1 } else { totals.unchanged += 1 }
      if options.verbose && !options.json { console.write(line(for: report) + "\n") }
    }
    totals.failures = outcome.failures
    return totals
  }

  /// The one-line summary: `Crushed 3 of 4 files: 10.0 KiB -> 8.0 KiB, saved 20.0% (2.0 KiB)
  /// in 0.12 s; 1 already optimal`, or `Crushed 0 of 1 file; 1 failed (bad input)`.
  static func summary(_ totals: Totals, elapsed: Double, dryRun: Bool) -> String {
    let inputs = totals.inputs
    var text =
      (dryRun ? "Would crush" : "Crushed") + " \(totals.crushed) of \(inputs) file\(inputs == 1 ? "" : "s")"
    if totals.crushed + totals.unchanged > 0 {
      text +=
        ": \(Quantities.formatByteSize(Int64(totals.before))) -> \(Quantities.formatByteSize(Int64(totals.after)))"
      text += ", " + change(from: totals.before, to: totals.after)
      text += " in \(Quantities.formatFixed(elapsed, decimals: 2)) s"
    }
    if totals.unchanged > 0 { text += "; \(totals.unchanged) already optimal" }
    if totals.changed > 0 { text += "; \(totals.changed) changed meanwhile, not replaced" }
    if !totals.failures.isEmpty { text += "; \(totals.failures.count) failed (\(why(totals.failures)))" }
    return text
  }

  /// `saved 20.0% (2.0 KiB)`, or `grew 1.9 % (73 B)` when the outputs are bigger (conversions).
  static func change(from before: Int, to after: Int) -> String {
    let difference = abs(before - after)
    let percent = before > 0 ? Double(difference) * 100 / Double(before) : 0
    let size = Quantities.formatByteSize(Int64(difference))
    if after > before { return "grew \(Quantities.formatFixed(percent, decimals: 1)) % (\(size))" }
    return "saved \(Quantities.formatFixed(percent, decimals: 1))% (\(size))"
  }

  /// Why inputs failed, by kind, most frequent first: `bad input`, `2 bad input, 1 missing`.
  static func why(_ failures: [FailureKind]) -> String {
    var counts: [(FailureKind, Int)] = []
    for failure in failures {
      if let index = counts.firstIndex(where: { $0.0 == failure }) {
        counts[index].1 += 1
      } else {
        counts.append((failure, 1))
      }
    }
    guard counts.count > 1 else { return name(of: failures[0]) }
    return counts.sorted { $0.1 > $1.1 }.map { "\($0.1) \(name(of: $0.0))" }.joined(separator: ", ")
  }

  static func name(of failure: FailureKind) -> String {
    switch failure {
    case .badInput: return "bad input"
    case .missingInput: return "missing or unreadable"
    case .cannotCreate: return "cannot create output"
    case .io: return "I/O error"
    case .busy: return "busy"
    case .interrupted: return "interrupted"
    case .usage: return "usage"
    case .noPermission: return "no permission"
    case .unavailable: return "unavailable"
    }
  }

  /// One file's line for -v.
  static func line(for report: PNGCrushReport) -> String {
    let path = report.job.input.escaped
    if report.changed {
      let percent =
        report.sizeBefore > 0
        ? Double(report.sizeAfter - report.sizeBefore) * 100 / Double(report.sizeBefore) : 0
      let sign = percent > 0 ? "+" : ""
      return "\(path): \(report.sizeBefore) -> \(report.sizeAfter) bytes "
        + "(\(sign)\(Quantities.formatFixed(percent, decimals: 1))%), \(report.summary)"
    }
    return "\(path): \(report.sizeBefore) bytes, \(keptReason(report))"
  }

  /// Why a file was kept: `grew 1.9 % (73 B); kept the original` when the best encoding
  /// would have been bigger, else the optimizer's reason.
  static func keptReason(_ report: PNGCrushReport) -> String {
    guard let smallest = report.smallestEncoding, smallest > report.sizeBefore else { return report.summary }
    return change(from: report.sizeBefore, to: smallest) + "; kept the original"
  }

  /// The `--json` document: every file's result and a summary.
  static func json(
    _ reports: [PNGCrushReport], _ totals: Totals, elapsed: Double, options: CrushOptions, console: Console
  ) -> String {
    let saved = totals.before - totals.after
    let percent = totals.before > 0 ? Double(saved) * 100 / Double(totals.before) : 0
    let summary: JSONValue = .object([
      ("files", .int(Int64(totals.inputs))), ("crushed", .int(Int64(totals.crushed))),
      ("unchanged", .int(Int64(totals.unchanged))), ("failed", .int(Int64(totals.failures.count))),
      ("bytes_before", .int(Int64(totals.before))), ("bytes_after", .int(Int64(totals.after))),
      ("saved_percent", .double((percent * 100).rounded() / 100)),
      ("seconds", .double((elapsed * 1000).rounded() / 1000)), ("dry_run", .bool(options.dryRun)),
    ])
    let value: JSONValue = .object([("files", .array(reports.map(record(for:)))), ("summary", summary)])
    return value.serialized(pretty: console.stdoutIsTerminal) + "\n"
  }

  static func record(for report: PNGCrushReport) -> JSONValue {
    var fields = JSONValue.pathFields(report.job.input)
    if let output = report.job.output { fields += JSONValue.pathFields(output, key: "output") }
    if let error = report.error {
      fields.append(("status", .string("error")))
      fields.append(("error", .string(String(describing: error))))
      return .object(fields)
    }
    fields += [
      ("status", .string(report.changed ? "crushed" : "unchanged")),
      ("bytes_before", .int(Int64(report.sizeBefore))), ("bytes_after", .int(Int64(report.sizeAfter))),
      ("written", .bool(report.written)),
      ("detail", .string(report.changed ? report.summary : keptReason(report))),
    ]
    return .object(fields)
  }

  /// The test hook `SHELF_TEST_PAUSE_BEFORE_RENAME=MARKER`: each write, once flushed and just
  /// before its rename, creates MARKER and waits (up to a minute) until the test removes it,
  /// so that a test can stop a crush at its most delicate point without guessing a delay.
  static func testPauseBeforeRename(_ environment: [String: String]) -> (@Sendable (RawPath) -> Void)? {
    guard let marker = environment["SHELF_TEST_PAUSE_BEFORE_RENAME"], !marker.isEmpty else { return nil }
    return { _ in
      let created = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
      guard created >= 0 else { return }
      close(created)
      let deadline = MonotonicClock.seconds() + 60
      while access(marker, F_OK) == 0 && MonotonicClock.seconds() < deadline { usleep(10_000) }
    }
  }
}
