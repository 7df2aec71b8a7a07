import ShelfCore
import Testing

@testable import ShelfCatalog

private func where_(_ words: [String]) throws -> String {
  try CatalogQuery(arguments: words, now: 1_000_000).sql().0
}
private func parameters(_ words: [String]) throws -> [SQLiteValue] {
  try CatalogQuery(arguments: words, now: 1_000_000).sql().1
}

@Test func emptyQueryMatchesEverything() throws {
  #expect(try where_([]) == "1")
}

@Test func containsExactAndComparisons() throws {
  #expect(try where_(["artist:beat"]) == "f.artist LIKE ? ESCAPE '\\'")
  #expect(try parameters(["artist:beat"]) == [.text("%beat%")])
  #expect(try where_(["kind:=image"]) == "f.kind = ? COLLATE NOCASE")
  #expect(try where_(["size>10M"]) == "f.size > ?")
  #expect(try parameters(["size>10M"]) == [.real(10_485_760)])
  #expect(try where_(["width>=1024"]) == "f.width >= ?")
  #expect(try parameters(["duration<3:00"]) == [.real(180)])
}

@Test func rangesAndOpenEnds() throws {
  #expect(try where_(["year:1990..1999"]) == "(f.year >= ? AND f.year <= ?)")
  #expect(try parameters(["year:1990..1999"]) == [.real(1990), .real(1999)])
  #expect(try where_(["size:1K.."]) == "(f.size >= ?)")
}

@Test func datesAreWholeDaysInUTC() throws {
  // 2024-01-01 is 19723 days after the epoch.
  #expect(try parameters(["mtime>2024-01-01"]) == [.real(Double(19724 * 86400) * 1e9)])
  #expect(try parameters(["mtime<2024-01-01"]) == [.real(Double(19723 * 86400) * 1e9)])
  #expect(
    try parameters(["mtime:2024"]) == [
      .real(Double(19723 * 86400) * 1e9), .real(Double(20089 * 86400) * 1e9),
    ])
  #expect(try parameters(["mtime:-7d.."]) == [.real((1_000_000 - 7 * 86400) * 1e9)])
}

@Test func negationAndOr() throws {
  #expect(
    try where_(["-kind:image,audio"])
      == "NOT coalesce((f.kind LIKE ? ESCAPE '\\' OR f.kind LIKE ? ESCAPE '\\'), 0)")
  #expect(try where_(["kind:=image,ext:=wav"]) == "(f.kind = ? COLLATE NOCASE OR f.ext = ? COLLATE NOCASE)")
  #expect(
    try where_(["kind:=image", "alpha:yes"]) == "f.kind = ? COLLATE NOCASE AND coalesce(f.alpha, 0) = 1")
}

@Test func bareWordsSearchTheFullTextIndexAndNames() throws {
  #expect(
    try where_(["holiday"])
      == "(f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?) OR f.name LIKE ? ESCAPE '\\' OR f.path_text LIKE ? ESCAPE '\\')"
  )
  #expect(
    try parameters(["say \"hi\""]) == [
      .text("\"say\"*"), .text("%say%"), .text("%say%"), .text("\"hi\"*"), .text("%hi%"), .text("%hi%"),
    ])
  #expect(
    try parameters(["jalapeños-2"]) == [
      .text("\"jalapeños\"* \"2\"*"), .text("%jalapeños-2%"), .text("%jalapeños-2%"),
    ])
  #expect(try CatalogQuery(arguments: ["two words"]).groups.count == 2)
  #expect(
    try CatalogQuery(arguments: ["artist:The Beatles"]).groups == [
      CatalogQuery.Group(
        negated: false, alternatives: [.field(name: "artist", op: .contains, value: "The Beatles")])
    ])
}

@Test func plistKeysMatchWholeKeysWithExact() throws {
  #expect(try parameters(["key:=CFBundleName"]) == [.text("%\nCFBundleName\n%")])
  #expect(try parameters(["key:100%_"]) == [.text("%100\\%\\_%")])
}

@Test func errorsNameTheProblem() {
  #expect(throws: QueryError(message: "unknown query field 'kinds' (did you mean 'kind'?)")) {
    try CatalogQuery(arguments: ["kinds:image"])
  }
  #expect(throws: QueryError(message: "field 'size' cannot compare with 'big'")) {
    try CatalogQuery(arguments: ["size>big"])
  }
  #expect(throws: QueryError(message: "field 'alpha' takes yes or no, not 'maybe'")) {
    try CatalogQuery(arguments: ["alpha:maybe"])
  }
}

@Test func sortParsing() throws {
  #expect(try CatalogSort("size:desc") == CatalogSort("SIZE:desc"))
  #expect(try CatalogSort("mtime").descending == false)
  #expect(throws: QueryError.self) { try CatalogSort("nosuch") }
}
