import CSQLite
import Foundation
import ShelfCore
import ShelfDatabase
import ShelfTestSupport
import Testing

/// The one SQLite wrapper, as both of its users rely on it: the catalogue (functions, typed
/// errors) and the backup reader, which must never write in a backup folder.
@Suite struct SQLiteConnectionTests {
  /// Makes a small database with one table of two rows.
  private func makeDatabase(at path: RawPath) throws {
    let db = try SQLiteConnection(path: path, create: true, functions: [])
    try db.execute(
      "CREATE TABLE Files(fileID TEXT, size INTEGER); INSERT INTO Files VALUES('a', 1), ('b', 2)")
    try db.close()
  }

  @Test func anImmutableConnectionReadsAndLeavesTheFolderAsItWas() throws {
    let scratch = try TemporaryDirectory()
    let path = RawPath(scratch.file("Manifest.db"))
    try makeDatabase(at: path)
    let before = try FileStatus.lstat(path)
    let db = try SQLiteConnection(path: path, create: false, immutable: true, functions: [])
    let statement = try db.prepare("SELECT fileID, size FROM Files ORDER BY fileID")
    var rows: [String] = []
    while try statement.step() {
      rows.append("\(statement.text(at: 0) ?? "")=\(statement.integer(at: 1) ?? -1)")
    }
    #expect(rows == ["a=1", "b=2"])
    let refused = #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM Files") }
    #expect(refused?.failure == .cannotCreate)
    try db.close()
    // No journal, -wal or -shm file beside it, and the file itself untouched.
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Manifest.db"])
    #expect(try FileStatus.lstat(path).mtimeNanoseconds == before.mtimeNanoseconds)
    #expect(try FileStatus.lstat(path).size == before.size)
  }

  @Test func aDatabaseFromBytesInMemoryIsReadOnly() throws {
    let scratch = try TemporaryDirectory()
    let path = RawPath(scratch.file("plain.db"))
    try makeDatabase(at: path)
    let bytes = try RegularFile(path: path).readAll(limit: 1 << 20)
    let db = try SQLiteConnection(bytes: bytes, path: RawPath("decrypted Manifest.db"))
    let statement = try db.prepare("SELECT count(*) FROM Files")
    #expect(try statement.step())
    #expect(statement.integer(at: 0) == 2)
    #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO Files VALUES('c', 3)") }
  }

  @Test func bytesThatAreNotADatabaseAreACorruptionError() throws {
    let db = try SQLiteConnection(bytes: Array(repeating: 0x41, count: 4096), path: RawPath("x.db"))
    let error = #expect(throws: SQLiteError.self) { _ = try db.prepare("SELECT * FROM Files") }
    #expect(error?.isCorruption == true)
    #expect(error?.failure == .badInput)
  }

  @Test func registeredFunctionsAreCallable() throws {
    let twice = SQLiteFunction(name: "twice", argumentCount: 1, deterministic: true) { context, _, values in
      sqlite3_result_int64(context, 2 * sqlite3_value_int64(values![0]))
    }
    let scratch = try TemporaryDirectory()
    let db = try SQLiteConnection(path: RawPath(scratch.file("f.db")), create: true, functions: [twice])
    let statement = try db.prepare("SELECT twice(21)")
    #expect(try statement.step())
    #expect(statement.integer(at: 0) == 42)
  }
}
