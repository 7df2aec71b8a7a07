import ShelfBackup
import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf extract QUERY… -o DIR`: copies matching catalogued files out to a folder. Parsing
/// and presentation only: `CatalogExtractor` plans, compares and writes.
enum ExtractCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let outDir = Option(
    "out-dir", short: "o", value: "dir", help: "Write the files into <dir> (created if missing).",
    completion: .directory)
  static let flat = Flag("flat", help: "Put every file straight into <dir>, names made unique.")
  static let name = Option(
    "name", value: "template",
    help: "Name each output from <template>, e.g. '{taken:%Y}/{name}' (fields as in shelf ls --format).",
    completion: Completion.none)
  static let force = Flag("force", help: "Replace files in <dir> that hold other content.")
  static let jobs = TypedOption<Int?>(
    "jobs", short: "j", value: "n",
    help: "Files copied in parallel (default: twice the number of cores, as copying waits on the disk).",
    parser: .integer(in: 1...64), completion: Completion.none)

  static let command = Command(
    name: "extract",
    abstract: "Copy the catalogued files that match a query into a folder.",
    discussion: """
      Every catalogued file matching the QUERY terms (the query language of shelf ls) is \
      copied to DIR under its path relative to its root: DIR/Documents/a.txt for a file of a \
      sandbox. The files of an iPhone backup always go under a folder named for the backup, \
      its device name and local date: DIR/Shelf Test iPhone 2024-05-01/HomeDomain/Library/\
      Voicemail/1.ogg; a second backup with the same name and date gets Shelf Test iPhone \
      2024-05-01 (2), and so on in the order the backups were made. When the files come from \
      several other roots, each root's go under its folder's name (DIR/<folder>/Documents/…). \
      With --flat every file goes straight into DIR under its own name.

      --name TEMPLATE names each output from the fields of shelf ls --format: \
      '{taken:%Y}/{name}' files photos by year, '{title}.{ext}' names voice memos by their \
      titles. Date fields (taken, mtime) take a strftime(3) format after a colon; without one \
      they are RFC 3339; {track} and {disc} are numbers, {track:02} pads with zeros. Each / \
      of the template starts a folder; a / or NUL inside a value becomes _, a field with no \
      value becomes 'unknown', in a folder and in the file name alike ('{artist} - \
      {title}.{ext}' of an untagged file is 'unknown - unknown.m4a'), and names are cut \
      to 255 bytes (the extension kept). An output whose name is empty or has a '.' or '..' \
      part is refused. However they are named, two files of one run never get one output: \
      the second gets ' (2)' before its extension, the third ' (3)'.

      Files keep their modification time. Each is written to a temporary file in its folder, \
      then renamed into place, so an interrupted run never leaves a partial file. New files \
      are flushed to disk together, once, before the summary is printed (their writing to \
      disk starts as each is done): when shelf extract says a file was extracted, it is on \
      disk, as after cp -r and sync. A file replaced with --force is flushed before its \
      rename, so a crash leaves the old or the new content, never neither. A \
      file already in DIR with exactly the same bytes is left alone (counted as identical); \
      one with other content is never replaced unless --force is given, nor one that \
      changed since it was compared (a warning; exit 1). Nothing is ever written outside \
      DIR: a catalogued path with an empty, '.' or '..' part, or a folder in DIR that is a \
      symbolic link, is refused; every folder below DIR is opened from DIR's own \
      descriptor, never through a link, so a folder swapped for a link during the run \
      cannot lead a file or a temporary file out of DIR (its files are refused instead). \
      The temporary files (.NAME.shelf-PID-N.tmp) of a run that was killed are removed by \
      the next run that writes in their folder. A symbolic link in a backup is neither \
      followed nor recreated: each one beside a file extracted is reported (skipped, with \
      its target); a backup's manifest row with an empty path names no file and is \
      skipped with a warning naming the backup and its domain.

      An encrypted backup needs its password (--password-file FILE, SHELF_BACKUP_PASSWORD, \
      or asked on a terminal): without it, its files are reported as needing a password, \
      exit status 77 when nothing else was to be extracted.

      The catalogue is only read. Each file that cannot be extracted gets a one-line error \
      and the rest go on; the summary says how many failed and why. The exit status is 0 \
      when every file was extracted (or identical), 1 when some failed and when nothing \
      matches; when every file failed, the failure's own (73 when outputs exist, 66 when \
      sources are gone, 77 when a password is missing or wrong; when they differ, the most \
      severe: 77 > 74 > 73 > 66 > 65). A progress bar is drawn on a terminal, unless \
      NO_COLOR is set.
      """,
    arguments: [
      ArgumentSpec(
        "query", help: "Query terms such as kind:image or root:'*/Backup/*' (as for shelf ls).",
        repeating: true, completion: .queryTerms)
    ],
    options: [outDir, flat, name, force, jobs],
    examples: [
      Example("shelf extract kind:image -o ~/Pictures/recovered", "Copy every catalogued image."),
      Example(
        "shelf extract --flat area:documents ext:pdf -o pdfs/", "Every PDF of the sandboxes, in one folder."),
      Example("shelf extract 'root:*/Demo' -o copy/", "Everything catalogued under one root."),
      Example(
        "shelf extract area:recordings --name '{title}.{ext}' -o memos/",
        "Voice memos of every backup, named by their titles."),
      Example(
        "shelf extract kind:image --name '{taken:%Y}/{name}' -o photos/", "Photos in a folder per year."),
    ],
    manSections: BackupManual.extractSections,
    acceptsNegatedTerms: true,
    run: run)

  /// The options of one `shelf extract`, read once from the command line.
  struct ExtractOptions {
    var query: CatalogQuery
    var terms: [String]
    var destination: RawPath
    var layout: CatalogExtractLayout
    var force: Bool
    var jobs: Int
    var verbose: Bool

    init(_ invocation: Invocation) throws {
      let arguments = invocation.arguments
      terms = arguments.positionals.map(\.string)
      guard !terms.isEmpty else {
        throw invocation.usageError("give a query (e.g. kind:image); use root:'*' for everything")
      }
      guard let outDir = arguments.path(ExtractCommand.outDir) else {
        throw invocation.usageError("say where files go: -o/--out-dir <dir>")
      }
      query = try QueryTerms.query(terms, environment: invocation.environment)
      destination = outDir.absolute
      if let text = arguments[ExtractCommand.name] {
        if arguments[ExtractCommand.flat] {
          throw invocation.usageError("--name and --flat cannot be combined")
        }
        let template: ListingTemplate
        do {
          template = try ListingTemplate(text)
        } catch {
          throw invocation.usageError("--name: \(error.reason)")
        }
        layout = .named { template.renderPath($0) }
      } else {
        layout = arguments[ExtractCommand.flat] ? .flat : .tree
      }
      force = arguments[ExtractCommand.force]
      // Twice the cores: a worker waiting for a cold read leaves its core to another.
      jobs = arguments[ExtractCommand.jobs] ?? 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
      verbose = invocation.globals.verbose
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try ExtractOptions(invocation)
    let console = invocation.console
    let store = try await invocation.openCatalogue(for: options.query)
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
        destination: options.destination, layout: options.layout, force: options.force, width: options.jobs,
        writerBeforeRename: CrushCommand.testPauseBeforeRename(invocation.environment)))
    var outcome = BatchOutcome()
    var reasons: [String] = []
    let plan = extractor.plan(
      entries, roots: try store.roots(), backups: BackupPasswordInput(invocation).resolver())
    for refused in plan.refused {
      // One line for a backup that does not open; each of its files counts as failed.
      outcome.failed(Advised(refused.error), console: console)
      for _ in 1..<max(1, refused.entries) { outcome.failed(refused.error.failure) }
      reasons += Array(repeating: reason(refused.error), count: max(1, refused.entries))
    }
    for nameless in plan.namelessEntries {
      console.warning(
        "\(nameless.backup.escaped): a manifest row of \(nameless.domain) has an empty path; skipped")
    }
    for link in plan.skippedLinks {
      console.note("\(link.path.escaped): symbolic link to \(link.target.escaped); skipped")
    }

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
        if let error = report.error as? FileError, error.isChangedSinceRead {
          // A file replaced since it was compared (with --force): the user's, left as it is.
          outcome.changed(error.description, console: console)
          reasons.append("changed meanwhile")
          continue
        }
        let error = report.error.map(Advised.init) ?? Advised(report.job.path)
        outcome.failed(error, console: console)
        reasons.append(reason(error.error))
        continue
      }
      outcome.succeeded()
      if options.verbose {
        let verb = report.outcome == .extracted ? "extracted" : "identical, left as it was"
        console.write("\(report.job.path.escaped) -> \(report.job.output.escaped): \(verb)\n")
      }
    }
    totals.failures = reasons
    totals.skippedLinks = plan.skippedLinks.count
    console.write(summary(totals, elapsed: elapsed) + "\n")
    return outcome.exitStatus
  }

  /// What a batch did, in numbers.
  struct Totals {
    var extracted = 0
    var identical = 0
    var bytes: Int64 = 0
    /// Why each file failed, in words (`password needed`, `cannot create output`).
    var failures: [String] = []
    var skippedLinks = 0
    var files: Int { extracted + identical + failures.count }
  }

  /// Why a file failed, for the summary: a backup's missing or wrong password said as such,
  /// else the kind of failure.
  static func reason(_ error: any ShelfError) -> String {
    switch (error as? BackupError)?.reason {
    case .passwordRequired?: "password needed"
    case .wrongPassword?: "wrong password"
    default: CrushCommand.name(of: error.failure)
    }
  }

  /// `Extracted 3 of 4 files (1.2 MiB) in 0.05 s; 1 identical, left as it was; 1 failed (…)`.
  static func summary(_ totals: Totals, elapsed: Double) -> String {
    var text = "Extracted \(totals.extracted) of \(totals.files) file\(totals.files == 1 ? "" : "s")"
    text +=
      " (\(Quantities.formatByteSize(totals.bytes))) in \(Quantities.formatFixed(elapsed, decimals: 2)) s"
    if totals.identical > 0 { text += "; \(totals.identical) identical, left as it was" }
    if !totals.failures.isEmpty {
      var counts: [(String, Int)] = []
      for reason in totals.failures {
        if let index = counts.firstIndex(where: { $0.0 == reason }) {
          counts[index].1 += 1
        } else {
          counts.append((reason, 1))
        }
      }
      let why =
        counts.count == 1
        ? counts[0].0 : counts.sorted { $0.1 > $1.1 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
      text += "; \(totals.failures.count) failed (\(why))"
    }
    if totals.skippedLinks > 0 {
      text += "; \(totals.skippedLinks) symbolic link\(totals.skippedLinks == 1 ? "" : "s") skipped"
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
      default: return extract.description
      }
    }
  }
}
