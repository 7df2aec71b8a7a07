import ShelfCatalog
import ShelfCore

/// `shelf roots`: the catalogued roots with their file count, size, last scan and excludes.
enum RootsCommand {
  static let command = Command(
    name: "roots",
    abstract: "List the catalogued roots.",
    discussion: """
      Prints each catalogued root: its path, the number and total size of its catalogued \
      files, when it was last scanned and the --exclude patterns stored with it. A root whose \
      folder is gone is marked so; shelf index skips it until shelf forget or index --prune \
      drops it. An iPhone backup's root is followed by a line naming the device, its iOS \
      version, the backup's date and whether it is encrypted. The catalogue is opened \
      read-only.
      """,
    options: [
      OptionSpec("json", help: "Print the roots as a JSON array.")
    ],
    examples: [
      Example("shelf roots", "List the roots."),
      Example("shelf roots --json | jq -r '.[].path'", "The roots' paths, one per line."),
    ],
    run: run)

  /// The options of one `shelf roots` run.
  struct Options {
    /// `--json`: a JSON array instead of a table.
    var json: Bool

    init(_ arguments: ParsedArguments) {
      json = arguments.flag("json")
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = Options(invocation.arguments)
    let listings = try invocation.openCatalogueForReading().rootListings()
    let console = invocation.console
    // A catalogue shared by several machines names each root's host.
    let showHost = Set(listings.map(\.root.host)).count > 1
    if options.json {
      let records = listings.map { json($0, showingHost: showHost) }
      console.write(JSONValue.array(records).serialized(pretty: console.stdoutIsTerminal) + "\n")
    } else if !listings.isEmpty {
      console.write(text(listings, showingHost: showHost))
    }
    return .success
  }

  static func json(_ listing: CatalogRootListing, showingHost: Bool = false) -> JSONValue {
    let root = listing.root
    var fields = JSONValue.pathFields(root.path)
    if showingHost, let host = root.host { fields.insert(("host", .string(host)), at: 0) }
    fields += [
      ("files", .int(Int64(listing.files))), ("size", .int(listing.size)),
      ("last_scan", root.lastScanNanoseconds.map { .string(CatalogPresentation.isoDate($0)) } ?? .null),
      ("excludes", .array(root.excludes.map { .string($0) })), ("folder_gone", .bool(root.folderIsGone)),
    ]
    if let backup = root.backup { fields.append(("backup", BackupPresentation.json(backup))) }
    return .object(fields)
  }

  static func text(_ listings: [CatalogRootListing], showingHost: Bool = false) -> String {
    var rows = [["root", "files", "size", "last scan", "excludes"]]
    for listing in listings {
      let root = listing.root
      rows.append([
        root.displayName(showingHost: showingHost) + (root.folderIsGone ? " (folder gone)" : ""),
        "\(listing.files)",
        Quantities.formatByteSize(listing.size),
        root.lastScanNanoseconds.map(CatalogPresentation.isoDate) ?? "never",
        root.excludes.joined(separator: " "),
      ])
    }
    let lines = TableRenderer(alignments: [.left, .right, .right, .left, .left]).render(rows).map { line in
      var trimmed = Substring(line)
      while trimmed.last == " " { trimmed = trimmed.dropLast() }
      return String(trimmed)
    }
    var text = lines.joined(separator: "\n") + "\n"
    for listing in listings {
      guard let backup = listing.root.backup else { continue }
      text +=
        "\(listing.root.displayName(showingHost: showingHost)): backup of \(BackupPresentation.describe(backup))\n"
    }
    return text
  }
}
