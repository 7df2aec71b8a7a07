import Foundation
import ShelfTestSupport
import Testing

/// The sample notes in legacy and Unicode encodings, through the binary: indexed and found by
/// the words they hold, shown decoded, printed raw.
@Suite struct TextEncodingCommandTests {
  /// The notes, with the iconv name of their encoding (iconv, not shelf, decodes the expectation).
  static let notes: [(file: String, iconv: String, bom: Int)] = [
    ("todo-windows1251.txt", "WINDOWS-1251", 0), ("letter-koi8r.txt", "KOI8-R", 0),
    ("trip-shiftjis.txt", "CP932", 0), ("minutes-gb18030.txt", "GB18030", 0),
    ("ferry-utf16be.txt", "UTF-16BE", 0), ("today-utf32le.txt", "UTF-32LE", 4),
  ]

  private func sample(_ name: String) -> String {
    ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents/Notes/" + name).path
  }

  /// The note decoded by iconv, without its byte-order mark.
  private func decodedByIconv(_ path: String, from encoding: String, bom: Int) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
    process.arguments = ["-f", encoding, "-t", "UTF-8"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try input.fileHandleForWriting.write(contentsOf: bytes.dropFirst(bom))
    try input.fileHandleForWriting.close()
    let text = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: text, as: UTF8.self)
  }

  @Test(arguments: notes.indices)
  func showDecodesEachNoteToUTF8(_ index: Int) throws {
    let note = Self.notes[index]
    let result = try ShelfProcess.run(["show", sample(note.file)])
    #expect(result.status == 0)
    #expect(result.stdout == (try decodedByIconv(sample(note.file), from: note.iconv, bom: note.bom)))
    #expect(result.stderr.isEmpty)
  }

  @Test func showWritesTheTerminalsCodeset() throws {
    // A KOI8-R locale gets the KOI8-R note back byte for byte, and the Shift_JIS note's
    // Japanese, which KOI8-R cannot hold, as question marks.
    let koi8 = try ShelfProcess.run(
      ["show", sample("letter-koi8r.txt")], environment: ["LC_ALL": "ru_RU.KOI8-R"])
    #expect(koi8.status == 0)
    #expect(koi8.stdoutBytes == Array(try Data(contentsOf: URL(fileURLWithPath: sample("letter-koi8r.txt")))))
    let japanese = try ShelfProcess.run(
      ["show", sample("trip-shiftjis.txt")], environment: ["LANG": "ru_RU.KOI8-R"])
    #expect(japanese.stdout.hasPrefix("?????\n"))
  }

  @Test func showRawPrintsTheBytesUnchanged() throws {
    for note in Self.notes {
      let result = try ShelfProcess.run(["show", "--raw", sample(note.file)])
      #expect(result.status == 0)
      let bytes = try Data(contentsOf: URL(fileURLWithPath: sample(note.file)))
      #expect(result.stdoutBytes == Array(bytes), "\(note.file)")
    }
    // --raw prints facts of no kind: combined with --json it is a usage error.
    let both = try ShelfProcess.run(["show", "--raw", "--json", sample("letter-koi8r.txt")])
    #expect(both.status == 64)
  }

  @Test(arguments: TestCatalogues.kinds) func wordsOfLegacyNotesAreSearchable(store: CatalogueStoreKind)
    throws
  {
    let catalogue = try IndexedSample(store)
    #expect(catalogue.indexResult.status == 0)
    // "Привет" in KOI8-R; the index folds case.
    let russian = try catalogue.records(["привет"])
    #expect(Set(russian.keys) == ["Documents/Notes/letter-koi8r.txt"])
    #expect(Set(try catalogue.records(["бабушке"]).keys) == ["Documents/Notes/todo-windows1251.txt"])
    #expect(Set(try catalogue.records(["Σαντορίνη"]).keys) == ["Documents/Notes/ferry-utf16be.txt"])
    // Accents are folded: "creme" finds "crème" (UTF-16LE with BOM).
    #expect(Set(try catalogue.records(["creme"]).keys) == ["Documents/Notes/shopping-utf16le.txt"])
    let record = try #require(russian["Documents/Notes/letter-koi8r.txt"])
    let text = try #require(record["text"] as? [String: Any])
    #expect(text["encoding"] as? String == "koi8-r")
    #expect(text["first_line"] as? String == "Письмо другу")
  }

  @Test func undecodableBytesAndControlsAreShownVisibly() throws {
    let scratch = try TemporaryDirectory()
    // 2 MiB of ASCII lines with one 0xFF between the sampled segments: the whole file is read,
    // and it is not ASCII (nor UTF-8) but Latin-1, whose ÿ show prints.
    var bytes = Array(String(repeating: "a line of plain text\n", count: 100_000).utf8)
    bytes[100_000] = 0xFF
    let path = scratch.path + "/long.txt"
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let info = try ShelfProcess.run(["info", "--json", path])
    #expect(info.stdout.contains("\"encoding\":\"latin-1\""))
    let shown = try ShelfProcess.run(["show", path])
    #expect(shown.status == 0)
    #expect(shown.stdout.contains("texÿ\n"))
    #expect(shown.stdoutBytes.count == bytes.count + 1)
    // A byte that does not decode (half a UTF-16 unit at the end) is shown as \xNN.
    let odd = scratch.path + "/odd.txt"
    #expect(
      FileManager.default.createFile(
        atPath: odd, contents: Data([0xFF, 0xFE, 0x68, 0, 0x69, 0, 0x0A, 0, 0x41])))
    let oddShown = try ShelfProcess.run(["show", odd])
    #expect(oddShown.stdout == "hi\n\\x41\n")

    // An escape sequence and a lone carriage return are printed in caret notation.
    let colours = scratch.path + "/colours.txt"
    let text = "plain \u{1B}[31mred\u{1B}[0m and\rback\r\n"
    #expect(FileManager.default.createFile(atPath: colours, contents: Data(text.utf8)))
    let escaped = try ShelfProcess.run(["show", colours])
    #expect(escaped.stdout == "plain ^[[31mred^[[0m and^Mback\r\n")
  }
}
