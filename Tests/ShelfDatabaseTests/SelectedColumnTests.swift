import Foundation
import ShelfCore
import ShelfDatabase
import ShelfTestSupport
import Testing

/// Rows of several columns are read by the cases of an enum that also makes the SELECT list, so
/// the list and the reading cannot drift apart (see `SelectedColumn`).
@Suite struct SelectedColumnTests {
  /// Columns chosen out of the table's order, one an expression.
  private enum Column: Int, SelectedColumn {
    case size, doubled, name

    var sql: String {
      switch self {
      case .size: "size"
      case .doubled: "size * 2"
      case .name: "fileID"
      }
    }
  }

  @Test func theSelectListIsTheCasesInOrderAndEachValueIsReadByItsCase() throws {
    #expect(Column.selectList == "size, size * 2, fileID")
    let scratch = try TemporaryDirectory()
    let db = try SQLiteConnection(path: RawPath(scratch.file("rows.db")), create: true, functions: [])
    try db.execute(
      "CREATE TABLE Files(fileID TEXT, size INTEGER); INSERT INTO Files VALUES('a', 1), ('b', 2)")
    let rows = try db.query("SELECT \(Column.selectList) FROM Files ORDER BY fileID", []) { row in
      "\(row.text(at: Column.name.rawValue) ?? "")=\(row.integer(at: Column.size.rawValue) ?? -1)"
        + "/\(row.integer(at: Column.doubled.rawValue) ?? -1)"
    }
    #expect(rows == ["a=1/2", "b=2/4"])
    try db.close()
  }

  /// The sources read no value of a row at a literal column number past the first: a row of
  /// several columns is read by its columns' enum (a one-column SELECT's value is at 0).
  @Test func noSourceReadsARowAtALiteralColumnNumber() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources")
    let pattern = try Regex(#"\b(integer|integerOrZero|real|text|blob|withBlob)\(at: *[1-9]"#)
    var found: [String] = []
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      let text = try String(contentsOf: file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where line.contains(pattern) {
        found.append("\(file.lastPathComponent):\(number + 1): \(line)")
      }
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }
}
