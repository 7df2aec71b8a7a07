import Dispatch
import ShelfCatalog
import ShelfCore
import ShelfPNG
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf crush FILE|DIR…`: lossless PNG optimization, in place or into a folder.
enum CrushCommand {
  static let command = Command(
    name: "crush",
    abstract: "Optimize PNG files losslessly.",
    discussion: """
      Each PNG is decoded with libpng and re-encoded as small as it can be without changing a \
      pixel: 16-bit samples become 8-bit when every sample allows it, colour becomes gray, \
      alpha becomes a tRNS colour key or disappears, true colour becomes a palette of up to \
      256 entries (sorted and packed to 1, 2 or 4 bits), interlacing is removed; row filter \
      strategies are tried with fast trial compressions and the winner is compressed with \
      libdeflate (zopfli at --level max). A file that cannot be made smaller is left as it is.

      With --strip none (the default) every ancillary chunk is kept in place: bKGD and sBIT \
      are rewritten for the new colour type; hIST, iDOT and an sBIT that says every bit is \
      significant (it tells a decoder nothing) are dropped.

      Every output is decoded again and compared with the input, pixel by pixel (16-bit \
      samples included), before anything is written; a mismatch keeps the original and is \
      reported as an error. Files are written to a temporary file in the same folder, \
      flushed to disk, then renamed over the target, so an interrupted run never leaves a \
      truncated or empty file.

      Give -o/--out-dir or --in-place (or --dry-run to only report). With --out-dir, a file \
      named on the command line becomes DIR/NAME and files found under a named folder (with \
      -r) keep their path relative to it; every input gets an output, a plain copy when it \
      cannot be made smaller.

      iPhone-optimized PNGs (CgBI, as Xcode's pngcrush -iphone writes them) stay CgBI and are \
      recompressed; --revert-iphone turns them into standard PNGs and --iphone writes CgBI \
      (premultiplied BGRA, raw deflate) from 8-bit images. Animated PNGs keep every frame \
      exactly: only their compressed data is redone (a file is left as it is otherwise).

      Bad input (corrupt, truncated, bad CRC, huge dimensions, not a PNG) gives a one-line \
      error naming the file; the batch goes on and the original is never touched.
      """,
    arguments: [
      ArgumentSpec("file", help: "PNG files, or folders to crush with -r.", repeating: true)
    ],
    options: [
      OptionSpec(
        "out-dir", short: "o", value: "dir",
        help: "Write results into <dir> (created if missing), keeping names and relative paths.",
        completion: .directory),
      OptionSpec("in-place", help: "Replace each file that can be made smaller."),
      OptionSpec("recursive", short: "r", help: "Recurse into folders, crushing every *.png file."),
      OptionSpec(
        "level", value: "level",
        help: "Effort: 0 is fastest, 6 tries every filter, max adds brute force and zopfli.",
        choices: ["0", "1", "2", "3", "4", "5", "6", "max"], defaultValue: "2"),
      OptionSpec(
        "strip", value: "mode",
        help: "Remove chunks: none keeps all still valid, safe keeps colour/gamma/pHYs/sBIT, all none.",
        choices: ["none", "safe", "all"], defaultValue: "none"),
      OptionSpec("alpha", help: "Clean the colour of fully transparent pixels (changes invisible RGB)."),
      OptionSpec(
        "jobs", short: "j", value: "n",
        help: "Files and trials processed in parallel (default: all cores).", completion: Completion.none),
      OptionSpec("dry-run", short: "n", help: "Report what would be saved; write nothing."),
      OptionSpec("json", help: "Print one JSON object with every file's result and a summary."),
      OptionSpec("preserve", short: "p", help: "Keep each input's permissions and modification time."),
      OptionSpec("iphone", help: "Write iPhone-optimized CgBI files, as Xcode's pngcrush -iphone."),
      OptionSpec("revert-iphone", help: "Convert iPhone-optimized CgBI files to standard PNGs."),
      OptionSpec(
        "max-pixels", value: "n",
        help: "Refuse images with more than <n> pixels before decoding (default 67108864).",
        completion: Completion.none),
    ],
    examples: [
      Example("shelf crush -o out/ icon.png", "Write a crushed copy to out/icon.png."),
      Example("shelf crush -r --in-place Assets/", "Crush every PNG under Assets/ in place."),
      Example("shelf crush --level max --strip safe -o out/ *.png", "Smallest output, dropping metadata."),
      Example("shelf crush --iphone -o ios/ AppIcon.png", "Write the CgBI form Xcode would ship."),
      Example("shelf crush --revert-iphone -o plain/ Payload/App.app/*.png", "Make iPhone PNGs readable."),
      Example("shelf crush -n -r --json Assets/", "Report possible savings as JSON, write nothing."),
    ],
    run: run)

  /// One input file and where its output goes.
  struct Job: Sendable {
    var input: RawPath
    var output: RawPath?
  }

  /// What happened to one file.
  struct FileReport: Sendable {
    var job: Job
    var before: Int
    var after: Int
    var changed: Bool
    var written: Bool
    var summary: String
    var error: (any Error)?
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let arguments = invocation.arguments
    let console = invocation.console
    let outDir = arguments.pathValue("out-dir")
    let inPlace = arguments.flag("in-place")
    let dryRun = arguments.flag("dry-run")
    let json = arguments.flag("json")
    let preserve = arguments.flag("preserve")
    if outDir != nil && inPlace {
      throw invocation.usageError("--out-dir and --in-place cannot be used together")
    }
    if outDir == nil && !inPlace && !dryRun {
      throw invocation.usageError("say where results go: -o/--out-dir <dir>, --in-place or --dry-run")
    }
    if arguments.flag("iphone") && arguments.flag("revert-iphone") {
      throw invocation.usageError("--iphone and --revert-iphone cannot be used together")
    }
    guard !arguments.positionals.isEmpty else {
      throw invocation.usageError("no input files")
    }
    let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let jobs = try arguments.integer("jobs", in: 1...256) ?? cores
    let pixelLimit = try arguments.integer("max-pixels", in: 1...(1 << 40)) ?? PNGDecoder.defaultPixelLimit
    var options = PNGOptimizationOptions()
    options.level = PNGOptimizationLevel(arguments.value("level") ?? "2") ?? .standard
    options.strip = PNGStripMode(rawValue: arguments.value("strip") ?? "none") ?? .none
    options.cleanTransparentColor = arguments.flag("alpha")
    options.cgbi =
      arguments.flag("iphone") ? .convertToCgBI : arguments.flag("revert-iphone") ? .revertToStandard : .keep
    options.pixelLimit = pixelLimit

    // Collect the files.
    var outcome = BatchOutcome()
    var work: [Job] = []
    for argument in arguments.positionals {
      let path = argument.path
      guard let status = try? FileStatus.stat(path) else {
        outcome.failed(
          FileError(path: path, reason: "no such file or directory", failure: .missingInput), console: console
        )
        continue
      }
      if status.type == .directory {
        guard arguments.flag("recursive") else {
          outcome.failed(
            FileError(
              path: path, reason: "is a directory (use -r to crush the PNGs inside)", failure: .missingInput),
            console: console)
          continue
        }
        do {
          let walker = try TreeWalker(root: path)
          var found: [Job] = []
          let summary = walker.walk { file in
            guard RawPath(bytes: file.relative).lowercasedExtension == "png" else { return }
            let input = path.appending(RawPath(bytes: file.relative))
            found.append(
              Job(input: input, output: outDir.map { $0.appending(RawPath(bytes: file.relative)) }))
          }
          for problem in summary.unreadable {
            outcome.failed(
              FileError(path: problem.path, reason: problem.reason, failure: .missingInput), console: console)
          }
          work += found
        } catch {
          outcome.failed(error, console: console)
        }
      } else {
        work.append(Job(input: path, output: outDir.map { $0.appending(path.lastComponent) }))
      }
    }
    if !inPlace && !dryRun {
      for index in work.indices where work[index].output == nil { work[index].output = work[index].input }
    }
    if inPlace {
      for index in work.indices {
        // Replacing a symbolic link would turn it into a file: write through to its target.
        let input = work[index].input
        let isLink = (try? FileStatus.lstat(input))?.type == .symbolicLink
        work[index].output = isLink ? ((try? TreeWalker.realPath(input)) ?? input) : input
      }
    }
    // Two inputs must not write the same output (same name from different folders).
    var claimed = Set<RawPath>()
    work = work.filter { job in
      guard let output = job.output, !dryRun else { return true }
      if claimed.insert(output).inserted { return true }
      outcome.failed(
        FileError(
          path: job.input, reason: "its output \(output.escaped) is also another input's output",
          failure: .cannotCreate), console: console)
      return false
    }

    let interrupted = TemporaryFiles.installSignalCleanup()
    defer { interrupted.cancel() }
    let started = MonotonicClock.seconds()
    let fileWidth = max(1, min(jobs, work.count))
    // Trials of one file may use every worker too: when few files remain (the biggest run
    // first), their trials and finalists spread over the idle cores.
    options.parallelTrials = jobs
    let optimizer = PNGOptimizer(options: options)
    let progress = BatchProgress(count: work.count)
    let allJobs = work
    let total = work.count
    // Biggest files first, so that the last ones to finish are small and no worker idles long.
    let order = work.indices.map { index in
      (index, (try? FileStatus.stat(work[index].input).size) ?? 0)
    }.sorted { $0.1 > $1.1 }.map(\.0)
    await withTaskGroup(of: Void.self) { group in
      var next = 0
      func add() {
        guard next < order.count else { return }
        let index = order[next]
        next += 1
        group.addTask {
          let report = crush(
            allJobs[index], optimizer: optimizer, dryRun: dryRun, inPlace: inPlace, preserve: preserve)
          let finished = progress.record(report, at: index)
          if console.stderrIsTerminal {
            let percent = finished * 100 / max(1, total)
            let width = 24
            let filled = width * finished / max(1, total)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            console.status(
              "crush [\(bar)] \(percent)% \(finished)/\(total) \(allJobs[index].input.lastComponent.escaped)")
          }
        }
      }
      for _ in 0..<fileWidth { add() }
      while await group.next() != nil { add() }
    }
    console.clearStatus()
    let elapsed = MonotonicClock.seconds() - started

    let results = progress.reports()
    var before = 0
    var after = 0
    var crushed = 0
    var unchanged = 0
    var records: [JSONValue] = []
    for report in results {
      if let error = report.error {
        outcome.failed(error, console: console)
      } else {
        outcome.succeeded()
        before += report.before
        after += report.after
        if report.changed { crushed += 1 } else { unchanged += 1 }
        if invocation.globals.verbose && !json {
          console.write(line(for: report, dryRun: dryRun) + "\n")
        }
      }
      if json { records.append(record(for: report)) }
    }
    // Inputs that failed before a job was made (missing, not a PNG folder) count too.
    let failed = outcome.failures.count
    let inputs = crushed + unchanged + failed
    let saved = before - after
    let percent = before > 0 ? Double(saved) * 100 / Double(before) : 0
    if json {
      let summary: JSONValue = .object([
        ("files", .int(Int64(inputs))), ("crushed", .int(Int64(crushed))),
        ("unchanged", .int(Int64(unchanged))), ("failed", .int(Int64(failed))),
        ("bytes_before", .int(Int64(before))), ("bytes_after", .int(Int64(after))),
        ("saved_percent", .double((percent * 100).rounded() / 100)),
        ("seconds", .double((elapsed * 1000).rounded() / 1000)), ("dry_run", .bool(dryRun)),
      ])
      let value: JSONValue = .object([("files", .array(records)), ("summary", summary)])
      console.write(value.serialized(pretty: console.stdoutIsTerminal) + "\n")
    } else {
      var text = dryRun ? "Would crush" : "Crushed"
      text += " \(crushed) of \(inputs) file\(inputs == 1 ? "" : "s"): "
      text += "\(Quantities.formatByteSize(Int64(before))) -> \(Quantities.formatByteSize(Int64(after))), "
      text +=
        "saved \(Quantities.formatFixed(percent, decimals: 1))% (\(Quantities.formatByteSize(Int64(saved)))) "
      text += "in \(Quantities.formatFixed(elapsed, decimals: 2)) s"
      if unchanged > 0 { text += "; \(unchanged) already optimal" }
      if failed > 0 { text += "; \(failed) failed" }
      console.write(text + "\n")
    }
    return outcome.exitStatus
  }

  /// Crushes one file: read, optimize (which verifies), write atomically.
  static func crush(
    _ job: Job, optimizer: PNGOptimizer, dryRun: Bool, inPlace: Bool, preserve: Bool
  ) -> FileReport {
    var report = FileReport(job: job, before: 0, after: 0, changed: false, written: false, summary: "")
    do {
      let file = try RegularFile(path: job.input)
      let status = file.status
      let bytes = try file.readAll(limit: PNGDecoder.fileSizeLimit)
      report.before = bytes.count
      let result: PNGOptimizationResult
      do {
        result = try optimizer.optimize(bytes: bytes)
      } catch {
        throw error.at(job.input)
      }
      report.after = result.bytes.count
      report.changed = result.changed
      report.summary = result.summary
      guard !dryRun, let output = job.output else { return report }
      if inPlace && !result.changed { return report }
      if !inPlace, let existing = try? FileStatus.stat(output), existing.inode == status.inode,
        existing.device == status.device, !result.changed
      {
        return report  // the output is the input itself and nothing changed
      }
      try AtomicWriter.write(
        result.bytes, to: output, mode: inPlace || preserve ? status.mode & 0o7777 : nil,
        modificationTime: preserve ? status.mtimeNanoseconds : nil)
      report.written = true
    } catch {
      report.error = error
    }
    return report
  }

  static func line(for report: FileReport, dryRun: Bool) -> String {
    let path = report.job.input.escaped
    guard report.changed else { return "\(path): \(report.before) bytes, \(report.summary)" }
    let percent = report.before > 0 ? Double(report.before - report.after) * 100 / Double(report.before) : 0
    return
      "\(path): \(report.before) -> \(report.after) bytes (-\(Quantities.formatFixed(percent, decimals: 1))%), \(report.summary)"
  }

  static func record(for report: FileReport) -> JSONValue {
    var fields = JSONValue.pathFields(report.job.input)
    if let output = report.job.output { fields += JSONValue.pathFields(output, key: "output") }
    if let error = report.error {
      fields.append(("status", .string("error")))
      fields.append(("error", .string(String(describing: error))))
      return .object(fields)
    }
    fields += [
      ("status", .string(report.changed ? "crushed" : "unchanged")),
      ("bytes_before", .int(Int64(report.before))), ("bytes_after", .int(Int64(report.after))),
      ("written", .bool(report.written)), ("detail", .string(report.summary)),
    ]
    return .object(fields)
  }
}

/// Reports of a batch, filled in by parallel tasks.
final class BatchProgress: Sendable {
  private let state: Mutex<(reports: [CrushCommand.FileReport?], done: Int)>

  init(count: Int) { state = Mutex((Array(repeating: nil, count: count), 0)) }

  /// Stores a report; returns how many files are done.
  func record(_ report: CrushCommand.FileReport, at index: Int) -> Int {
    state.withLock { state in
      state.reports[index] = report
      state.done += 1
      return state.done
    }
  }

  func reports() -> [CrushCommand.FileReport] { state.withLock { $0.reports.compactMap { $0 } } }
}

/// Temporary files being written, removed if the process is interrupted.
enum TemporaryFiles {
  static let active = Mutex<Set<RawPath>>([])

  /// Removes live temporary files on SIGINT, SIGTERM or SIGHUP, then exits with 130.
  static func installSignalCleanup() -> StopSignals {
    StopSignals { _ in
      let paths = active.withLock { $0 }
      for path in paths { _ = path.withCString { unlink($0) } }
      _exit(130)
    }
  }
}

/// Writes a file by way of a temporary file in the same folder: write, fsync, rename, so that
/// readers see either the old file or the whole new one.
enum AtomicWriter {
  static let counter = Atomic<Int>(0)

  static func write(_ bytes: [UInt8], to target: RawPath, mode: UInt32?, modificationTime: Int64?) throws {
    let folder = target.parent
    try Directories.make(folder)
    let serial = counter.wrappingAdd(1, ordering: .relaxed).oldValue
    let temporary = folder.appending(
      RawPath(
        bytes: Array(".".utf8) + target.lastComponent.bytes + Array(".shelf-\(getpid())-\(serial).tmp".utf8)))
    let descriptor = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
    guard descriptor >= 0 else {
      throw FileError(path: target, errno: errno, doing: "cannot create temporary file").asCannotCreate()
    }
    TemporaryFiles.active.withLock { _ = $0.insert(temporary) }
    var closed = false
    func discard() {
      if !closed { close(descriptor) }
      _ = temporary.withCString { unlink($0) }
      TemporaryFiles.active.withLock { _ = $0.remove(temporary) }
    }
    do {
      try bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
          let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            throw FileError(path: target, errno: errno, doing: "write")
          }
          offset += written
        }
      }
      if let mode, fchmod(descriptor, mode_t(mode)) != 0 {
        throw FileError(path: target, errno: errno, doing: "chmod")
      }
      if let modificationTime {
        var times = [
          timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT
          timespec(
            tv_sec: Int(modificationTime / 1_000_000_000), tv_nsec: Int(modificationTime % 1_000_000_000)),
        ]
        if futimens(descriptor, &times) != 0 {
          throw FileError(path: target, errno: errno, doing: "set time")
        }
      }
      while fsync(descriptor) != 0 {
        if errno != EINTR { throw FileError(path: target, errno: errno, doing: "fsync") }
      }
      if let pause = CrushTestHooks.testPauseBeforeRename { usleep(useconds_t(pause * 1_000_000)) }
      closed = true
      if close(descriptor) != 0 && errno != EINTR {
        throw FileError(path: target, errno: errno, doing: "close")
      }
      let renamed = temporary.withCString { from in target.withCString { to in rename(from, to) } }
      guard renamed == 0 else { throw FileError(path: target, errno: errno, doing: "rename") }
      TemporaryFiles.active.withLock { _ = $0.remove(temporary) }
    } catch {
      discard()
      throw error
    }
    // Make the rename itself durable.
    let directory = folder.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if directory >= 0 {
      _ = fsync(directory)
      close(directory)
    }
  }
}

extension FileError {
  func asCannotCreate() -> FileError {
    FileError(path: path, reason: reason, failure: .cannotCreate)
  }
}

enum CrushTestHooks {
  /// Seconds to wait between fsync and rename: lets tests kill a crush mid-write.
  static let testPauseBeforeRename: Double? = {
    guard let text = getenv("SHELF_TEST_PAUSE_BEFORE_RENAME") else { return nil }
    return Double(String(cString: text))
  }()
}

extension Error {
  /// A PNG error renamed to `path`; other errors as they are.
  fileprivate func at(_ path: RawPath) -> any Error {
    if let error = self as? PNGError { return error.at(path) }
    return self
  }
}
