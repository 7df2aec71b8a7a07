import ShelfCatalog
import ShelfCore

/// `shelf dupes [QUERY…]`: groups of catalogued files with identical content. Parsing and
/// presentation only: `DuplicateFinder` compares, `DuplicateActions` acts.
enum DupesCommand {
  static let json = Flag("json", help: "Print the groups as one JSON array.")
  static let jsonl = Flag("jsonl", help: "Print one JSON group per line.")
  static let null = Flag(
    "null", short: "0", help: "Print the duplicates an action would touch, NUL after each, for xargs -0.")
  static let empty = Flag("empty", help: "Include zero-length files (left out by default).")
  static let minSize = TypedOption<Int64?>(
    "min-size", value: "size", help: "Leave out files smaller than <size> (e.g. 100k, 1M).",
    parser: .byteSize(), completion: Completion.none)
  static let reference = Option(
    "reference", value: "dir",
    help: "Always keep the files under <dir>; show only groups with a file outside it (repeatable).",
    repeatable: true, completion: .directory)
  static let keep = TypedOption(
    "keep", value: "rule", help: "Which file of a group is kept.", parser: .cases,
    default: DuplicateKeepRule.oldest)

  static let link = TypedOption<DuplicateAction?>(
    "link", value: "kind",
    help: "Replace each duplicate not kept by a hard link or a reflink to the kept file.",
    parser: .choices([DuplicateAction.hardLink, .reflink], named: { $0.rawValue }),
    completion: Completion.none)
  static let trash = Flag("trash", help: "Move each duplicate not kept to the freedesktop.org trash.")
  static let dryRun = Flag("dry-run", help: "Print what --link or --trash would do; change nothing.")

  static let similar = Flag(
    "similar", help: "Group images that look alike and recordings that sound alike, not only identical files."
  )
  static let distance = TypedOption(
    "distance", value: "bits", help: "With --similar: how many bits of 64 two images' hashes may differ.",
    parser: .integer(in: 0...64), default: SimilarityGrouping.defaultImageDistance,
    completion: Completion.none)

  static let command = Command(
    name: "dupes",
    abstract: "List catalogued files with identical content, across roots and backups.",
    discussion: """
      Groups the catalogued files matching the QUERY terms (every file when none is given) \
      whose contents are identical, byte for byte, across every root, the entries of iPhone \
      backups included (an encrypted backup's by their decrypted content; one without its \
      password is skipped with a warning). Hard links to one inode are one file, listed once \
      with their number of links, never a duplicate of themselves. Zero-length files are left \
      out unless --empty is given.

      Only files whose size is shared are read: first their first and last 4 KiB, then, for \
      those that still match, the whole content, hashed with XXH3-128. The hashes are kept in \
      the catalogue keyed by device, inode, size and times, so a second shelf dupes over an \
      unchanged tree reads no file content. Every candidate is lstat'ed first: a file changed \
      since is hashed again, a gone one dropped. The hashes are written in one short write \
      under the catalogue's writer lock; when another shelf holds it, or the catalogue cannot \
      be written, they are used unstored (one warning) and computed again next time.

      Each group keeps one file (--keep: the oldest modification time by default, then the \
      shortest path; first-root means the first root shelf roots lists). Files under a \
      --reference folder are always kept, and a group is shown only when a file outside the \
      reference folders has the content. Backup entries are always kept: no action touches \
      them.

      The table shows each group's size and hash, then its files, the kept ones first. \
      --json prints an array of groups, --jsonl one group per line: {"size", "hash", \
      "files": [{"path", "path_b64" (when the path is not UTF-8), "root", "keep", "links"}]}. \
      -0 prints only the files an action would touch (the ones not kept).

      Nothing is changed unless an action is given. --link hard replaces each file not kept \
      by a hard link to the kept one (same filesystem only: a link to a temporary name in the \
      same folder, renamed over the file, so the name never goes missing); --link reflink by a \
      copy sharing the kept file's blocks (FICLONE: Btrfs, XFS; elsewhere an error for each \
      file); --trash moves each to the freedesktop.org trash ($XDG_DATA_HOME/Trash, or for a \
      file on another filesystem that filesystem's .Trash-UID, never copied across). Every \
      name of a file not kept is acted on. Right before, each file is checked again: a file \
      changed since it was hashed, or no longer identical byte for byte to the kept one, is \
      skipped with a warning, and so is one replaced or changed between that check and the \
      action; every step happens in the file's folder as opened for the check, never \
      through a path that may have changed since. The catalogue is updated in the same run, under its writer \
      lock (exit 75 when another shelf holds it): a linked file gets its new inode, a \
      trashed one leaves the catalogue. --dry-run prints what would be done. Backup entries \
      and files under --reference folders are never acted on.

      --similar groups files that are not identical but show one picture or one recording: \
      images by a perceptual hash (a DCT hash of a small decoded copy: resized, recompressed \
      and format-converted copies of a photograph stay within 2 of 64 bits, distinct \
      photographs 20 or more apart), at most --distance bits from the group's best image \
      (most pixels, then bytes; default 6); audio files by a Chromaprint fingerprint (the \
      same recording in MP3, Opus and FLAC; the first 120 s compared, recordings of lengths \
      within 5 s). The decoding happens in the sandboxed extraction workers, as indexing's \
      does: a file that crashes or hangs a decoder is skipped with a warning. Each group \
      shows its distance (bits for images; for audio 1 minus the least similarity, 0 for \
      identical) and its best file first (most pixels; lossless, then the highest bit rate), \
      marked best; -0 prints the others. --similar only lists: it cannot be combined with \
      an action.

      A catalogued file gone since the last index is left out with a warning where its size \
      was shared (it may have had a copy). When no group is found, 'no duplicates among N \
      files' is said on stderr.

      The exit status is 0 when groups were found (and every action was done), 1 when none \
      were found or some file was skipped or failed; when every file failed, the failure's \
      own (65 when each was skipped, 73 when none could be replaced).
      """,
    arguments: [
      ArgumentSpec(
        "query", help: "Query terms such as kind:image or root:~/Pictures (as for shelf ls).", optional: true,
        repeating: true,
        completion: .queryTerms)
    ],
    options: [json, jsonl, null, empty, minSize, reference, keep, link, trash, dryRun, similar, distance],
    examples: [
      Example("shelf dupes", "Every group of identical files in the catalogue."),
      Example("shelf dupes kind:image --min-size 1M", "Identical photos of 1 MB or more."),
      Example(
        "shelf dupes --reference ~/Pictures -0 | xargs -0 ls -l",
        "The files that are copies of ones in ~/Pictures."),
      Example("shelf dupes --keep newest --json", "Groups as JSON, the newest file of each kept."),
      Example("shelf dupes --link hard --dry-run root:~/Music", "What hard links would replace the copies."),
      Example(
        "shelf dupes --reference ~/Pictures --trash", "Trash the copies of photos already in ~/Pictures."),
    ],
    acceptsNegatedTerms: true,
    run: run)

  /// How the groups are printed.
  enum Output {
    case table, json, jsonLines, nullSeparated
  }

  /// The options of one `shelf dupes`, read once from the command line.
  struct Options {
    var query: CatalogQuery
    var settings = DuplicateSettings()
    var output = Output.table
    var action: DuplicateAction?
    var dryRun: Bool
    /// `--similar`: the largest distance of images in bits.
    var similarDistance: Int?
    /// How long to wait for another writer before an action (`Invocation.lockWait`).
    var lockWait: Double

    init(_ invocation: Invocation) throws {
      let arguments = invocation.arguments
      query = try QueryTerms.query(arguments.positionals.map(\.string), environment: invocation.environment)
      let modes = ([DupesCommand.json, DupesCommand.jsonl, DupesCommand.null] as [any OptionKey]).filter(
        arguments.isGiven)
      if modes.count > 1 {
        throw invocation.usageError("--\(modes[0].spec.long) and --\(modes[1].spec.long) cannot be combined")
      }
      if arguments[DupesCommand.json] {
        output = .json
      } else if arguments[DupesCommand.jsonl] {
        output = .jsonLines
      } else if arguments[DupesCommand.null] {
        output = .nullSeparated
      }
      settings.includeEmpty = arguments[DupesCommand.empty]
      if let minimum = arguments[DupesCommand.minSize] {
        settings.minimumSize = minimum
      }
      settings.referenceRoots = arguments.paths(DupesCommand.reference).map { path in
        let absolute = path.absolute
        return (try? TreeWalker.realPath(absolute)) ?? absolute
      }
      settings.keep = arguments[DupesCommand.keep]
      dryRun = arguments[DupesCommand.dryRun]
      lockWait = try invocation.lockWait()
      if let link = arguments[DupesCommand.link] {
        guard !arguments[DupesCommand.trash] else {
          throw invocation.usageError("--link and --trash cannot be combined")
        }
        action = link
      } else if arguments[DupesCommand.trash] {
        action = .trash
      }
      if action == nil && dryRun { throw invocation.usageError("--dry-run goes with --link or --trash") }
      if arguments[DupesCommand.similar] {
        guard action == nil else {
          throw invocation.usageError("--similar only lists: --link and --trash act on identical files only")
        }
        similarDistance = arguments[DupesCommand.distance]
      } else if arguments.isGiven(DupesCommand.distance) {
        throw invocation.usageError("--distance goes with --similar")
      }
      if action != nil, let mode = modes.first {
        throw invocation.usageError("--\(mode.spec.long) cannot be combined with an action")
      }
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try Options(invocation)
    let console = invocation.console
    let interrupts = InterruptExit.install()
    defer { interrupts.cancel() }
    let store = try await invocation.openCatalogue(for: options.query)
    if let distance = options.similarDistance {
      let entries = try store.entriesToCompare(matching: options.query)
      return try await listSimilar(entries, distance: distance, options, invocation)
    }
    let finder = DuplicateFinder(store: store, backups: BackupPasswordInput(invocation).resolver())
    let report = try await finder.find(matching: options.query, settings: options.settings)
    invocation.finishContentSearch(report, in: store)
    if invocation.globals.verbose {
      // What the hash cache saved: an unchanged tree's second search reads nothing.
      console.note(
        "read \(report.contentsRead) file\(report.contentsRead == 1 ? "" : "s") (\(Quantities.formatByteSize(report.bytesRead))) to compare contents"
      )
    }
    if let action = options.action, !report.groups.isEmpty {
      return try act(action, on: report.groups, options, invocation)
    }
    if options.action == nil { write(report.groups, options.output, console: console) }
    guard !report.groups.isEmpty else {
      // Said, so that an empty answer is not taken for a search that did not run.
      let count = report.searched.count
      console.note("no duplicates among \(count) file\(count == 1 ? "" : "s")")
      return .partialFailure
    }
    if options.output == .table { console.note(summary(report.groups)) }
    return .success
  }

  /// `--similar`: groups of look-alikes, listed as `output` says.
  static func listSimilar(
    _ entries: [CatalogEntry], distance: Int, _ options: Options, _ invocation: Invocation
  ) async throws -> ExitStatus {
    let console = invocation.console
    let finder = SimilarFinder(
      extractors: invocation.extractionWorkers(),
      backups: BackupPasswordInput(invocation).resolver(),
      temporaryFolder: invocation.temporaryFolder)
    let report = await finder.find(
      entries, maxDistance: distance, width: options.settings.width,
      referenceRoots: options.settings.referenceRoots)
    for skipped in report.skipped { console.warning("\(skipped.description); skipped") }
    let groups = report.groups
    present(
      options.output, console: console, table: { similarTable(groups) }, records: { groups.map(record) },
      paths: { groups.flatMap { $0.members.dropFirst().map(\.path) } })
    return groups.isEmpty ? .partialFailure : .success
  }

  /// The table of look-alikes: each group's size and distance, then its files, the best first.
  static func similarTable(_ groups: [SimilarGroup]) -> String {
    var text = ""
    for (index, group) in groups.enumerated() {
      if index > 0 { text += "\n" }
      let what = group.kind == .image ? "images" : "recordings"
      let within =
        group.kind == .image
        ? "\(Int(group.distance)) bit\(group.distance == 1 ? "" : "s") apart at most"
        : "distance \(Quantities.formatFixed(group.distance, decimals: 2)) at most"
      text += "\(group.members.count) similar \(what), \(within)\n"
      for (position, member) in group.members.enumerated() {
        text += "  \(position == 0 ? "best" : "    ")  \(member.path.escaped)\(similarFacts(member))\n"
      }
    }
    return text
  }

  /// What makes one look-alike better than another: its pixels, or its encoding and bit rate.
  static func similarFacts(_ entry: CatalogEntry) -> String {
    if let image = entry.image {
      return "  (\(image.width)×\(image.height), \(Quantities.formatByteSize(entry.size)))"
    }
    if let audio = entry.audio {
      let rate = audio.bitrate.map { ", \($0 / 1000) kb/s" } ?? ""
      return "  (\(audio.codec.isEmpty ? audio.formatName : audio.codec)\(rate))"
    }
    return ""
  }

  /// A group of look-alikes as JSON: its kind and distance, its files with the best marked.
  static func record(_ group: SimilarGroup) -> JSONValue {
    .object([
      ("kind", .string(group.kind.rawValue)),
      ("distance", .double(group.distance)),
      (
        "files",
        .array(
          group.members.enumerated().map { position, member in
            .object(
              JSONValue.pathFields(member.path) + [
                ("root", member.root.map { .string(String(decoding: $0.bytes, as: UTF8.self)) } ?? .null),
                ("size", .int(member.size)),
                ("best", .bool(position == 0)),
              ])
          })
      ),
    ])
  }

  /// Carries out `action` (or, with --dry-run, says what it would do), a line per name.
  static func act(
    _ action: DuplicateAction, on groups: [DuplicateGroup], _ options: Options, _ invocation: Invocation
  )
    throws -> ExitStatus
  {
    let console = invocation.console
    let writer = try invocation.openCatalogueForWriting(lockWait: options.lockWait, create: false)
    let actions = DuplicateActions(
      action: action, dryRun: options.dryRun, trash: FreedesktopTrash(environment: invocation.environment),
      beforeAction: CrushCommand.testPauseBeforeRename(invocation.environment))
    var outcome = BatchOutcome()
    var bytes: Int64 = 0
    let verb =
      switch action {
      case .hardLink: options.dryRun ? "would link" : "linked"
      case .reflink: options.dryRun ? "would reflink" : "reflinked"
      case .trash: options.dryRun ? "would trash" : "trashed"
      }
    _ = try actions.apply(groups, writer: writer) { report in
      switch report.outcome {
      case .done(let trashedTo):
        outcome.succeeded()
        bytes += report.size
        let detail =
          action == .trash
          ? trashedTo.map { " (to \($0.escaped))" } ?? "" : " -> \(report.kept.escaped)"
        console.write("\(verb) \(report.path.escaped)\(detail)\n")
      case .skipped(let reason):
        outcome.failed(.badInput)
        console.warning("\(report.path.escaped): \(reason); skipped")
      case .failed(let error):
        outcome.failed(error, console: console)
      }
    }
    let done = outcome.successes
    console.note(
      "\(verb) \(done) file\(done == 1 ? "" : "s") (\(Quantities.formatByteSize(bytes)))"
        + (outcome.failures.isEmpty ? "" : ", \(outcome.failures.count) skipped or failed"))
    return outcome.exitStatus
  }

  /// Prints the groups as `output` says.
  static func write(_ groups: [DuplicateGroup], _ output: Output, console: Console) {
    present(
      output, console: console, table: { table(groups) }, records: { groups.map(record) },
      paths: { groups.flatMap { $0.duplicates.map(\.file.path) } })
  }

  /// Prints a listing of groups: the table, the JSON records (an array, or one a line), or the
  /// paths `-0` gives (what an action would touch, or the look-alikes that are not the best).
  static func present(
    _ output: Output, console: Console, table: () -> String, records: () -> [JSONValue],
    paths: () -> [RawPath]
  ) {
    switch output {
    case .table:
      console.write(table())
    case .json:
      console.write(JSONValue.array(records()).serialized(pretty: console.stdoutIsTerminal) + "\n")
    case .jsonLines:
      console.writeInBlocks { emit in
        for record in records() { emit(Array((record.serialized() + "\n").utf8)) }
      }
    case .nullSeparated:
      console.writeInBlocks { emit in
        for path in paths() { emit(path.bytes + [0]) }
      }
    }
  }

  /// The table of identical files: each group's size and hash, then its files, the kept first.
  static func table(_ groups: [DuplicateGroup]) -> String {
    var text = ""
    for (index, group) in groups.enumerated() {
      if index > 0 { text += "\n" }
      let size = Quantities.formatByteSize(group.size)
      text += "\(group.members.count) files of \(size) (\(group.size) bytes), xxh128 \(group.hash)\n"
      for member in group.members {
        let mark = member.keep ? "keep" : "    "
        let links = member.links > 1 ? "  (\(member.links) links)" : ""
        let backup = member.isBackupEntry ? "  (in a backup)" : ""
        text += "  \(mark)  \(member.file.path.escaped)\(links)\(backup)\n"
      }
    }
    return text
  }

  /// A group's JSON record (`--json`, `--jsonl`).
  static func record(_ group: DuplicateGroup) -> JSONValue {
    .object([
      ("size", .int(group.size)),
      ("hash", .string(group.hash.description)),
      (
        "files",
        .array(
          group.members.map { member in
            .object(
              JSONValue.pathFields(member.file.path) + [
                (
                  "root",
                  member.file.root.map { .string(String(decoding: $0.bytes, as: UTF8.self)) } ?? .null
                ),
                ("keep", .bool(member.keep)),
                ("links", .int(Int64(member.links))),
              ])
          })
      ),
    ])
  }

  /// The line after the table: groups, files not kept and the space they take.
  static func summary(_ groups: [DuplicateGroup]) -> String {
    let duplicates = groups.reduce(0) { $0 + $1.duplicates.count }
    let bytes = groups.reduce(Int64(0)) { $0 + $1.size * Int64($1.duplicates.count) }
    let groupWord = groups.count == 1 ? "group" : "groups"
    return
      "\(groups.count) \(groupWord), \(duplicates) duplicate\(duplicates == 1 ? "" : "s") not kept (\(Quantities.formatByteSize(bytes)))"
  }
}
