import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf extract QUERY… -o DIR`: copies matching catalogued files out to a folder. Parsing
/// and presentation only: `CatalogExtractor` plans, compares and writes.
enum ExtractCommand {
  static let command = Command(
    name: "extract",
    abstract: "Copy the catalogued files that match a query into a folder.",
    discussion: """
      Every catalogued file matching the QUERY terms (the query language of shelf ls) is \
      copied to DIR under its path relative to its root: DIR/Documents/a.txt for a file of a \
      sandbox. With --flat every file goes straight into DIR under its own name; names that \
      two files share get -2, -3… before the extension.

      Files keep their modification time. Each is written to a temporary file in its folder, \
      then renamed into place, so an interrupted run never leaves a partial file. New files \
      are flushed to disk together, once, before the summary is printed (their writing to \
      disk starts as each is done): when shelf extract says a file was extracted, it is on \
      disk, as after cp -r and sync. A file replaced with --force is flushed before its \
      rename, so a crash leaves the old or the new content, never neither. A \
      file already in DIR with exactly the same bytes is left alone (counted as identical); \
      one with other content is never replaced unless --force is given. Nothing is ever \
      written outside DIR: a catalogued path with an empty, '.' or '..' part, or a folder \
      in DIR that is a symbolic link, is refused.

      The catalogue is only read. Each file that cannot be extracted gets a one-line error \
      and the rest go on; the summary says how many failed and why. The exit status is 0 \
      when every file was extracted (or identical), the failures' own when every file failed \
      the same way (73 when outputs exist, 66 when sources are gone), 1 otherwise and when \
      nothing matches. A progress bar is drawn on a terminal, unless NO_COLOR is set.
      """,
    arguments: [
      ArgumentSpec(
        "query", help: "Query terms such as kind:image or root:'*/Backup/*' (as for shelf ls).",
        repeating: true, completion: Completion.none)
    ],
    options: [
      OptionSpec(
        "out-dir", short: "o", value: "dir", help: "Write the files into <dir> (created if missing).",
        completion: .directory),
      OptionSpec("flat", help: "Put every file straight into <dir>, names made unique."),
      OptionSpec("force", short: "f", help: "Replace files in <dir> that hold other content."),
      OptionSpec(
        "jobs", short: "j", value: "n",
        help: "Files copied in parallel (default: twice the number of cores, as copying waits on the disk).",
        completion: Completion.none),
    ],
    examples: [
      Example("shelf extract kind:image -o ~/Pictures/recovered", "Copy every catalogued image."),
      Example(
        "shelf extract --flat area:documents ext:pdf -o pdfs/", "Every PDF of the sandboxes, in one folder."),
      Example("shelf extract 'root:*/Demo' -o copy/", "Everything catalogued under one root."),
    ],
    manSections: BackupManual.extractSections,
    acceptsNegatedTerms: true,
    run: run)

  /// The options of one `shelf extract`, read once from the command line.
  struct ExtractOptions {
    var query: CatalogQuery
    var terms: [String]
    var destination: RawPath
    var flat: Bool
    var force: Bool
    var jobs: Int
    var verbose: Bool

    init(_ invocation: Invocation) throws {
      let arguments = invocation.arguments
      terms = arguments.positionals.map(\.string)
      guard !terms.isEmpty else {
        throw invocation.usageError("give a query (e.g. kind:image); use root:'*' for everything")
      }
      guard let outDir = arguments.pathValue("out-dir") else {
        throw invocation.usageError("say where files go: -o/--out-dir <dir>")
      }
      query = try CatalogQuery(arguments: terms)
      destination = outDir.absolute
      flat = arguments.flag("flat")
      force = arguments.flag("force")
      // Twice the cores: a worker waiting for a cold read leaves its core to another.
      jobs =
        try arguments.integer("jobs", in: 1...64) ?? 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
      verbose = invocation.globals.verbose
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try ExtractOptions(invocation)
    let console = invocation.console
    let store = try invocation.openCatalogueForReading()
    let entries = try store.entries(matching: options.query)
    guard !entries.isEmpty else {
      console.error("nothing in the catalogue matches '\(options.terms.joined(separator: " "))'")
      return .partialFailure
    }
    if let status = try? FileStatus.stat(options.destination), status.type != .directory {
      throw FileError(path: options.destination, reason: "is not a directory", failure: .cannotCreate)
    }
    let extractor = CatalogExtractor(
      settings: CatalogExtractSettings(
        destination: options.destination, flat: options.flat, force: options.force, width: options.jobs,
        writerBeforeRename: CrushCommand.testPauseBeforeRename(invocation.environment)))
    var outcome = BatchOutcome()
    let plan = extractor.plan(entries, backups: BackupPasswordInput(invocation).resolver())
    for refused in plan.refused { outcome.failed(Advised(refused), console: console) }

    // A stop removes the temporary files being written; every output is whole or absent.
    let signals = StopSignals { _ in
      AtomicFileWriter.removeTemporaryFiles()
      console.error("interrupted")
      _exit(130)
    }
    defer { signals.cancel() }
    let started = MonotonicClock.seconds()
    let reports = await extractor.run(plan.jobs, finished: progress(of: plan.jobs.count, on: console))
    console.clearStatus()
    let elapsed = MonotonicClock.seconds() - started

    var totals = Totals()
    for report in reports {
      switch report.outcome {
      case .extracted:
        totals.extracted += 1
        totals.bytes += report.bytes
      case .identical:
        totals.identical += 1
      case .failed:
        outcome.failed(report.error.map(Advised.init) ?? Advised(report.job.path), console: console)
        continue
      }
      outcome.succeeded()
      if options.verbose {
        let verb = report.outcome == .extracted ? "extracted" : "identical, left as it was"
        console.write("\(report.job.path.escaped) -> \(report.job.output.escaped): \(verb)\n")
      }
    }
    totals.failures = outcome.failures
    console.write(summary(totals, elapsed: elapsed) + "\n")
    return outcome.exitStatus
  }

  /// What a batch did, in numbers.
  struct Totals {
    var extracted = 0
    var identical = 0
    var bytes: Int64 = 0
    var failures: [FailureKind] = []
    var files: Int { extracted + identical + failures.count }
  }

  /// `Extracted 3 of 4 files (1.2 MiB) in 0.05 s; 1 identical, left as it was; 1 failed (…)`.
  static func summary(_ totals: Totals, elapsed: Double) -> String {
    var text = "Extracted \(totals.extracted) of \(totals.files) file\(totals.files == 1 ? "" : "s")"
    text +=
      " (\(Quantities.formatByteSize(totals.bytes))) in \(Quantities.formatFixed(elapsed, decimals: 2)) s"
    if totals.identical > 0 { text += "; \(totals.identical) identical, left as it was" }
    if !totals.failures.isEmpty {
      text += "; \(totals.failures.count) failed (\(CrushCommand.why(totals.failures)))"
    }
    return text
  }

  /// A progress bar as files finish (see `Console.progressBar`).
  static func progress(of total: Int, on console: Console) -> @Sendable (CatalogExtractReport, Int) -> Void {
    { report, finished in
      console.progressBar("extract", finished: finished, of: total, current: report.job.path)
    }
  }

  /// An extraction error with the CLI's advice: which option would change the outcome.
  struct Advised: ShelfError {
    let error: any ShelfError

    init(_ error: any ShelfError) { self.error = error }
    init(_ path: RawPath) { error = FileError(path: path, reason: "not extracted", failure: .io) }

    var failure: FailureKind { error.failure }

    var description: String {
      guard let extract = error as? CatalogExtractError else {
        return String(describing: AdvisedBackupError.advising(error))
      }
      switch extract.reason {
      case .outputDiffers: return extract.description + " (--force replaces it)"
      case .outputClaimed: return extract.description + " (--flat gives each file a name of its own)"
      default: return extract.description
      }
    }
  }
}
