/// Word wrapping and column alignment for help text and tables.
package enum TextLayout {
  /// Wraps `text` to `width` columns, prefixing every line with `indent` spaces. Words longer
  /// than the width stay whole.
  package static func wrap(_ text: String, width: Int, indent: Int = 0) -> String {
    var lines: [String] = []
    var line = String(repeating: " ", count: indent)
    var lineHasWord = false
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if lineHasWord && line.count + 1 + word.count > width {
        lines.append(line)
        line = String(repeating: " ", count: indent)
        lineHasWord = false
      }
      line += (lineHasWord ? " " : "") + word
      lineHasWord = true
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }

  /// Display width of a string in terminal columns (East Asian wide characters count two).
  package static func displayWidth(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + columns($1.value) }
  }

  /// The columns one scalar takes: none for controls and combining accents, two for East
  /// Asian wide characters, else one.
  static func columns(_ value: UInt32) -> Int {
    if value < 0x20 || (0x300...0x36F).contains(value) { return 0 }
    let wide =
      (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
      || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
      || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
      || (0x1F300...0x1FAFF).contains(value) || (0x20000...0x3FFFD).contains(value)
    return wide ? 2 : 1
  }

  /// `text` cut to `width` columns by replacing its middle with `…`, so both the start and the
  /// end of a long path stay readable (`Documents/Pho…/IMG_0001.PNG`).
  package static func truncateMiddle(_ text: String, to width: Int) -> String {
    guard displayWidth(text) > width else { return text }
    guard width > 1 else { return width == 1 ? "…" : "" }
    let characters = Array(text)
    let headRoom = (width - 1) / 2
    let tailRoom = width - 1 - headRoom
    var head = ""
    var used = 0
    for character in characters {
      let cell = displayWidth(String(character))
      if used + cell > headRoom { break }
      head.append(character)
      used += cell
    }
    var tail: [Character] = []
    used = 0
    for character in characters.reversed() {
      let cell = displayWidth(String(character))
      if used + cell > tailRoom { break }
      tail.append(character)
      used += cell
    }
    return head + "…" + String(tail.reversed())
  }

  /// `text` cut to `width` columns, its end replaced with `…`.
  package static func truncateEnd(_ text: String, to width: Int) -> String {
    guard displayWidth(text) > width else { return text }
    guard width > 1 else { return width == 1 ? "…" : "" }
    var head = ""
    var used = 0
    for character in text {
      let cell = displayWidth(String(character))
      if used + cell > width - 1 { break }
      head.append(character)
      used += cell
    }
    return head + "…"
  }
}

/// The cells of a table, gathered row by row into one byte buffer and measured as they come,
/// so that a listing of a million rows holds no string or array per row until it is laid out.
package struct TableCells {
  /// Every cell's UTF-8 bytes, one after another.
  private(set) var bytes: [UInt8] = []
  /// Where each cell ends in `bytes`.
  private(set) var cellEnds: [Int] = []
  /// Each cell's display width.
  private(set) var cellWidths: [Int] = []
  /// How many cells precede each row's end.
  private(set) var rowEnds: [Int] = []
  /// The widest cell of each column.
  private(set) var columnWidths: [Int] = []
  /// The cells of the row being added.
  private var rowCells = 0

  package init() {}

  /// The number of rows ended so far.
  package var rowCount: Int { rowEnds.count }

  /// Adds a cell to the current row.
  package mutating func append(_ cell: String) {
    var cell = cell
    cell.withUTF8 { append(bytesOf: $0) }
  }

  /// Adds a cell given as a string's UTF-8 bytes (well-formed, which `width` relies on).
  private mutating func append(bytesOf cell: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: cell)
    cellEnds.append(bytes.count)
    let width = Self.width(cell)
    cellWidths.append(width)
    if rowCells < columnWidths.count {
      columnWidths[rowCells] = max(columnWidths[rowCells], width)
    } else {
      columnWidths.append(width)
    }
    rowCells += 1
  }

  /// Ends the current row.
  package mutating func endRow() {
    rowEnds.append(cellEnds.count)
    rowCells = 0
  }

  /// Display width as `TextLayout.displayWidth` counts it, from the bytes of well-formed
  /// UTF-8: a column per byte of printable ASCII (the common, fast case), else per scalar.
  private static func width(_ cell: UnsafeBufferPointer<UInt8>) -> Int {
    var width = 0
    var index = 0
    while index < cell.count {
      let lead = cell[index]
      guard lead >= 0x80 else {
        width += lead >= 0x20 ? 1 : 0
        index += 1
        continue
      }
      // The lead byte gives the sequence's length and its first bits; each byte after it six.
      let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
      var scalar = UInt32(lead) & (0x7F >> length)
      for offset in 1..<length where index + offset < cell.count {
        scalar = scalar << 6 | UInt32(cell[index + offset] & 0x3F)
      }
      width += TextLayout.columns(scalar)
      index += length
    }
    return width
  }
}

/// Renders rows as aligned columns, the way `ls -l` and `fd -l` line up their output: the one
/// table renderer of shelf, for a few rows of `info` as for a listing of many thousands.
package struct TableRenderer: Sendable {
  /// Column alignment.
  package enum Alignment: Sendable { case left, right }

  /// Per column; columns beyond the list are left-aligned.
  package let alignments: [Alignment]

  /// True when a row's last cell keeps the spaces it ends with, as a listing prints its
  /// cells (a tag ending in a space) on a terminal too; padding never ends a line either way.
  package let keepsCellSpaces: Bool

  package init(alignments: [Alignment], keepsCellSpaces: Bool = false) {
    self.alignments = alignments
    self.keepsCellSpaces = keepsCellSpaces
  }

  /// The rows as lines, columns separated by two spaces, trailing spaces trimmed (see
  /// `keepsCellSpaces`).
  package func render(_ rows: [[String]]) -> [String] {
    var cells = TableCells()
    for row in rows {
      for cell in row { cells.append(cell) }
      cells.endRow()
    }
    var lines: [String] = []
    lines.reserveCapacity(rows.count)
    forEachLine(cells) { lines.append(String(decoding: $0, as: UTF8.self)) }
    return lines
  }

  /// The rows as lines ending in a newline, handed to `write` in blocks of about 64 KiB, so
  /// that a listing's text is never held whole.
  package func render(_ cells: TableCells, write: ([UInt8]) -> Void) {
    var out: [UInt8] = []
    out.reserveCapacity(1 << 17)
    forEachLine(cells) { line in
      out.append(contentsOf: line)
      out.append(0x0A)
      if out.count >= 1 << 16 {
        write(out)
        out.removeAll(keepingCapacity: true)
      }
    }
    write(out)
  }

  /// Hands each row's line (without its newline) to `body`. Padding is written only before a
  /// cell that follows it, so no line ends in padding, and unless `keepsCellSpaces`, the spaces
  /// a row ends with are trimmed too (cells of spaces only at its end included).
  private func forEachLine(_ cells: TableCells, _ body: (ArraySlice<UInt8>) -> Void) {
    let widths = cells.columnWidths
    let rightAligned = widths.indices.map { $0 < alignments.count && alignments[$0] == .right }
    var line: [UInt8] = []
    cells.bytes.withUnsafeBufferPointer { bytes in
      var first = 0
      for rowEnd in cells.rowEnds {
        defer { first = rowEnd }
        line.removeAll(keepingCapacity: true)
        func cellStart(_ cell: Int) -> Int { cell == 0 ? 0 : cells.cellEnds[cell - 1] }
        // The last cell shown: the last non-empty one, or without `keepsCellSpaces`, the last
        // with something other than spaces.
        var last = rowEnd - 1
        while last >= first {
          let cell = bytes[cellStart(last)..<cells.cellEnds[last]]
          if keepsCellSpaces ? !cell.isEmpty : cell.contains(where: { $0 != 0x20 }) { break }
          last -= 1
        }
        guard last >= first else {
          body(line[...])
          continue
        }
        var pendingSpaces = 0
        for cell in first...last {
          let column = cell - first
          let padding = widths[column] - cells.cellWidths[cell]
          if column > 0 { pendingSpaces += 2 }
          if rightAligned[column] { pendingSpaces += padding }
          var text = bytes[cellStart(cell)..<cells.cellEnds[cell]]
          if cell == last && !keepsCellSpaces {
            while text.last == 0x20 { text = text.dropLast() }
          }
          if !text.isEmpty {
            line.append(contentsOf: repeatElement(0x20, count: pendingSpaces))
            line.append(contentsOf: text)
            pendingSpaces = 0
          }
          if !rightAligned[column] { pendingSpaces += padding }
        }
        body(line[...])
      }
    }
  }
}

/// Cuts the paths of a listing so that what tells its rows apart stays: the folders every
/// row starts with go first (`…/Backups/mbdb/…`), then the middle of the folders every row
/// ends with (the file name stays), and only then the middle of the rest.
struct PathShortener {
  /// Characters every path starts with, up to and including a `/` (never a file name).
  let commonPrefix: Int
  /// Characters every path ends with, from a `/`, that no path's common prefix overlaps.
  let commonSuffix: Int
  /// The file names more than one path ends with: a name not among them tells its row apart.
  let repeatedNames: Set<Substring>

  init(_ paths: [String]) {
    var names = Set<Substring>()
    var repeated = Set<Substring>()
    for path in paths where !names.insert(Self.fileName(path)).inserted {
      repeated.insert(Self.fileName(path))
    }
    repeatedNames = repeated
    let characters = paths.map(Array.init)
    guard let first = characters.first else {
      commonPrefix = 0
      commonSuffix = 0
      return
    }
    var prefix = first.count
    var suffix = first.count
    for path in characters.dropFirst() {
      prefix = min(prefix, zip(first, path).prefix { $0 == $1 }.count)
      suffix = min(suffix, zip(first.reversed(), path.reversed()).prefix { $0 == $1 }.count)
    }
    // Whole folders only: back to the last `/` of the prefix and the first `/` of the suffix.
    // (One path alone shares its folders with itself, and nothing at its end to keep apart.)
    let shortest = characters.map(\.count).min() ?? 0
    prefix = min(prefix, shortest)
    while prefix > 0 && first[prefix - 1] != "/" { prefix -= 1 }
    if characters.count == 1 { suffix = 0 }
    suffix = min(suffix, shortest - prefix)
    while suffix > 0 && first[first.count - suffix] != "/" { suffix -= 1 }
    commonPrefix = prefix
    commonSuffix = suffix
  }

  /// `path` cut to `width` columns.
  func shortened(_ path: String, to width: Int) -> String {
    guard TextLayout.displayWidth(path) > width else { return path }
    let characters = Array(path)
    guard commonPrefix + commonSuffix <= characters.count else {
      return TextLayout.truncateMiddle(path, to: width)
    }
    let prefix = characters[..<commonPrefix]
    let distinct = String(characters[commonPrefix..<(characters.count - commonSuffix)])
    let suffix = characters[(characters.count - commonSuffix)...]
    // The shared folders give way first, the last of them kept as far as they fit whole.
    let rest = distinct + String(suffix)
    let restWidth = TextLayout.displayWidth(rest)
    if !prefix.isEmpty && restWidth + 2 <= width {
      return "…" + Self.wholeFolders(prefix, within: width - 1 - restWidth) + rest
    }
    // Then the shared end loses its middle: `…/mbdb/…/IMG_0001.PNG`.
    let lead = prefix.isEmpty ? "" : "…/"
    let room = width - TextLayout.displayWidth(lead + distinct) - 2
    let kept = room > 0 ? Self.wholeFolders(suffix, within: room) : ""
    if kept.count > 1 {
      return lead + distinct + "/…" + kept
    }
    // A file name no other row has tells its row apart alone: it stays whole, after as many
    // of its folders as fit.
    let name = Self.fileName(path)
    let nameWidth = TextLayout.displayWidth(String(name))
    if name.count < characters.count, !repeatedNames.contains(name), nameWidth + 2 <= width {
      let folders = characters[..<(characters.count - name.count)]
      return "…" + Self.wholeFolders(folders, within: width - 1 - nameWidth) + name
    }
    return TextLayout.truncateMiddle(lead + rest, to: width)
  }

  /// The narrowest width, from `minimum` to the widest of `paths`, at which `shortened` keeps
  /// every file name whole and no two different paths alike: what a listing's path column
  /// must keep (the widest path's width when no narrower one does).
  func narrowestWidthKeepingApart(_ paths: [String], atLeast minimum: Int) -> Int {
    let widest = paths.map(TextLayout.displayWidth).max() ?? 0
    func keepsApart(_ width: Int) -> Bool {
      var shown: [String: String] = [:]
      for path in paths {
        let short = shortened(path, to: width)
        guard short.hasSuffix(Self.fileName(path)) else { return false }
        if let other = shown.updateValue(path, forKey: short), other != path { return false }
      }
      return true
    }
    // Wider keeps more of each path: the narrowest width that keeps rows apart, by halving.
    var (low, high) = (min(minimum, widest), widest)
    while low < high {
      let middle = (low + high) / 2
      if keepsApart(middle) { high = middle } else { low = middle + 1 }
    }
    return high
  }

  /// The last component of `path` (all of it when it has no `/`).
  private static func fileName(_ path: String) -> Substring {
    path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path[...]
  }

  /// The longest end of `text` that starts with `/` and fits `width` columns ("" if none).
  private static func wholeFolders(_ text: ArraySlice<Character>, within width: Int) -> String {
    var best = ""
    var used = 0
    var index = text.endIndex
    while index > text.startIndex {
      index -= 1
      used += TextLayout.displayWidth(String(text[index]))
      if used > width { break }
      if text[index] == "/" { best = String(text[index...]) }
    }
    return best
  }
}
