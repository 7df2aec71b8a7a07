import ShelfCatalog
import ShelfCore

/// `shelf roots`: the catalogued roots with their file count, size, last scan and excludes.
enum RootsCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let json = Flag("json", help: "Print the roots as a JSON array.")

  static let command = Command(
    name: "roots",
    abstract: "List the catalogued roots.",
    discussion: """
      Prints each catalogued root: its path, the number and total size of its catalogued \
      files, when it was last scanned and the --exclude patterns stored with it. A root whose \
      folder is gone is marked so; shelf index skips it until shelf forget or index --prune \
      drops it. An iPhone backup's root is followed by a line naming the device, its iOS \
      version, the backup's date and whether it is encrypted. The backups found inside an \
      indexed folder are roots of their own, listed (indented) under the folder's root; with \
      --json they are the "nested" array of that root's object. The catalogue is opened \
      read-only.
      """,
    options: [json],
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
      json = arguments[RootsCommand.json]
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = Options(invocation.arguments)
    let listings = try invocation.openCatalogueForReading().rootListings()
    let console = invocation.console
    // A catalogue shared by several machines names each root's host.
    let showHost = Set(listings.map(\.root.host)).count > 1
    let tree = RootTree(listings)
    if options.json {
      let records = tree.top.map { json($0, in: tree, showingHost: showHost) }
      console.write(JSONValue.array(records).serialized(pretty: console.stdoutIsTerminal) + "\n")
    } else if !listings.isEmpty {
      console.write(text(listings, showingHost: showHost))
    }
    return .success
  }

  /// The roots as a tree: those named to `index` at the top, in path order, each with the
  /// backups found in it (a root whose parent is not listed is at the top too).
  struct RootTree {
    var top: [CatalogRootListing] = []
    private var children: [Int64: [CatalogRootListing]] = [:]

    init(_ listings: [CatalogRootListing]) {
      let ids = Set(listings.map(\.root.id))
      for listing in listings {
        if let parent = listing.root.parentID, ids.contains(parent) {
          children[parent, default: []].append(listing)
        } else {
          top.append(listing)
        }
      }
    }

    func nested(_ listing: CatalogRootListing) -> [CatalogRootListing] { children[listing.root.id] ?? [] }
  }

  /// A root's `roots --json` object, with the roots found in it (`tree`) as its `nested` array.
  static func json(_ listing: CatalogRootListing, in tree: RootTree? = nil, showingHost: Bool = false)
    -> JSONValue
  {
    let root = listing.root
    var fields = JSONValue.pathFields(root.path)
    if showingHost, let host = root.host { fields.insert(("host", .string(host)), at: 0) }
    fields += [
      ("files", .int(Int64(listing.files))), ("size", .int(listing.size)),
      ("last_scan", root.lastScanNanoseconds.map { .string(CatalogPresentation.isoDate($0)) } ?? .null),
      ("excludes", .array(root.excludes.map { .string($0) })), ("folder_gone", .bool(root.folderIsGone)),
    ]
    if let backup = root.backup { fields.append(("backup", BackupPresentation.json(backup))) }
    if let nested = tree?.nested(listing), !nested.isEmpty {
      fields.append(("nested", .array(nested.map { json($0, in: tree, showingHost: showingHost) })))
    }
    return .object(fields)
  }

  static func text(_ listings: [CatalogRootListing], showingHost: Bool = false) -> String {
    let tree = RootTree(listings)
    var ordered: [(listing: CatalogRootListing, depth: Int)] = []
    func add(_ listing: CatalogRootListing, depth: Int) {
      ordered.append((listing, depth))
      for inner in tree.nested(listing) { add(inner, depth: depth + 1) }
    }
    for listing in tree.top { add(listing, depth: 0) }
    var rows = [["root", "files", "size", "last scan", "excludes"]]
    for (listing, depth) in ordered {
      let root = listing.root
      rows.append([
        String(repeating: "  ", count: depth) + root.displayName(showingHost: showingHost)
          + (root.folderIsGone ? " (folder gone)" : ""),
        "\(listing.files)",
        Quantities.formatByteSize(listing.size),
        root.lastScanNanoseconds.map(CatalogPresentation.isoDate) ?? "never",
        root.excludes.joined(separator: " "),
      ])
    }
    let lines = TableRenderer(alignments: [.left, .right, .right, .left, .left]).render(rows)
    // Each backup's facts on the line under its row, indented one step further.
    var text = lines[0] + "\n"
    for ((listing, depth), line) in zip(ordered, lines.dropFirst()) {
      text += line + "\n"
      if let backup = listing.root.backup {
        text +=
          String(repeating: "  ", count: depth + 1) + "backup of \(BackupPresentation.describe(backup))\n"
      }
    }
    return text
  }
}
