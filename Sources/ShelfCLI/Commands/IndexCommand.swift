import ShelfBackup
import ShelfCatalog
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf index [ROOT…]`: add folders to the catalogue and scan them incrementally.
enum IndexCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let full = Flag("full", help: "Ignore what is known and re-extract every file.")
  static let exclude = Option(
    "exclude", value: "glob",
    help:
      "Skip files and folders matching <glob> (a name, or a path relative to the root when it holds a slash); may be repeated. Stored with each ROOT named and applied to every later rescan; given again, replaces them ('' clears them).",
    repeatable: true, completion: Completion.none)
  static let jobs = TypedOption<Int?>(
    "jobs", short: "j", value: "n",
    help: "Read files with <n> workers (default: the number of processors).", parser: .integer(in: 1...256),
    completion: Completion.none)
  static let followLinks = Flag("follow-links", help: "Follow symbolic links that resolve inside the root.")
  static let fileTimeout = TypedOption<Int?>(
    "file-timeout", value: "seconds",
    help:
      "Give up on a file after <seconds> of reading (default: 30 plus 1 per 100 MiB of the file); it is catalogued with the error 'timed out after N s'.",
    parser: .integer(in: 1...86_400), completion: Completion.none)
  static let retryFailed = Flag(
    "retry-failed",
    help: "Read again the unchanged files whose last reading crashed, timed out or ran out of memory.")
  static let prune = Flag(
    "prune",
    help:
      "Forget the catalogued roots whose folder is gone (those named, or every one) instead of skipping them."
  )
  static let progress = TypedOption(
    "progress", value: "when",
    help: "Show a progress bar with files/s and time left: auto (on a terminal), always or never.",
    parser: .cases, default: WhenChoice.auto)

  static let command = Command(
    name: "index",
    abstract: "Add folders to the catalogue and scan them for changes.",
    discussion: """
      Walks each ROOT, detects every file's type from its content (magic bytes first, the \
      extension only as a tie-breaker) and stores what its headers say in the SQLite \
      catalogue: image dimensions and colour facts, audio duration, format and tags, text \
      encoding, line endings and counts (and the text itself for full-text search), property \
      list format and top-level keys. Without ROOT, every known root is rescanned.

      Rescans are incremental: a file whose size, modification time, change time and inode \
      are unchanged is not read again; deleted files leave the catalogue; moved or renamed \
      files keep their facts. Files modified within a few seconds of the scan are checked \
      again next time. Work is committed in batches, so an interrupted scan loses nothing \
      already committed and the next scan completes it.

      An application sandbox (an X.app bundle beside Documents/, Library/ and tmp/) is \
      recognised: each file gets its area (bundle, documents, preferences, caches, library, \
      tmp, other) and the bundle's Info.plist gives the root an identifier, name and version.

      iPhone backups (iTunes or Finder, any era: Manifest.db, Manifest.mbdb, .mdinfo or \
      .mdbackup files beside Info.plist) are recognised wherever they are under ROOT \
      (ROOT itself, ROOT/<udid>/, ROOT/Backups/MobileSync/Backup/<udid>/, deeper) and \
      catalogued by real names: each file is BACKUP/DOMAIN/relativePath (e.g. \
      BACKUP/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.HEIC), with its domain, app, \
      stored name, protection class and mode (the domain:, app:, file_id: and protection: \
      query fields; an app-group container's app is the one its group is named after, as \
      WhatsApp's media) and an area: camera-roll (the originals of Media/DCIM, the iCloud-era \
      ones of Media/PhotoData/CPLAssets and the renders of edits, not thumbnails), recordings \
      (Voice Memos), voicemail, attachments (Messages), notes (Notes' attachments), and \
      documents, preferences, caches, library or tmp inside an app's container. A backup's stored files (hashed names, Manifest.db, .mdinfo, \
      .mdbackup) are never entries themselves. Each backup found is a root of its own, \
      listed under ROOT by shelf roots and forgotten with it. A folder that only looks like \
      a backup (a stray Manifest.db, Info.plist and Status.plist with no manifest) is \
      catalogued as plain files, with one warning. Kinds and facts come from the content, \
      decrypted in memory for an encrypted backup. Its password comes from --password-file, \
      SHELF_BACKUP_PASSWORD or a prompt on a terminal; the password given is tried on every \
      backup, and on a terminal a backup it does not open is asked for by name (a wrong \
      answer is asked again, three tries in all). An encrypted backup with no password to \
      try is left out with a warning saying how to give one (status 1; the rest of ROOT is \
      catalogued); a wrong password is an error (status 77 when nothing else was \
      indexed). Nothing in a backup folder is ever written. Manifest rows that cannot be \
      used (names that escape their domain, damaged records) and files that cannot be read \
      (a missing stored file, a bad ciphertext) are reported one line each and the rest is \
      catalogued (status 1); symbolic links in a backup are counted, never followed.

      Roots never overlap: a catalogued root inside ROOT stays a root of its own (its \
      entries keep their root, area and excludes) and the scan of ROOT leaves it out, \
      saying so on one line ('already a root of its own; skipped here'). A ROOT inside a \
      catalogued root rescans that part of it and adds no root ('inside the root R; \
      rescanned as part of it'). Entries leave the catalogue \
      only when their file is gone, by shelf forget, or by index --prune.

      Each root scanned is summed up on stdout: 'ROOT: N files', then the counts (new, \
      updated, unchanged, moved, removed) and notes (unreadable, with errors, links not \
      followed, excluded, backups found) on indented lines that fit 80 columns, and a \
      backup's device or a sandbox's bundle.

      Symbolic links are not followed unless --follow-links is given, and then only when they \
      resolve inside the root (loops are detected). FIFOs, sockets and devices are never \
      opened. Folders with a .shelfignore file skip the globs listed in it, one per line. \
      A file that cannot be read is counted in the summary (listed with -v); a folder that \
      cannot be read or searched is named in a warning and the entries below it are kept as \
      they were. The scan goes on, and exits with status 1.

      Files are read in sandboxed worker processes (a seccomp allow-list: read what they \
      are handed, map memory, answer; no capabilities, no secrets in their environment; a \
      2 GiB address-space limit, or the lower one shelf inherited; a CPU and wall-clock \
      limit per file, --file-timeout). A file whose reading crashes, hangs or runs out of \
      memory costs only that file: it is catalogued with the error 'extractor crashed \
      (signal N)', 'timed out after N s' or 'out of memory' and not read again until it \
      changes or --retry-failed asks. A file whose worker failed for a reason outside it \
      (it could not start, was killed from outside, ran out of an inherited limit, or timed \
      out while on the CPU less than half the time) gets 'extraction interrupted: ...' and \
      is read again on the next run. Under an address-space limit below 512 MiB shelf says \
      so once. A run in which any file's facts could not be read (those, or corrupt and \
      truncated files) goes on and exits with status 1; -v lists them.

      Only one index runs on a catalogue at a time: a second one waits briefly, then exits \
      with status 75. ls, info and stats keep working while an index runs. A damaged \
      shelf catalogue is moved aside with a warning and rebuilt; a file that is not a shelf \
      catalogue is refused (status 65) and left untouched. A catalogue written by an older \
      shelf is upgraded in place. With --db, the catalogue's folder must exist (status 73); \
      only the default catalogue's folder is created.

      --exclude patterns are stored with the roots named and apply to every later rescan, \
      until --exclude is given again for that root (--exclude '' clears them); shelf roots \
      lists them. Without ROOT, every catalogued root is rescanned once, with its own \
      patterns (the backups found in a root with that root); a root whose folder is gone is skipped with a warning and its entries stay (status 1), \
      until shelf forget or index --prune drops them.
      """,
    arguments: [
      ArgumentSpec(
        "root", help: "A folder to add to the catalogue and scan.", optional: true, repeating: true,
        completion: .directory)
    ],
    options: [full, exclude, jobs, followLinks, fileTimeout, retryFailed, prune, progress],
    examples: [
      Example("shelf index ~/Sandboxes/Demo", "Catalogue a sandbox (or rescan it)."),
      Example("shelf index", "Rescan every catalogued root."),
      Example(
        "shelf index --exclude '*.tmp' --exclude Library/Caches ~/Media",
        "Catalogue a folder, skipping temporary files and caches."),
      Example("shelf --db /tmp/test.sqlite index SampleMedia", "Index into a throwaway catalogue."),
      Example(
        "shelf --password-file pw.txt index ~/Library/Application\\ Support/MobileSync/Backup",
        "Catalogue every iPhone backup on a Mac, encrypted ones too: each is a root of its own."),
      Example("shelf index --prune", "Rescan every root, forgetting those whose folder is gone."),
    ],
    manSections: CatalogueManual.indexSections,
    run: run)

  /// The options of one `shelf index` run, read once from the command line and environment.
  struct Options {
    /// How each root is scanned.
    var scan = IndexOptions()
    /// The folders named; empty rescans every catalogued root.
    var roots: [RawPath]
    /// `--prune`: forget roots whose folder is gone instead of skipping them.
    var prune: Bool
    /// `--progress`: auto (on a terminal), always or never.
    var progress: WhenChoice
    /// How long to wait for another writer (`Invocation.lockWait`).
    var lockWait: Double

    init(_ invocation: Invocation) throws {
      let arguments = invocation.arguments
      roots = arguments.positionals.map(\.path)
      prune = arguments[IndexCommand.prune]
      progress = arguments[IndexCommand.progress]
      scan.full = arguments[IndexCommand.full]
      if arguments.isGiven(IndexCommand.exclude) {
        guard !roots.isEmpty else {
          throw invocation.usageError("--exclude needs a ROOT: patterns are stored with the roots named")
        }
        scan.excludes = arguments.values(IndexCommand.exclude)
      }
      scan.followLinks = arguments[IndexCommand.followLinks]
      scan.retryFailed = arguments[IndexCommand.retryFailed]
      scan.extractors = invocation.extractionWorkers(fileTimeout: arguments[IndexCommand.fileTimeout])
      scan.jobs = arguments[IndexCommand.jobs] ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
      // Knobs for tests: the window in which fresh timestamps are not trusted, the batch size,
      // a pause after each batch (to interrupt a scan part way) and the writer-lock wait.
      let environment = invocation.environment
      if let window = environment["SHELF_TRUST_WINDOW"].flatMap(Double.init), window >= 0 {
        scan.recentWindow = window
      }
      if let batch = environment["SHELF_INDEX_BATCH"].flatMap(Int.init), batch > 0 {
        scan.batchSize = batch
        scan.commitInterval = 0
      }
      if let pause = environment["SHELF_INDEX_PAUSE"].flatMap(Double.init), pause >= 0 {
        scan.pauseAfterBatch = pause
      }
      lockWait = try invocation.lockWait()
      scan.lockWait = lockWait
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    var options = try Options(invocation)
    let console = invocation.console
    // Ctrl-C and SIGTERM stop after the batch being written: committed work is kept.
    let stop = StopRequest()
    let signals = StopSignals { _ in stop.request() }
    defer { signals.cancel() }
    options.scan.shouldStop = { stop.isRequested }
    let passwords = BackupPasswordInput(invocation)
    options.scan.backupPassword = { folder, refused in try passwords.password(for: folder, refused: refused) }
    options.scan.temporaryFolder = invocation.temporaryFolder
    let showProgress = options.progress.applies(onTerminal: console.stderrIsTerminal)

    var run = IndexRun(
      store: try invocation.openCatalogueForWriting(lockWait: options.lockWait), options: options.scan,
      shelfVersion: ShelfInfo.version)
    warnIfRebuilt(run.store, console: console)
    let roots: IndexRoots
    do {
      roots = try IndexRoots.choose(named: options.roots, prune: options.prune, in: run.store) { forgotten in
        let count = forgotten.entries
        console.write(
          "\(forgotten.root.path.escaped): folder is gone; forgot the root and its \(count) entr\(count == 1 ? "y" : "ies")\n"
        )
      }
    } catch IndexRoots.Failure.noRoots {
      throw invocation.usageError("no roots in the catalogue yet: give a folder to index")
    }
    for root in roots.skippedGone {
      console.warning(
        "\(root.path.escaped): folder is gone; skipped (its entries stay until 'shelf forget' or 'index --prune')"
      )
    }
    var outcome = BatchOutcome()
    try await run.run(roots.scan) { progress in
      guard showProgress else { return }
      Self.showProgress(progress, console: console)
    } report: { event in
      console.clearStatus()
      switch event {
      case .scanned(let summary):
        record(summary, into: &outcome, console: console, verbose: invocation.globals.verbose)
        if let root = summary.partOf {
          console.note("\(summary.root.escaped): inside the root \(root.escaped); rescanned as part of it")
        }
        for covered in summary.coveredRoots {
          console.note("\(covered.escaped): already a root of its own; skipped here")
        }
        for nested in summary.nested {
          switch nested.outcome {
          case .success(let backup):
            record(backup, into: &outcome, console: console, verbose: invocation.globals.verbose)
          case .failure(let error as BackupError) where error.reason == .passwordRequired:
            // The rest of the folder is catalogued; this backup's files are not.
            console.warning(String(describing: AdvisedBackupError(error: error)))
            outcome.failed(error.failure)
          case .failure(let error):
            outcome.failed(error, console: console)
          }
        }
      case .rebuilt(let fresh):
        warnIfRebuilt(fresh, console: console)
        outcome = BatchOutcome()
      case .failed(_, let error):
        if let error = error as? any ShelfError, error.failure == .busy || error.failure == .interrupted {
          throw AdvisedCatalogError.advising(error)
        }
        outcome.failed(AdvisedBackupError.advising(AdvisedCatalogError.advising(error)), console: console)
      }
    }
    // A skipped root is a partial failure, whatever happened to the others.
    return roots.skippedGone.isEmpty ? outcome.exitStatus : .partialFailure
  }

  /// Reports one root's scan and records its outcome: a file whose facts could not be read is
  /// bad input (the summary counts them, -v lists them), and so is each of a backup's
  /// unreadable rows and files (one line each); the run went on without them (exit 1).
  private static func record(
    _ summary: RootScanSummary, into outcome: inout BatchOutcome, console: Console, verbose: Bool
  ) {
    report(summary, console: console, verbose: verbose)
    for lookalike in summary.walk.lookalikes {
      console.warning(
        "\(lookalike.path.escaped): \(lookalike.reason): not an iPhone backup; catalogued as plain files")
    }
    outcome.succeeded()
    for _ in summary.extractionErrors { outcome.failed(.badInput) }
    // A folder or file that could not be read is left out of the run (its entries kept).
    for _ in summary.unreadable { outcome.failed(.missingInput) }
    for problem in summary.problems {
      outcome.failed(
        FileError(path: problem.path, reason: problem.reason, failure: .badInput), console: console)
    }
  }

  private static func warnIfRebuilt(_ store: CatalogStore, console: Console) {
    if let aside = store.movedAsideCorruptFile {
      console.warning(
        "\(store.location): the catalogue was damaged; moved it to \(aside.escaped) and rebuilt it")
    }
  }

  /// Progress state kept between callbacks (the callback runs on the indexing task only).
  nonisolated(unsafe) private static var started: Double = 0
  nonisolated(unsafe) private static var lastShown: Double = 0

  private static func showProgress(_ progress: IndexProgress, console: Console) {
    let now = MonotonicClock.seconds()
    if progress.phase == .extracting && progress.done == 0 { started = now }
    // In place on a terminal ten times a second; as plain lines once a second elsewhere and
    // when NO_COLOR asks for no escape sequences.
    let inPlace = console.drawsProgressInPlace
    let interval = inPlace ? 0.1 : 1.0
    guard now - lastShown >= interval || progress.done == progress.total else { return }
    lastShown = now
    let name = progress.root.lastComponent.escaped
    if progress.phase == .walking {
      let line = "\(name): walking… \(progress.done) files"
      inPlace ? console.status(line) : console.note(line)
      return
    }
    let elapsed = max(now - started, 0.001)
    let rate = Double(progress.done) / elapsed
    let fraction = progress.total > 0 ? Double(progress.done) / Double(progress.total) : 1
    let barWidth = 24
    let filled = Int(fraction * Double(barWidth))
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
    var line = "\(name) \(bar) \(progress.done)/\(progress.total) files, \(Int(rate)) files/s"
    if rate > 0 && progress.done < progress.total {
      line += ", ETA " + Quantities.formatDuration(Double(progress.total - progress.done) / rate)
    }
    inPlace ? console.status(line) : console.note(line)
  }

  /// The summary of one root's scan: the root and its file count, then the counts and the
  /// notes on lines of their own that fit 80 columns.
  private static func report(_ summary: RootScanSummary, console: Console, verbose: Bool) {
    var text = "\(summary.root.escaped): \(summary.files) file\(summary.files == 1 ? "" : "s")\n"
    text += "  \(summary.added) new, \(summary.updated) updated, \(summary.unchanged) unchanged"
    text += ", \(summary.moved) moved, \(summary.removed) removed\n"
    var notes: [String] = []
    if !summary.unreadable.isEmpty { notes.append("\(summary.unreadable.count) unreadable") }
    if !summary.extractionErrors.isEmpty {
      notes.append("\(summary.extractionErrors.count) with errors")
    }
    if summary.walk.skippedLinks > 0 {
      notes.append(
        "\(summary.walk.skippedLinks) link\(summary.walk.skippedLinks == 1 ? "" : "s") not followed")
    }
    if summary.walk.loops > 0 {
      notes.append("\(summary.walk.loops) link loop\(summary.walk.loops == 1 ? "" : "s")")
    }
    if summary.walk.specialFiles > 0 { notes.append("\(summary.walk.specialFiles) special files skipped") }
    if summary.walk.excluded > 0 { notes.append("\(summary.walk.excluded) excluded") }
    if !summary.nested.isEmpty {
      let count = summary.nested.count
      notes.append("\(count) backup\(count == 1 ? "" : "s") found, each a root of its own")
    }
    for line in wrapped(notes, width: 80, indent: "  ") { text += line + "\n" }
    if let backup = summary.backup {
      // Split where the description has its commas, to wrap there (joined again unchanged).
      let parts = ("backup: " + BackupPresentation.describe(backup)).split(
        separator: ", ", omittingEmptySubsequences: false
      ).map(String.init)
      for line in wrapped(parts, width: 80, indent: "  ", continuation: "    ") { text += line + "\n" }
    }
    if let bundle = summary.bundle {
      var line = "  sandbox: \(bundle.bundlePath.escaped)"
      let details = [bundle.identifier, bundle.name, bundle.version.map { "version \($0)" }].compactMap { $0 }
      if !details.isEmpty { line += " (" + details.joined(separator: ", ") + ")" }
      text += line + "\n"
    }
    console.write(text)
    // A folder not read hides what lies below it: always named.
    let folders = summary.walk.unreadable
    for problem in folders {
      console.warning("\(problem.path.escaped): \(problem.reason); its entries are kept as they were")
    }
    let files = summary.unreadable.dropFirst(folders.count)
    if verbose {
      for problem in files { console.warning("\(problem.path.escaped): \(problem.reason)") }
      for problem in summary.extractionErrors {
        console.warning("\(problem.path.escaped): \(problem.reason)")
      }
    } else if !files.isEmpty || !summary.extractionErrors.isEmpty {
      console.note("(use -v to list them)")
    }
  }

  /// `items` joined by commas into lines of at most `width` columns (an item longer than a
  /// line gets one of its own), the first line starting with `indent`, the others with
  /// `continuation` (the same by default).
  static func wrapped(_ items: [String], width: Int, indent: String, continuation: String? = nil) -> [String]
  {
    var lines: [String] = []
    var line = ""
    for (index, item) in items.enumerated() {
      let piece = item + (index == items.count - 1 ? "" : ",")
      let lead = lines.isEmpty ? indent : continuation ?? indent
      if !line.isEmpty && lead.count + line.count + 1 + piece.count > width {
        lines.append(lead + line)
        line = piece
      } else {
        line += (line.isEmpty ? "" : " ") + piece
      }
    }
    if !line.isEmpty { lines.append((lines.isEmpty ? indent : continuation ?? indent) + line) }
    return lines
  }
}

/// A stop asked for by a signal handler, read by the indexer between batches.
final class StopRequest: Sendable {
  private let flag = Atomic<Bool>(false)
  func request() { flag.store(true, ordering: .relaxed) }
  var isRequested: Bool { flag.load(ordering: .relaxed) }
}
