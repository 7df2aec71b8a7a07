import ShelfCatalog
import ShelfCore
import ShelfFacts

/// One row of the `ls` table before layout: the path as shown, its colour, and the other cells.
struct ListingRow {
  /// The path as printed (relative or absolute, escaped for the terminal).
  var path: String
  /// The SGR code the path is drawn in, when colour is on.
  var style: String?
  /// The cells after the path, one per column.
  var cells: [String]
}

/// A column of the `ls` table after the path.
struct ListingColumn {
  var header: String
  var rightAligned: Bool
  /// A column of short labels (kind, MIME type, area), cut before the path is when the
  /// table does not fit: a label's start says enough, a path's middle may be all that tells
  /// two rows apart.
  var isTag = false
  /// The fewest columns a column that is no tag is cut to before it is left out, when the
  /// path needs the room (a date keeps its day: `2024-05-01…`); nil: never cut, only left out.
  var cutWidth: Int? = nil
}

/// Lays the `ls` table out for its destination. Into a pipe the rows are exact and whole (no
/// header, no colour, no cut); on a terminal a header row leads, paths carry their colour and
/// the table fits `width`: tag columns are cut first, then long paths lose what all rows
/// share (`PathShortener`) and the last column its end. The path column never gets narrower
/// than what keeps rows apart and file names whole (the promise of shelf-ls(1)): the other
/// columns give way first, cut and then left out. `wide` keeps every cell whole.
///
/// Width and terminal-ness are parameters, not read from the process, so tests can lay out
/// for any screen.
struct ListingLayout {
  var columns: [ListingColumn]
  var isTerminal: Bool
  /// The terminal's width in columns (ignored for a pipe).
  var width: Int
  /// `ls --wide`: nothing is cut on a terminal either (long rows wrap).
  var wide = false

  /// The header of the path column.
  static let pathHeader = "PATH"
  /// The fewest columns a path is cut down to.
  static let minimumPathWidth = 16
  /// The fewest columns a tag column is cut down to (`camer…`).
  static let minimumTagWidth = 6

  /// What lays the rows out into a pipe: exact and whole, columns aligned, no header.
  var pipeRenderer: TableRenderer {
    let alignments = [.left] + columns.map { $0.rightAligned ? TableRenderer.Alignment.right : .left }
    return TableRenderer(alignments: alignments, keepsCellSpaces: true)
  }

  /// Renders `rows`, handing out text in blocks of about 64 KiB.
  func render(_ rows: [ListingRow], write: (String) -> Void) {
    guard isTerminal else {
      var cells = TableCells()
      for row in rows {
        cells.append(row.path)
        for cell in row.cells { cells.append(cell) }
        cells.endRow()
      }
      pipeRenderer.render(cells) { write(String(decoding: $0, as: UTF8.self)) }
      return
    }
    let header = ListingRow(path: Self.pathHeader, style: nil, cells: columns.map(\.header))
    // Paths are cut as a set (what tells them apart stays); the columns they then leave
    // unused go to the last column.
    let paths = rows.map(\.path)
    let shortener = PathShortener(paths)
    var widths = fittedWidths([header] + rows) {
      shortener.narrowestWidthKeepingApart(paths, atLeast: Self.minimumPathWidth)
    }
    var shown = rows
    for index in shown.indices where TextLayout.displayWidth(shown[index].path) > widths[0] {
      shown[index].path = shortener.shortened(shown[index].path, to: widths[0])
    }
    let pathWidth = ([header] + shown).map { TextLayout.displayWidth($0.path) }.max() ?? widths[0]
    if let last = widths.indices.last, last > 0, pathWidth < widths[0] {
      if widths[last] > 0 {
        let lastNeed = rows.map { $0.cells.last.map(TextLayout.displayWidth) ?? 0 }.max() ?? 0
        widths[last] = max(widths[last], min(lastNeed, widths[last] + widths[0] - pathWidth))
      }
      widths[0] = pathWidth
    }
    var out = ""
    for row in [header] + shown {
      out += line(row, widths: widths) + "\n"
      if out.utf8.count >= 1 << 16 {
        write(out)
        out = ""
      }
    }
    write(out)
  }

  /// Column widths that fit the terminal: tag columns give up columns (down to
  /// `minimumTagWidth`, widest first) while the path would otherwise be cut; the other middle
  /// columns keep their width; the path and the last column (the facts) share the rest. When
  /// the path's share is narrower than `pathFloor` (what keeps rows apart, asked for only
  /// then), the others give way (`givingWay`). A width of 0 leaves the column out.
  func fittedWidths(_ rows: [ListingRow], pathFloor: () -> Int) -> [Int] {
    var widths = [Int](repeating: 0, count: columns.count + 1)
    for row in rows {
      for (index, cell) in ([row.path] + row.cells).enumerated() where index < widths.count {
        widths[index] = max(widths[index], TextLayout.displayWidth(cell))
      }
    }
    guard !wide, widths.count > 1, widths.reduce(0, +) + 2 * columns.count > width else { return widths }
    let pathNeed = widths[0]
    let last = widths.count - 1
    var shares = share(widths)
    while shares.path < pathNeed,
      let widest = (1..<last).filter({
        columns[$0 - 1].isTag && widths[$0] > Self.minimumTagWidth
      }).max(by: { widths[$0] < widths[$1] })
    {
      widths[widest] -= 1
      shares = share(widths)
    }
    widths[0] = shares.path
    widths[last] = shares.last
    guard shares.path < pathNeed else { return widths }
    let floor = min(pathNeed, pathFloor())
    return shares.path < floor ? givingWay(widths, pathNeed: pathNeed, floor: floor) : widths
  }

  /// `widths` with the path at least `floor` wide: the other columns give way, in the order
  /// that loses least: cut columns to their `cutWidth` (a date to its day), the last column
  /// (the facts) to `minimumTagWidth`, then left out, the last column, the tags and the rest,
  /// from the right. Columns freed beyond what the path needs give it more, up to `pathNeed`.
  private func givingWay(_ fitted: [Int], pathNeed: Int, floor: Int) -> [Int] {
    var widths = fitted
    let last = widths.count - 1
    let middle = Array(1..<last)
    widths[0] = floor
    func free() -> Int {
      let shown = widths.dropFirst().filter { $0 > 0 }
      return width - widths[0] - shown.reduce(0, +) - 2 * shown.count
    }
    for index in middle {
      if let cut = columns[index - 1].cutWidth, widths[index] > cut, free() < 0 {
        widths[index] -= min(-free(), widths[index] - cut)
      }
    }
    if widths[last] > Self.minimumTagWidth, free() < 0 {
      widths[last] -= min(-free(), widths[last] - Self.minimumTagWidth)
    }
    let tags = middle.filter { columns[$0 - 1].isTag }
    let others = middle.filter { !columns[$0 - 1].isTag }
    for index in [last] + tags.reversed() + others.reversed() where free() < 0 {
      widths[index] = 0
    }
    // Left over: to the path first; too little even alone, the path is cut (never below 1).
    widths[0] = max(1, min(pathNeed, widths[0] + free()))
    if widths[last] > 0, free() > 0 {
      let lastNeed = fitted[last]
      widths[last] = min(max(widths[last], lastNeed), widths[last] + free())
    }
    return widths
  }

  /// The widths of the path and the last column, given the middle columns' in `widths`: the
  /// path gets what it needs up to half the room (more when the last column needs less), and
  /// no less than `minimumPathWidth`.
  private func share(_ widths: [Int]) -> (path: Int, last: Int) {
    let last = widths.count - 1
    let room = width - widths[1..<last].reduce(0, +) - 2 * columns.count
    let pathNeed = widths[0]
    let lastNeed = widths[last]
    var path: Int
    if pathNeed <= room / 2 {
      path = pathNeed
    } else if lastNeed <= room / 2 {
      path = room - lastNeed
    } else {
      path = room - room / 2
    }
    path = max(path, min(pathNeed, Self.minimumPathWidth))
    return (path, max(1, min(lastNeed, room - path)))
  }

  /// One row, padded to `widths`, cut where a cell is wider, trailing spaces trimmed.
  private func line(_ row: ListingRow, widths: [Int]) -> String {
    let cells = [row.path] + row.cells
    var out = ""
    var pendingSpaces = 0
    for index in 0..<min(cells.count, widths.count) where index == 0 || widths[index] > 0 {
      var cell = cells[index]
      if TextLayout.displayWidth(cell) > widths[index] {
        cell =
          index == 0
          ? TextLayout.truncateMiddle(cell, to: widths[index])
          : TextLayout.truncateEnd(cell, to: widths[index])
      }
      let padding = widths[index] - TextLayout.displayWidth(cell)
      let rightAligned = index > 0 && columns[index - 1].rightAligned
      if index > 0 { pendingSpaces += 2 }
      if rightAligned { pendingSpaces += padding }
      if !cell.isEmpty {
        out += String(repeating: " ", count: pendingSpaces)
        if index == 0, let style = row.style {
          out += "\u{1B}[\(style)m\(cell)\u{1B}[0m"
        } else {
          out += cell
        }
        pendingSpaces = 0
      }
      if !rightAligned { pendingSpaces += padding }
    }
    return out
  }
}

/// Paths as `ls` shows them: relative to the current folder when it is inside a catalogued
/// root and the entry is under that root (as fd prints them), absolute otherwise.
struct ListingPaths {
  /// The current folder (physical, as `getcwd` gives it), when it lies inside a root.
  let currentFolder: RawPath?
  /// The innermost root holding the current folder.
  let root: RawPath?

  /// Paths relative to `currentFolder` for entries of the root that holds it; nil or a folder
  /// outside every root shows paths absolute.
  init(currentFolder: RawPath?, roots: [RawPath]) {
    let root = currentFolder.flatMap { folder in
      roots.filter { Self.contains($0, folder) }.max { $0.bytes.count < $1.bytes.count }
    }
    self.root = root
    self.currentFolder = root == nil ? nil : currentFolder
  }

  /// `path` as shown.
  func shown(_ path: RawPath) -> RawPath {
    guard let currentFolder, let root, Self.contains(root, path) else { return path }
    let here = Self.components(currentFolder)
    let there = Self.components(path)
    var common = 0
    while common < here.count && common < there.count - 1 && here[common] == there[common] { common += 1 }
    var bytes: [UInt8] = []
    for _ in common..<here.count { bytes += Array("../".utf8) }
    bytes += there[common...].joined(separator: [UInt8(ascii: "/")])
    return RawPath(bytes: bytes)
  }

  /// True when `inner` is `outer` or lies under it.
  static func contains(_ outer: RawPath, _ inner: RawPath) -> Bool {
    let base = outer.bytes.last == UInt8(ascii: "/") ? outer.bytes : outer.bytes + [UInt8(ascii: "/")]
    return inner.bytes == outer.bytes || inner.bytes.starts(with: base)
  }

  private static func components(_ path: RawPath) -> [[UInt8]] {
    path.bytes.split(separator: UInt8(ascii: "/")).map(Array.init)
  }
}

/// Colours for paths in listings: `LS_COLORS`' entries where they apply to a catalogued file
/// (`ln` for a symbolic link, `ex` for an executable, `*.ext` and other name suffixes, `fi`),
/// else a colour per kind, so images, audio and plists stand apart.
struct PathColors {
  /// Name suffixes (lowercased, e.g. `.png`) and their SGR codes, longest first.
  private(set) var suffixes: [([UInt8], String)] = []
  private(set) var link: String?
  private(set) var executable: String?
  private(set) var file: String?

  /// The colour of each kind when `LS_COLORS` says nothing about a file.
  static let kindStyles: [FileKind: String] = [.image: "35", .audio: "36", .video: "34", .plist: "33"]
  /// Entries whose facts could not be read.
  static let errorStyle = "31"

  /// Reads an `LS_COLORS` value (`di=01;34:ln=01;36:*.png=01;35:…`); nil or empty uses the
  /// kind colours alone.
  init(lsColors: String?) {
    for entry in (lsColors ?? "").split(separator: ":") {
      guard let equals = entry.firstIndex(of: "=") else { continue }
      let key = entry[..<equals]
      let code = String(entry[entry.index(after: equals)...])
      guard !code.isEmpty, code.allSatisfy({ $0.isNumber || $0 == ";" }) else { continue }
      switch key {
      case "ln": link = code
      case "ex": executable = code
      case "fi": file = code
      default:
        if key.hasPrefix("*") && key.count > 1 {
          suffixes.append((Array(key.dropFirst().lowercased().utf8), code))
        }
      }
    }
    suffixes.sort { $0.0.count > $1.0.count }
  }

  /// True when `ln` or `ex` is set, so a file's mode must be looked at to colour it.
  var needsFileModes: Bool { link != nil || executable != nil }

  /// The SGR code for a file, in GNU ls's order: a link, an executable, its name suffix,
  /// then its kind.
  func style(path: RawPath, kind: FileKind, failed: Bool, isLink: Bool, isExecutable: Bool) -> String? {
    if isLink, let link { return link }
    if isExecutable, let executable { return executable }
    if !suffixes.isEmpty {
      let name = path.lastComponent.bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
      if let match = suffixes.first(where: {
        name.count >= $0.0.count && name.reversed().starts(with: $0.0.reversed())
      }) {
        return match.1
      }
    }
    if failed { return Self.errorStyle }
    return Self.kindStyles[kind] ?? file
  }
}
