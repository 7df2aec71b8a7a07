import Foundation
import ShelfCore
import ShelfDatabase
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

private func where_(_ words: [String]) throws -> String {
  try CatalogQuery(arguments: words, now: 1_000_000).sql().0
}
private func parameters(_ words: [String]) throws -> [DatabaseValue] {
  try CatalogQuery(arguments: words, now: 1_000_000).sql().1
}

@Test func emptyQueryMatchesEverything() throws {
  #expect(try where_([]) == "1")
}

@Test func containsExactAndComparisons() throws {
  #expect(try where_(["artist:beat"]) == "(f.artist IS NOT NULL AND f.artist LIKE ? ESCAPE '\\')")
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
      == "NOT coalesce((f.kind = ? COLLATE NOCASE OR f.kind = ? COLLATE NOCASE), 0)")
  #expect(try where_(["kind:=image,ext:=wav"]) == "(f.kind = ? COLLATE NOCASE OR f.ext = ? COLLATE NOCASE)")
  #expect(
    try where_(["kind:=image", "alpha:yes"]) == "f.kind = ? COLLATE NOCASE AND coalesce(f.alpha, 0) = 1")
}

@Test func bareWordsSearchTheFullTextIndexAndPaths() throws {
  // Paths are looked up in the path trigrams first, and matched with LIKE.
  #expect(
    try where_(["holiday"])
      == "(f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?) OR (f.id IN (SELECT rowid FROM files_paths WHERE files_paths MATCH ?) AND f.path_text LIKE ? ESCAPE '\\'))"
  )
  #expect(
    try parameters(["holiday"]) == [
      .text("\"holiday\"*"), .text("\"hol\" \"ida\" \"day\""), .text("%holiday%"),
    ])
  // Shorter than a trigram: LIKE alone.
  #expect(
    try parameters(["say \"hi\""]) == [
      .text("\"say\"*"), .text("\"say\""), .text("%say%"), .text("\"hi\"*"), .text("%hi%"),
    ])
  #expect(
    try parameters(["jalapeños-2"]) == [
      .text("\"jalapenos\"* \"2\"*"), .text("\"jal\" \"ape\" \"os-\" \"s-2\""), .text("%jalapeños-2%"),
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

@Test func aValueOutsideAFixedListIsRefusedWithTheNearest() throws {
  #expect(throws: QueryError(message: "field 'kind' has no value 'imag' (did you mean 'image'?)")) {
    try CatalogQuery(arguments: ["kind:image,imag"])
  }
  #expect(throws: QueryError(message: "field 'area' has no value 'docs' (did you mean 'documents'?)")) {
    try CatalogQuery(arguments: ["-area:=docs"])
  }
  #expect(
    throws: QueryError(
      message:
        "field 'plist' has no value 'json' (it takes xml, binary)")
  ) { try CatalogQuery(arguments: ["plist!=json"]) }
  // Any case, an empty value (has one), the areas of backups.
  _ = try CatalogQuery(arguments: [
    "kind:IMAGE", "area:", "area:camera-roll,voicemail", "detected:content+extension",
  ])
}

@Test func bareWordsRankByShelfsOwnScoreAlikeInBothDialects() throws {
  let query = try CatalogQuery(arguments: ["Recording", "-draft", "kind:text"])
  let sqlite = try #require(query.relevanceOrder(.sqlite))
  let postgres = try #require(query.relevanceOrder(.postgres))
  // One pattern per positive word (ASCII lowercased), then the full-text query.
  #expect(sqlite.parameters.count == 2)
  #expect(sqlite.parameters.first == .text("%recording%"))
  #expect(postgres.parameters.first == .text("%recording%"))
  #expect(sqlite.keys.hasPrefix("CASE WHEN (coalesce(f.name, '')"))
  #expect(postgres.keys.hasPrefix("CASE WHEN translate((coalesce(f.name, '')"))
  // Name and tags, then each engine's full-text match of the same words, then the path alone.
  let fullText = [
    "f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)",
    "coalesce(f.search @@ to_tsquery('simple', unaccent(?)), false)",
  ]
  for (keys, match) in zip([sqlite.keys, postgres.keys], fullText) {
    #expect(keys.hasSuffix(" THEN 0 WHEN \(match) THEN 1 ELSE 2 END, coalesce(f.chars, 0)"))
  }
  #expect(try CatalogQuery(arguments: ["kind:text"]).relevanceOrder(.sqlite) == nil)
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

/// Times past year 9999, or more than 10^13 s from 1970, are refused, not computed: a year of
/// 19 digits overflowed the day count and a relative time of 10^30 years the conversion to whole
/// seconds (fuzz regressions).
@Test func timesBeyondTheLimitsAreRefused() throws {
  #expect(throws: QueryError(message: "field 'mtime' cannot compare with '9000000000000000000'")) {
    try CatalogQuery(arguments: ["mtime:9000000000000000000"])
  }
  let ages = "-" + String(repeating: "9", count: 30) + "y"
  #expect(throws: QueryError(message: "field 'taken' cannot compare with '\(ages)'")) {
    try CatalogQuery(arguments: ["taken:" + ages])
  }
  _ = try CatalogQuery(arguments: ["mtime:9999", "taken>-99999y"], now: 0)
}

@Test func sortParsing() throws {
  #expect(try CatalogSort("size:desc") == CatalogSort("SIZE:desc"))
  #expect(try CatalogSort("mtime").descending == false)
  #expect(throws: QueryError.self) { try CatalogSort("nosuch") }
  #expect(throws: QueryError(message: "unknown sort direction 'down' (use asc or desc)")) {
    try CatalogSort("size:down")
  }
  #expect(throws: QueryError(message: "unknown query field 'nosuch'")) { try CatalogSort("nosuch:desc") }
}

@Test func severalSortsOrderByEachInTurnThenPath() throws {
  #expect(
    try CatalogSort.orderBy([CatalogSort("artist"), CatalogSort("year:desc")], .sqlite)
      == "f.artist IS NULL, f.artist ASC, f.year IS NULL, f.year DESC, +f.path")
  #expect(CatalogSort.orderBy([], .sqlite) == "+f.path")
  // A column that is never NULL has no key for NULLs, so an index can give its order.
  #expect(try CatalogSort.orderBy([CatalogSort("size:desc")], .sqlite) == "f.size DESC, +f.path")
  // PostgreSQL sorts text by its bytes, as SQLite does, whatever the database's locale.
  #expect(
    try CatalogSort.orderBy([CatalogSort("artist"), CatalogSort("year:desc")], .postgres)
      == "f.artist IS NULL, f.artist COLLATE \"C\" ASC, f.year IS NULL, f.year DESC, f.path")
}

@Test func namesMatchTheWholeValueAndTextContains() throws {
  // The fields with a fixed list of values take one of them (CatalogQuery.fixedValues).
  let listed = ["kind": "image", "area": "documents", "detected": "content", "plist": "xml"]
  for field in ["ext", "kind", "area", "type", "mime", "encoding", "format", "codec", "detected", "plist"] {
    let value = listed[field] ?? "png"
    let column = try where_(["\(field):\(value)"])
    #expect(column.hasSuffix(" = ? COLLATE NOCASE"), "\(field): \(column)")
    #expect(try parameters(["\(field):\(value)"]) == [.text(value)])
  }
  #expect(try parameters(["ext:.png"]) == [.text("png")])
  for field in ["artist", "album", "title", "comment", "genre"] {
    #expect(try where_(["\(field):beat"]).hasSuffix(" LIKE ? ESCAPE '\\')"))
  }
}

@Test func namesAndPathsAreSmartCaseGlobsOverTheRawBytes() throws {
  // Mode bits: 1 fold case, 2 last component only, 4 literal.
  #expect(try where_(["name:img_*.png"]) == "(\(CatalogQuery.pathTrigramsSQL) AND shelf_glob(?, f.path, 3))")
  #expect(try where_(["name:IMG_*.PNG"]) == "(\(CatalogQuery.pathTrigramsSQL) AND shelf_glob(?, f.path, 2))")
  #expect(try where_(["path:*/music/*"]) == "(\(CatalogQuery.pathTrigramsSQL) AND shelf_glob(?, f.path, 1))")
  #expect(try where_(["name:=a*b"]) == "(\(CatalogQuery.pathTrigramsSQL) AND shelf_glob(?, f.path, 7))")
  #expect(
    try where_(["name!=a.png"])
      == "NOT coalesce((\(CatalogQuery.pathTrigramsSQL) AND shelf_glob(?, f.path, 7)), 0)")
  #expect(try where_(["name:*.?"]) == "shelf_glob(?, f.path, 3)")
  #expect(try where_(["root:/data/*"]) == "shelf_glob(?, r.path, 1)")
  // The trigrams of the literal runs, three apart and the last; none outside ASCII.
  #expect(
    try parameters(["name:img_*.png"]) == [.text("\"img\" \"mg_\" \".pn\" \"png\""), .text("img_*.png")])
  #expect(try parameters(["path:*/music/*"]) == [.text("\"/mu\" \"sic\" \"ic/\""), .text("*/music/*")])
  #expect(try parameters(["name:*é?.flac"]) == [.text("\".fl\" \"lac\""), .text("*é?.flac")])
  #expect(try parameters(["name:a\"b*"]) == [.text("\"a\"\"b\""), .text("a\"b*")])
  #expect(CatalogQuery.trigramQuery(Array("x\"yz".unicodeScalars.map(\.value))) == "\"x\"\"y\" \"\"\"yz\"")
}

@Test func globMatching() {
  func matches(_ pattern: String, _ subject: [UInt8], fold: Bool = true, literal: Bool = false) -> Bool {
    PathGlob(pattern: Array(pattern.utf8), foldCase: fold, literal: literal).matches(subject)
  }
  #expect(matches("img_*.png", Array("IMG_0001.PNG".utf8)))
  #expect(!matches("IMG_*.PNG", Array("img_0001.png".utf8), fold: false))
  #expect(!matches("*.png", Array("a.libpng16".utf8)))
  #expect(!matches("*.png", Array("a.optipng".utf8)))
  #expect(matches("*", []))
  #expect(matches("a*b*c", Array("aXbYbZc".utf8)))
  #expect(!matches("a*b*c", Array("aXbYbZ".utf8)))
  #expect(matches("?.png", Array("é.png".utf8)))
  #expect(matches("élan*", Array("ÉLAN.wav".utf8)))
  // Bytes that are not UTF-8: `?` takes one, literals compare byte for byte.
  #expect(matches("bad?.png", [0x62, 0x61, 0x64, 0xFF, 0x2E, 0x70, 0x6E, 0x67]))
  #expect(!matches("bad?.png", [0x62, 0x61, 0x64, 0xFF, 0xFE, 0x2E, 0x70, 0x6E, 0x67]))
  #expect(matches("bad\u{FFFD}.png", [0x62, 0x61, 0x64, 0xEF, 0xBF, 0xBD, 0x2E, 0x70, 0x6E, 0x67]))
  #expect(!matches("bad\u{FFFD}.png", [0x62, 0x61, 0x64, 0xFF, 0x2E, 0x70, 0x6E, 0x67]))
  #expect(matches("[a-c]?[!x]", Array("b1y".utf8)))
  #expect(!matches("[a-c]?[!x]", Array("b1x".utf8)))
  #expect(matches("[]]", Array("]".utf8)))
  #expect(matches("a[b", Array("a[b".utf8)))
  #expect(matches("\\*", Array("*".utf8)))
  #expect(!matches("\\*", Array("x".utf8)))
  #expect(matches("a*b", Array("a*b".utf8), literal: true))
  #expect(!matches("a*b", Array("aXb".utf8), literal: true))
}

@Test func termsWithoutWordCharactersAreUsageErrors() {
  for term in ["\"", "(", "*", "-", ",", "\"\""] {
    #expect(
      throws: QueryError(
        message: "query term '\(term == "\"\"" ? "" : term)' has no letters or digits to search for")
    ) {
      try CatalogQuery(arguments: [term])
    }
  }
  #expect(QueryError(message: "").failure == .usage)
}

@Test func postgresURLsHideTheirPasswords() {
  #expect(PostgresURL.mask("postgresql://me:pa%40ss@nas:5432/shelf") == "postgresql://me:***@nas:5432/shelf")
  #expect(
    PostgresURL.mask("postgres:///shelf?host=/run/postgresql") == "postgres:///shelf?host=/run/postgresql")
  #expect(
    PostgresURL.mask("postgresql://me@nas/shelf?sslmode=require&password=x&application_name=a")
      == "postgresql://me@nas/shelf?sslmode=require&password=***&application_name=a")
  #expect(
    PostgresURL.mask("postgresql://me:secret@nas/db", keepingLength: true) == "postgresql://me:******@nas/db")
  #expect(PostgresURL("postgresql://me:secret@nas/db")?.hasPassword == true)
  #expect(PostgresURL("postgresql://me@nas/db")?.hasPassword == false)
  #expect(PostgresURL("/home/me/catalog.sqlite") == nil)
}

@Test func globsBecomeAnchoredRegularExpressionsForPostgreSQL() {
  func regex(_ pattern: String, fold: Bool = false, literal: Bool = false) -> String {
    PathGlob(pattern: Array(pattern.utf8), foldCase: fold, literal: literal).textExpression
  }
  // The text form's expression is looser: ASCII kept, anything else one character.
  #expect(regex("*.png") == "^.*\\U0000002epng$")
  #expect(regex("?é[!a]", fold: false).hasSuffix("\\U000000e9.$"))
  #expect(regex("IMG_?[0-9]") == "^IMG\\U0000005f..$")
  #expect(regex("[!a]b") == "^.b$")
  #expect(regex("a*b", literal: true) == "^a\\U0000002ab$")
  #expect(regex("é") == "^\\U000000e9$")
  #expect(regex("é", fold: true) == "^[\\U000000e9\\U000000c9]$")
  #expect(regex("kb", fold: true) == "^[kK\\U0000212a][bB]$")
  #expect(PathGlob(pattern: Array("*.png".utf8), foldCase: true).textExpressionIsExact)
  #expect(!PathGlob(pattern: Array("*.pnk".utf8), foldCase: true).textExpressionIsExact)
  #expect(!PathGlob(pattern: Array("[ab]".utf8), foldCase: false).textExpressionIsExact)
  // The bytes' expression is exact: a byte that is not UTF-8 is a unit of its own, and case
  // folds to every scalar that folds alike.
  func bytes(_ pattern: String, fold: Bool = false, name: Bool = false) -> String {
    PathGlob(pattern: Array(pattern.utf8), foldCase: fold).byteExpression(lastComponent: name)
  }
  #expect(bytes("a") == "^\\u0061$")
  #expect(bytes("k", fold: true) == "^(?:\\u006b|\\u004b|\\u00e2\\u0084\\u00aa)$")
  #expect(bytes("é", fold: true) == "^(?:\\u00c3\\u00a9|\\u00c3\\u0089)$")
  #expect(bytes("?", name: true).hasPrefix("^.*/(?:(?!/)(?:(?:[\\u0001-\\u007f]|"))
  #expect(PathGlob.ByteExpression.utf8Sequences(0x80...0x10FFFF).count == 6)
  #expect(PathGlob.ByteExpression.rangeExpressions(0x61...0x63) == ["[\\u0061-\\u0063]"])
  #expect(
    PathGlob.ByteExpression.rangeExpressions(0x11_00FF...0x11_00FF).first?.hasSuffix("\\u00ff)") == true)
}

@Test func queriesCompileToPostgreSQL() throws {
  let (words, wordParameters) = try CatalogQuery(arguments: ["café", "noël"]).sql(.postgres)
  #expect(words.contains("f.search @@ to_tsquery('simple', unaccent(?))"))
  // Accents are folded by shelf, as in the index (`SearchTextFolding`).
  #expect(wordParameters.first == .text("cafe:*"))
  let (glob, _) = try CatalogQuery(arguments: ["name:*.png", "-path:*/Caches/*"]).sql(.postgres)
  #expect(
    glob
      == "((f.name ~* ? OR strpos(f.path_text, chr(65533)) > 0) AND (strpos(f.path_text, chr(65533)) = 0 OR convert_from(f.path, 'LATIN1') ~ ?)) AND NOT coalesce(((f.path_text ~ ? OR strpos(f.path_text, chr(65533)) > 0) AND (strpos(f.path_text, chr(65533)) = 0 OR convert_from(f.path, 'LATIN1') ~ ?)), false)"
  )
  #expect(
    try CatalogQuery(arguments: ["root:/data/*"]).sql(.postgres).0 == "(convert_from(r.path, 'LATIN1') ~ ?)")
  let (text, _) = try CatalogQuery(arguments: ["kind:image", "artist:bach"]).sql(.postgres)
  #expect(text == "lower(f.kind) = lower(?) AND f.artist ILIKE ? ESCAPE '\\'")
  #expect(try CatalogQuery(arguments: []).sql(.postgres).0 == "true")
  #expect(
    PostgresConnection.numbered("a = ? AND b LIKE '?' AND c > ?", [.text("x"), .real(1.5)])
      == "a = $1::text AND b LIKE '?' AND c > $2::float8")
}

@Test func aSchema9CatalogueGetsTheQueryIndexesAndItsPathsInTheTrigrams() async throws {
  let scratch: TemporaryDirectory
  let words = ["chord"]
  let globs = ["name:*chord*"]
  let expected: [[String]]
  do {
    let (copy, store) = try await MediaFactsCatalogTests.indexedCopy()
    scratch = copy
    expected = [
      try MediaFactsCatalogTests.names(store, words), try MediaFactsCatalogTests.names(store, globs),
    ]
    try dropSchema10Indexes(store.db)
    try store.db.execute("PRAGMA user_version = 9")
  }
  #expect(expected[0].count >= 2)
  let path = scratch.raw("catalog.sqlite")
  let upgraded = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
  // The rows catalogued before are in the path trigrams the words and globs read first.
  #expect(try MediaFactsCatalogTests.names(upgraded, words) == expected[0])
  #expect(try MediaFactsCatalogTests.names(upgraded, globs) == expected[1])
  let indexes = try upgraded.db.query(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'files\\_%' ESCAPE '\\'")
  #expect(indexes.count == 6)
  // A rename and a removal reach the trigrams through the triggers: the new name is found, and
  // the table still agrees with the rows (FTS5's integrity check compares them).
  let media = scratch.file("media")
  let old = try #require(
    FileManager.default.enumerator(atPath: media)?.first {
      ($0 as? String)?.hasSuffix("morning-chord.m4a") == true
    } as? String)
  try FileManager.default.moveItem(atPath: media + "/" + old, toPath: media + "/evening-tune.m4a")
  try FileManager.default.removeItem(
    atPath: media + "/"
      + (try #require(
        FileManager.default.enumerator(atPath: media)?.first {
          ($0 as? String)?.hasSuffix("chord-stereo.flac") == true
        } as? String)))
  var options = IndexOptions()
  options.recentWindow = 0
  _ = try await Indexer(store: upgraded, options: options).index(root: scratch.raw("media"))
  #expect(try MediaFactsCatalogTests.names(upgraded, ["name:*evening*"]) == ["evening-tune.m4a"])
  #expect(try MediaFactsCatalogTests.names(upgraded, ["name:*chord-stereo*"]) == [])
  try upgraded.db.execute("INSERT INTO files_paths(files_paths) VALUES ('integrity-check')")
}

@Test func aSchema11CatalogueLosesItsInsertTriggerAndItsNewPathsStillReachTheTrigrams() async throws {
  let scratch: TemporaryDirectory
  let expected: [String]
  do {
    let (copy, store) = try await MediaFactsCatalogTests.indexedCopy()
    scratch = copy
    expected = try MediaFactsCatalogTests.names(store, ["chord"])
    try restoreSchema11Trigger(store.db)
    try store.db.execute("PRAGMA user_version = 11")
  }
  let path = scratch.raw("catalog.sqlite")
  let upgraded = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
  let triggers = try upgraded.db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
  #expect(triggers.map { $0.first?.text } == ["files_paths_delete", "files_paths_update"])
  #expect(try MediaFactsCatalogTests.names(upgraded, ["chord"]) == expected)
  // A file added after the upgrade is in the trigrams once (written by the store, not twice
  // by a trigger as well), and a re-read one keeps its single row.
  try Data("a chord chart".utf8).write(to: URL(fileURLWithPath: scratch.file("media/chord-chart.txt")))
  var options = IndexOptions()
  options.recentWindow = 0
  options.full = true
  _ = try await Indexer(store: upgraded, options: options).index(root: scratch.raw("media"))
  #expect(try MediaFactsCatalogTests.names(upgraded, ["chord"]) == (expected + ["chord-chart.txt"]).sorted())
  #expect(try MediaFactsCatalogTests.names(upgraded, ["name:*chart*"]) == ["chord-chart.txt"])
  try upgraded.db.execute("INSERT INTO files_paths(files_paths) VALUES ('integrity-check')")
}

@Test func aSchema12CatalogueGetsTheLivePhotoQueueIndexThatScansAskThrough() async throws {
  let scratch: TemporaryDirectory
  do {
    let (copy, store) = try await MediaFactsCatalogTests.indexedCopy()
    scratch = copy
    try dropSchema13Index(store.db)
    try store.db.execute("PRAGMA user_version = 12")
  }
  let upgraded = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
  #expect(try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
  // The question every scan asks reads the small partial index, not the whole table.
  let plan = try upgraded.db.query(
    "EXPLAIN QUERY PLAN SELECT path FROM files WHERE root_id = 1 AND content_id IS NOT NULL AND live_photo IS NULL"
  ).compactMap { $0.last?.text }
  #expect(plan.contains { $0.contains("USING INDEX files_live_photo_queue") }, "\(plan)")
}

@Test func timesBeyondTheDayArithmeticAreRefusedNotATrap() throws {
  // A 14-digit year overflowed the day count; 10^17 days ago overflowed the whole seconds of a
  // local time (taken).
  for (field, value) in [
    ("mtime", "99999999999999"), ("taken", "99999999999999"), ("taken", "-99999999999999999d"),
    ("mtime", "+99999999999999999y"), ("taken", "10000-01-01"),
  ] {
    #expect(throws: QueryError(message: "field '\(field)' cannot compare with '\(value)'")) {
      try parameters(["\(field):\(value)"])
    }
  }
  #expect(try parameters(["taken:9999"]).count == 2)
  #expect(try parameters(["mtime:-3d.."]) == [.real((1_000_000 - 3 * 86400) * 1e9)])
}

@Test func aSchema15CatalogueGetsAFullTextTableWithoutColumnsAndFindsTheSameWords() async throws {
  let scratch: TemporaryDirectory
  // Words found in texts' bodies ("participants", "budget": the café notes), in accented form
  // folded ("résumé" as "resume"), and as a prefix ("crus" of "crush": the release notes).
  let queries = [["participants", "budget"], ["resume"], ["crus"]]
  let expected: [[String]]
  do {
    let (copy, store) = try await MediaFactsCatalogTests.indexedCopy()
    scratch = copy
    expected = try queries.map { try MediaFactsCatalogTests.names(store, $0) }
    // Schema 15's table: the same rows, with column lists.
    try store.db.execute(
      """
      CREATE VIRTUAL TABLE files_fts_old USING fts5(
        tags, body, tokenize = "unicode61 remove_diacritics 2", detail = column);
      INSERT INTO files_fts_old(rowid, tags, body) SELECT rowid, tags, body FROM files_fts;
      DROP TABLE files_fts;
      ALTER TABLE files_fts_old RENAME TO files_fts;
      PRAGMA user_version = 15;
      """)
  }
  #expect(expected == [["cafe-latin1.txt"], ["cafe-latin1.txt"], ["release-notes.md"]])
  let upgraded = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
  #expect(try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
  let table = try upgraded.db.query("SELECT sql FROM sqlite_master WHERE name = 'files_fts'").first?.first?
    .text
  #expect(table?.contains("detail = none") == true, "\(table ?? "no table")")
  #expect(
    try upgraded.db.query("SELECT v FROM files_fts_config WHERE k = 'automerge'").first?.first?.integer == 8)
  #expect(try queries.map { try MediaFactsCatalogTests.names(upgraded, $0) } == expected)
  try upgraded.db.execute("INSERT INTO files_fts(files_fts) VALUES ('integrity-check')")
}
