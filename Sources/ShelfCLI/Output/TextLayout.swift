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
    text.unicodeScalars.reduce(0) { total, scalar in
      let value = scalar.value
      if value < 0x20 || (0x300...0x36F).contains(value) { return total }
      let wide =
        (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
        || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
        || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
        || (0x1F300...0x1FAFF).contains(value) || (0x20000...0x3FFFD).contains(value)
      return total + (wide ? 2 : 1)
    }
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
    let widths = columnWidths(rows)
    let spaces = Self.spaces(widths)
    return zip(rows, widths.cells).map { row, measured in
      var line = ""
      append(row, measured: measured, widths: widths.columns, spaces: spaces, to: &line)
      return line
    }
  }

  /// The rows as lines ending in a newline, handed to `write` in blocks of about 64 KiB, so
  /// that a listing's text is never held whole.
  package func render(_ rows: [[String]], write: (String) -> Void) {
    let widths = columnWidths(rows)
    let spaces = Self.spaces(widths)
    var out = ""
    out.reserveCapacity(1 << 17)
    for (row, measured) in zip(rows, widths.cells) {
      append(row, measured: measured, widths: widths.columns, spaces: spaces, to: &out)
      out += "\n"
      if out.utf8.count >= 1 << 16 {
        write(out)
        out.removeAll(keepingCapacity: true)
      }
    }
    write(out)
  }

  /// Each column's width and each cell's, measured once (a listing's cells are many).
  private func columnWidths(_ rows: [[String]]) -> (columns: [Int], cells: [[Int]]) {
    var widths: [Int] = []
    var cells: [[Int]] = []
    cells.reserveCapacity(rows.count)
    for row in rows {
      let measured = row.map(Self.width)
      for (index, cellWidth) in measured.enumerated() {
        if index < widths.count {
          widths[index] = max(widths[index], cellWidth)
        } else {
          widths.append(cellWidth)
        }
      }
      cells.append(measured)
    }
    return (widths, cells)
  }

  /// Enough spaces for any run of padding, cut from rather than built per cell.
  private static func spaces(_ widths: (columns: [Int], cells: [[Int]])) -> String {
    String(repeating: " ", count: widths.columns.reduce(0, +) + 2 * widths.columns.count)
  }

  /// Display width, counted in bytes for printable ASCII (the common, fast case).
  private static func width(_ text: String) -> Int {
    text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 } ? text.utf8.count : TextLayout.displayWidth(text)
  }

  /// Appends one row: padding is written only before a cell that follows it, so no line ends
  /// in padding, and unless `keepsCellSpaces`, the spaces a row ends with are trimmed too
  /// (cells of spaces only at its end included).
  private func append(_ row: [String], measured: [Int], widths: [Int], spaces: String, to out: inout String) {
    let shown =
      keepsCellSpaces ? row.lastIndex { !$0.isEmpty } : row.lastIndex { $0.utf8.contains { $0 != 0x20 } }
    guard let last = shown else { return }
    var pendingSpaces = 0
    for index in 0...last {
      let padding = widths[index] - measured[index]
      let rightAligned = index < alignments.count && alignments[index] == .right
      if index > 0 { pendingSpaces += 2 }
      if rightAligned { pendingSpaces += padding }
      var text = Substring(row[index])
      if index == last && !keepsCellSpaces {
        while text.last == " " { text = text.dropLast() }
      }
      if !text.isEmpty {
        out += spaces.prefix(pendingSpaces)
        out += text
        pendingSpaces = 0
      }
      if !rightAligned { pendingSpaces += padding }
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

  init(_ paths: [String]) {
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
    if !prefix.isEmpty && restWidth + 1 <= width {
      return "…" + Self.wholeFolders(prefix, within: width - 1 - restWidth) + rest
    }
    // Then the shared end loses its middle: `…/mbdb/…/IMG_0001.PNG`.
    let lead = prefix.isEmpty ? "" : "…/"
    let room = width - TextLayout.displayWidth(lead + distinct) - 2
    let kept = room > 0 ? Self.wholeFolders(suffix, within: room) : ""
    if kept.count > 1 {
      return lead + distinct + "/…" + kept
    }
    return TextLayout.truncateMiddle(lead + rest, to: width)
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
