import ShelfCatalog
import ShelfCore
import ShelfFacts

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf ls [QUERY…]`: list catalogued files that match a query.
enum LsCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let long = Flag("long", short: "l", help: "Show more columns: MIME type, area, modification time.")
  static let wide = Flag(
    "wide", short: "w",
    help: "On a terminal, print every cell whole instead of cutting rows to the width.")
  static let json = Flag("json", help: "Print one JSON array of records.")
  static let jsonl = Flag("jsonl", help: "Print one JSON record per line.")
  static let null = Flag("null", short: "0", help: "Print paths separated by NUL bytes, for xargs -0.")
  static let m3u = Flag(
    "m3u", help: "Print the matching audio files as an extended M3U playlist (paths as their bytes).")
  static let m3u8 = Flag(
    "m3u8", help: "Print them as a UTF-8 M3U8 playlist (paths that are not UTF-8 are left out).")
  static let format = Option(
    "format", short: "f", value: "template",
    help:
      "Print one line per entry from <template>, e.g. '{artist} - {title} ({duration})': fields as in the query language or --json.",
    completion: Completion.none)
  static let sort = Option(
    "sort", value: "field[:asc|:desc]",
    help:
      "Sort by a query field, e.g. size or mtime:desc (default: path); repeat to break ties (--sort artist --sort year).",
    repeatable: true, completion: .sortKeys)
  static let limit = TypedOption<Int?>(
    "limit", value: "n", help: "Print at most <n> entries.", parser: .integer(in: 0...Int.max),
    completion: Completion.none)

  static let command = Command(
    name: "ls",
    abstract: "List catalogued files that match a query.",
    discussion: """
      Prints the catalogue entries matching every QUERY term: an aligned table of path, kind, \
      size and the kind's key facts (width×height for images, duration for audio, encoding \
      and lines for text, format for plists); with --json one JSON array, with --jsonl one \
      JSON object per line, with -0 the bare absolute paths separated by NUL bytes for \
      xargs -0, with --format one line per entry from a template. Without a query every \
      entry is listed.

      --m3u and --m3u8 print the matching audio files (kind audio: videos are left out, \
      even with sound) as an extended M3U playlist for shelf play, mpv, cmus or VLC: \
      '#EXTM3U', then per file '#EXTINF:SECONDS,ARTIST - TITLE' (whole seconds, -1 when \
      unknown; the title alone without an artist, the file name without a title) and its \
      absolute path. --m3u writes a path's bytes as they are; --m3u8 is UTF-8 throughout, so \
      a path that is not UTF-8 is left out with a warning. Files inside iPhone backups have \
      no path to play and are left out with a note (shelf extract copies them out).

      Table paths are relative to the current folder when it is inside the entry's root (as \
      fd prints them), absolute otherwise. On a terminal the table has a header row, fits the \
      width and paths are coloured by kind, or by \
      LS_COLORS' *.ext, ln, ex and fi entries where they apply; NO_COLOR turns colour off. \
      Into a pipe rows are whole, with no header and no escape sequences. To fit the width, \
      the kind, MIME and area columns are cut first (to 6 columns), then long paths lose \
      what every row shares, so that the part telling rows apart stays: first the folders \
      all rows start with ('…/Backups/mbdb/…'), then the middle of the folders all rows end \
      with (the file name stays), and only then their own middle; the facts column loses \
      its end. The path never gets narrower than what tells rows apart with every file name \
      whole: for that room the other columns give way, the modified time to its day, the \
      facts to 6 columns, then left out: the facts, the tags from the right, the time and \
      the size. Only a terminal too narrow for the path alone cuts a file name. -w (--wide) \
      keeps every cell whole (long rows wrap).

      A --format template names fields in braces: '{artist} - {title} ({duration})'. Fields \
      are the query fields and the --json keys; {path} is absolute, {size} in bytes, \
      {duration} M:SS, {seconds} in seconds and {track} the track's number (the tag may \
      read 3/10); a number takes a width to pad with zeros ({track:02} is 03); a field the \
      entry lacks prints as nothing; \
      '{{' and '}}' are literal braces. An unknown field is a usage error, and so is beets' \
      $field spelling. Times are RFC 3339: mtime in the local zone with its offset \
      (2024-05-01T14:30:00+02:00, Z in UTC), taken with the offset the camera recorded or, \
      when it recorded none, without one. A date field takes a strftime(3) format after a \
      colon: '{taken:%Y-%m} {name}', '{mtime:%d %B %Y}'.

      Terms combine with AND; ',' between terms means OR; '-' before a term negates it. \
      Exits with status 1 when nothing matches. In short (the QUERY SYNTAX section of \
      shelf-ls(1) has every field):

        kind:image  ext:png    names: the whole value, any case
        name:'IMG_*.PNG'       name, path, root: globs (* ? [a-z])
                               case-sensitive only with capitals
        artist:beat            tags, comment, error: contains
        size>10M 'duration<3:00' year:1990..1999 mtime:-7d..
        -kind:image  kind:image,audio  holiday (any word)
      """,
    arguments: [
      ArgumentSpec(
        "query", help: "Query terms such as kind:image, size>1M or a word to search for.",
        optional: true, repeating: true, completion: .queryTerms)
    ],
    options: [long, wide, json, jsonl, null, m3u, m3u8, format, sort, limit],
    examples: [
      Example("shelf ls kind:image 'width>=1024'", "Images at least 1024 pixels wide."),
      Example("shelf ls kind:audio artist:beatles 'duration<3:00'", "Short songs by an artist."),
      Example("shelf ls mtime:-7d.. --sort mtime:desc", "What changed in the last week, newest first."),
      Example("shelf ls taken:2024-05 camera:iphone --sort taken", "May 2024's iPhone photos, oldest first."),
      Example(
        "shelf ls -kind:image,kind:audio area:documents", "Documents that are neither images nor audio."),
      Example("shelf ls holiday", "Files whose name, path, tags or text mention holiday."),
      Example("shelf ls -0 ext:png | xargs -0 shelf crush --in-place", "Crush every catalogued PNG."),
      Example("shelf ls -f '{artist} - {title} ({duration})' kind:audio", "One line per song, for scripts."),
      Example("shelf ls --m3u artist:beatles --sort album > beatles.m3u", "A playlist of an artist's songs."),
    ],
    manSections: [QueryTerms.syntax] + CatalogueManual.lsSections,
    acceptsNegatedTerms: true,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try LsOptions(invocation)
    let interrupts = InterruptExit.install()
    defer { interrupts.cancel() }
    let store = try await invocation.openCatalogue(for: options.query)
    let count: Int
    switch options.output {
    case .nullSeparated: count = try writePaths(store, options, console: invocation.console)
    case .jsonLines: count = try writeJSONLines(store, options, console: invocation.console)
    case .json: count = try writeJSON(store, options, console: invocation.console)
    case .template(let template): count = try write(template, store, options, console: invocation.console)
    case .playlist(let flavour):
      count = try writePlaylist(flavour, store, options, console: invocation.console)
    case .table(let long):
      count = try writeTable(
        store, options, long: long, console: invocation.console, environment: invocation.environment)
    }
    return count == 0 ? .partialFailure : .success
  }

  /// `-0`: the bare absolute paths, NUL after each.
  static func writePaths(_ store: CatalogStore, _ options: LsOptions, console: Console) throws -> Int {
    var count = 0
    try console.writeInBlocks { emit in
      for path in try store.paths(matching: options.query, sort: options.sort, limit: options.limit) {
        emit(path.bytes + [0])
        count += 1
      }
    }
    return count
  }

  /// `--m3u`, `--m3u8`: the audio entries as an extended M3U playlist; entries that cannot be
  /// in one (inside a backup, a path an M3U8 cannot hold) are left out and said so on stderr.
  static func writePlaylist(
    _ flavour: M3UWriter.Flavour, _ store: CatalogStore, _ options: LsOptions, console: Console
  ) throws -> Int {
    var count = 0
    var inBackups = 0
    try console.writeInBlocks { emit in
      emit(M3UWriter.header)
      try store.forEachEntry(matching: options.query, sort: options.sort, limit: options.limit) { entry in
        guard entry.kind == .audio, let audio = entry.audio else { return }
        guard entry.backup == nil else {
          inBackups += 1
          return
        }
        do {
          emit(
            try M3UWriter.entry(
              path: entry.path, duration: audio.duration, artist: audio.artist, title: audio.title,
              flavour: flavour))
          count += 1
        } catch {
          console.warning("\(entry.path.escaped): \(error)")
        }
      }
    }
    if inBackups > 0 {
      console.note(
        "left out \(inBackups) audio file\(inBackups == 1 ? "" : "s") inside iPhone backups, which have no path to play (shelf extract copies them out)"
      )
    }
    return count
  }

  /// `--jsonl`: one JSON record per line.
  static func writeJSONLines(_ store: CatalogStore, _ options: LsOptions, console: Console) throws -> Int {
    var count = 0
    let showHost = try store.hasSeveralHosts()
    try console.writeInBlocks { emit in
      try store.forEachEntry(matching: options.query, sort: options.sort, limit: options.limit) { entry in
        emit(Array((record(entry, showingHost: showHost).serialized() + "\n").utf8))
        count += 1
      }
    }
    return count
  }

  /// `--json`: one JSON array.
  static func writeJSON(_ store: CatalogStore, _ options: LsOptions, console: Console) throws -> Int {
    var records: [JSONValue] = []
    let showHost = try store.hasSeveralHosts()
    try store.forEachEntry(matching: options.query, sort: options.sort, limit: options.limit) {
      records.append(record($0, showingHost: showHost))
    }
    console.write(JSONValue.array(records).serialized(pretty: console.stdoutIsTerminal) + "\n")
    return records.count
  }

  /// An entry's JSON record, led by its host when the catalogue is shared by several machines.
  static func record(_ entry: CatalogEntry, showingHost: Bool) -> JSONValue {
    let record = CatalogPresentation.record(entry)
    guard showingHost, let host = entry.host, case .object(let fields) = record else { return record }
    return .object([("host", .string(host))] + fields)
  }

  /// `--format TEMPLATE`: the template filled in per entry, one line each, exact bytes.
  static func write(
    _ template: ListingTemplate, _ store: CatalogStore, _ options: LsOptions, console: Console
  ) throws -> Int {
    var count = 0
    try console.writeInBlocks { emit in
      try store.forEachEntry(matching: options.query, sort: options.sort, limit: options.limit) { entry in
        emit(template.render(entry) + [0x0A])
        count += 1
      }
    }
    return count
  }

  /// The table: path, kind, (with -l MIME type, area, time), size and key facts. Into a pipe
  /// the cells go straight into one buffer (`TableCells`), as they are printed whole and
  /// uncoloured; a terminal's rows are kept as strings, to be fitted to its width.
  static func writeTable(
    _ store: CatalogStore, _ options: LsOptions, long: Bool, console: Console, environment: [String: String]
  ) throws -> Int {
    let paths = ListingPaths(currentFolder: currentFolder(), roots: try store.localRoots().map(\.path))
    // A catalogue shared by several machines names each entry's host.
    let hostPrefix: (CatalogEntry) -> String =
      try store.hasSeveralHosts() ? { ($0.host ?? "") + ":" } : { _ in "" }
    var columns = [ListingColumn(header: "KIND", rightAligned: false, isTag: true)]
    if long {
      columns += [
        ListingColumn(header: "MIME", rightAligned: false, isTag: true),
        ListingColumn(header: "AREA", rightAligned: false, isTag: true),
        // Cut, a time keeps its day.
        ListingColumn(header: "MODIFIED", rightAligned: false, cutWidth: 11),
      ]
    }
    columns += [
      ListingColumn(header: "SIZE", rightAligned: true),
      ListingColumn(header: "FACTS", rightAligned: false),
    ]
    let layout = ListingLayout(
      columns: columns, isTerminal: console.stdoutIsTerminal, width: console.width, wide: options.wide)
    guard layout.isTerminal else {
      var cells = TableCells()
      try store.forEachEntry(
        matching: options.query, sort: options.sort, limit: options.limit, listing: true
      ) { entry in
        cells.append(hostPrefix(entry) + CatalogPresentation.display(paths.shown(entry.path)))
        tableCells(entry, long: long) { cells.append($0) }
        cells.endRow()
      }
      if cells.rowCount > 0 { layout.pipeRenderer.render(cells) { console.writeBytes($0) } }
      return cells.rowCount
    }
    let colors = console.colorEnabled ? PathColors(lsColors: environment["LS_COLORS"]) : nil
    var rows: [ListingRow] = []
    try store.forEachEntry(
      matching: options.query, sort: options.sort, limit: options.limit, listing: true
    ) { entry in
      var cells: [String] = []
      tableCells(entry, long: long) { cells.append($0) }
      let style = colors.flatMap { colors in
        let status = colors.needsFileModes ? try? FileStatus.lstat(entry.path) : nil
        return colors.style(
          path: entry.path, kind: entry.kind, failed: entry.error != nil,
          isLink: status?.type == .symbolicLink, isExecutable: (status?.mode ?? 0) & 0o111 != 0)
      }
      rows.append(
        ListingRow(
          path: hostPrefix(entry) + CatalogPresentation.display(paths.shown(entry.path)), style: style,
          cells: cells))
    }
    if !rows.isEmpty { layout.render(rows) { console.write($0) } }
    return rows.count
  }

  /// The cells of an entry's row after its path, handed to `add` in order: kind, (with -l MIME
  /// type, area, time), size, and the key facts (with -l followed by the error).
  static func tableCells(_ entry: CatalogEntry, long: Bool, _ add: (String) -> Void) {
    add(entry.kind.rawValue)
    if long {
      add(entry.mime)
      add(entry.area.rawValue)
      add(CatalogPresentation.isoDate(entry.mtimeNanoseconds))
    }
    add(Quantities.formatByteSize(entry.size))
    var facts = CatalogPresentation.keyFacts(entry)
    if long, let error = entry.error { facts += (facts.isEmpty ? "" : "  ") + "error: " + error.reason }
    add(facts)
  }

  /// The current folder as `getcwd` gives it (symbolic links resolved), or nil when unknown.
  static func currentFolder() -> RawPath? {
    guard let pointer = getcwd(nil, 0) else { return nil }
    defer { free(pointer) }
    return RawPath(bytes: Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
  }
}

/// The options of one `shelf ls`, read once from the command line.
struct LsOptions {
  /// How the matching entries are printed.
  enum Output {
    /// The table (with `-l`, its long form).
    case table(long: Bool)
    case template(ListingTemplate)
    case json
    case jsonLines
    case nullSeparated
    /// `--m3u`, `--m3u8`.
    case playlist(M3UWriter.Flavour)
  }

  var query: CatalogQuery
  /// Sort keys, primary first; empty sorts by path.
  var sort: [CatalogSort]
  var limit: Int?
  var output: Output
  /// `-w`: table cells are never cut to the terminal's width.
  var wide: Bool

  /// Reads and checks the options; conflicting output modes are a usage error.
  init(_ invocation: Invocation) throws {
    let arguments = invocation.arguments
    // A playlist holds audio only: the query says so, so that other kinds are not read.
    let playlist = arguments[LsCommand.m3u] || arguments[LsCommand.m3u8]
    query = try QueryTerms.query(
      arguments.positionals.map(\.string), adding: playlist ? ["kind:audio"] : [],
      environment: invocation.environment)
    sort = try arguments.values(LsCommand.sort).map { text in
      do { return try CatalogSort(text) } catch { throw invocation.usageError("--sort: \(error)") }
    }
    limit = arguments[LsCommand.limit]
    wide = arguments[LsCommand.wide]
    let modes =
      ([LsCommand.json, LsCommand.jsonl, LsCommand.null, LsCommand.m3u, LsCommand.m3u8, LsCommand.format]
      as [any OptionKey])
      .filter(arguments.isGiven)
    if modes.count > 1 {
      throw invocation.usageError("--\(modes[0].spec.long) and --\(modes[1].spec.long) cannot be combined")
    }
    let format = arguments[LsCommand.format]
    if format != nil && arguments[LsCommand.long] {
      throw invocation.usageError("--format and --long cannot be combined")
    }
    if let format {
      do {
        output = .template(try ListingTemplate(format))
      } catch {
        throw invocation.usageError("--format: \(error.reason)")
      }
    } else if arguments[LsCommand.json] {
      output = .json
    } else if arguments[LsCommand.jsonl] {
      output = .jsonLines
    } else if arguments[LsCommand.null] {
      output = .nullSeparated
    } else if arguments[LsCommand.m3u] {
      output = .playlist(.m3u)
    } else if arguments[LsCommand.m3u8] {
      output = .playlist(.m3u8)
    } else {
      output = .table(long: arguments[LsCommand.long])
    }
  }
}

/// How catalogue entries are shown: JSON records (the field names scripts rely on) and the
/// short facts of table rows. Shared by ls, info and show.
enum CatalogPresentation {
  /// The JSON record of an entry, with the names documented for `ls --json` and `info --json`:
  /// the fields of `FactField.table`, each group's in its object; `catalogued` (info, show)
  /// says whether the catalogue held the facts.
  static func record(_ entry: CatalogEntry, catalogued: Bool? = nil) -> JSONValue {
    var record: [(String, JSONValue)] = []
    var objects: [(key: String, members: [(String, JSONValue)])] = []
    for group in FactGroup.allCases where group.isPresent(in: entry) {
      var members: [(String, JSONValue)] = []
      for field in FactField.fields(in: group) {
        let value = field.value(entry)
        switch field.json {
        case .none: continue
        case .whenPresent: if !isShown(value) { continue }
        case .always: break
        }
        members += json(field.name, value)
      }
      guard let key = group.object else {
        if group == .entry, let catalogued {
          members.insert(
            ("catalogued", .bool(catalogued)), at: members.firstIndex { $0.0 == "error" } ?? members.count)
        }
        flushObjects(&objects, into: &record)
        record += members
        continue
      }
      if objects.last?.key == key {
        objects[objects.count - 1].members += members
      } else {
        objects.append((key, members))
      }
    }
    flushObjects(&objects, into: &record)
    return .object(record)
  }

  /// Moves the objects gathered so far into the record, in order.
  private static func flushObjects(
    _ objects: inout [(key: String, members: [(String, JSONValue)])], into record: inout [(String, JSONValue)]
  ) {
    record += objects.map { ($0.key, .object($0.members)) }
    objects = []
  }

  /// False for what a field printed only when present lacks: no value, false, an empty list.
  private static func isShown(_ value: FactValue?) -> Bool {
    switch value {
    case nil, .bool(false): false
    case .list(let items): !items.isEmpty
    default: true
    }
  }

  /// A field's JSON members: one, or for a path also its bytes (`path_b64`) when not UTF-8.
  private static func json(_ name: String, _ value: FactValue?) -> [(String, JSONValue)] {
    if case .path(let path) = value { return JSONValue.pathFields(path, key: name) }
    return [(name, json(value))]
  }

  private static func json(_ value: FactValue?) -> JSONValue {
    switch value {
    case nil: .null
    case .text(let text): .string(text)
    case .integer(let number): .int(number)
    case .real(let number): .double(number)
    case .bool(let flag): .bool(flag)
    case .path(let path): .string(String(decoding: path.bytes, as: UTF8.self))
    case .list(let items): .array(items.map { .string($0) })
    case .object(let members): .object(members.map { ($0.0, json($0.1)) })
    }
  }

  /// The short facts of a table row: `120×120 rgba`, `0:02 44100 Hz 2 ch`, `0:01 1920×1080 h264
  /// 90° +aac`, `utf-8 6 lines`.
  static func keyFacts(_ entry: CatalogEntry) -> String {
    if let image = entry.image {
      var text = "\(image.width)×\(image.height)"
      if let color = image.colorType { text += " \(color.rawValue)" }
      if let depth = image.bitDepth, depth != 8 { text += " \(depth)-bit" }
      if image.cgbi == true { text += " CgBI" }
      if let frames = image.frames, frames > 1 { text += " \(frames) frames" }
      return text
    }
    if let audio = entry.audio {
      var text =
        "\(Quantities.formatDuration(audio.duration)) \(audio.container) \(audio.sampleRate) Hz \(audio.channels) ch"
      let who = [audio.artist, audio.title].compactMap { $0 }.joined(separator: " – ")
      if !who.isEmpty { text += "  " + who }
      return text
    }
    if let video = entry.video {
      var text = "\(Quantities.formatDuration(video.duration)) \(video.width)×\(video.height) \(video.codec)"
      if video.rotation != 0 { text += " \(video.rotation)°" }
      if let sound = video.audioCodec { text += " +\(sound)" }
      return text
    }
    if let text = entry.text {
      return
        "\(text.encoding.rawValue)\(text.bom ? "+bom" : "") \(text.lines) line\(text.lines == 1 ? "" : "s")"
    }
    if let plist = entry.plist {
      let keys = plist.root == "dictionary" ? " \(plist.keys.count) keys" : ""
      return "\(plist.format.rawValue) \(plist.root)\(keys)"
    }
    if let error = entry.error { return "error: \(error.reason)" }
    return entry.mime
  }

  /// A path for a terminal: as is when plain printable ASCII (the common, fast case), else
  /// escaped the way `RawPath.escaped` does.
  static func display(_ path: RawPath) -> String {
    if path.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
      return String(decoding: path.bytes, as: UTF8.self)
    }
    return path.escaped
  }

  /// A modification or scan time in RFC 3339, in the local zone with its offset:
  /// `2024-05-17T12:30:00+02:00` (`Z` when the zone is UTC).
  static func isoDate(_ nanoseconds: Int64) -> String { Timestamp.local(nanoseconds: nanoseconds) }

  /// When a photo was taken or a video filmed, in RFC 3339 with the offset the camera
  /// recorded (QuickTime's `+0200` as `+02:00`), or none when it recorded none.
  static func taken(_ text: String?) -> String? { text.map { Timestamp.normalized($0) } }
}
