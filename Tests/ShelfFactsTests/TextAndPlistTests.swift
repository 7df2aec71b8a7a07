import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

private func analyze(_ bytes: [UInt8]) throws -> TextAnalyzer.Analysis {
  let encoding = try #require(TextSniffer.detectEncoding(bytes))
  return try TextAnalyzer.analyze(MemoryBytes(bytes), encoding: encoding)
}

@Test func countsLinesWordsAndCharacters() throws {
  let facts = try analyze(Array("Grüße aus\nKöln\n\nzwei  Wörter".utf8)).facts
  #expect(
    facts
      == TextFacts(
        encoding: .utf8, bom: false, lineEndings: .lf, lines: 4, words: 5, chars: 28, firstLine: "Grüße aus")
  )
}

@Test func lineEndingKinds() throws {
  #expect(try analyze(Array("a\r\nb\r\n".utf8)).facts.lineEndings == .crlf)
  #expect(try analyze(Array("a\r\nb\r\n".utf8)).facts.lines == 2)
  #expect(try analyze(Array("a\rb\r".utf8)).facts.lineEndings == .cr)
  #expect(try analyze(Array("a\nb\r\n".utf8)).facts.lineEndings == .mixed)
  #expect(try analyze(Array("no newline".utf8)).facts.lineEndings == .noBreak)
  #expect(try analyze(Array("no newline".utf8)).facts.lines == 1)
}

@Test func utf16WithBOMCountsScalarsAfterTheBOM() throws {
  var bytes: [UInt8] = [0xFF, 0xFE]
  for unit in "豆腐 😀\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
  let analysis = try analyze(bytes)
  #expect(
    analysis.facts
      == TextFacts(
        encoding: .utf16le, bom: true, lineEndings: .lf, lines: 1, words: 2, chars: 5, firstLine: "豆腐 😀"))
  #expect(analysis.searchText == "豆腐 😀")
}

@Test func searchTermsAreTheDistinctWordsInOrder() {
  #expect(
    TextAnalyzer.searchTerms("The cat, the hat; the CAT's café-au-lait.\nThe end", limit: 1000)
      == "The cat the hat CAT s café au lait end")
  // A word cut by the limit is left out.
  #expect(TextAnalyzer.searchTerms("alpha beta gamma", limit: 13) == "alpha beta")
}

/// Thousands of distinct words (the word table grows past its first size several times), each
/// met three times: every word once, in order of first appearance.
@Test func searchTermsKeepEveryDistinctWordOfALongText() {
  let words = (0..<5000).map { "w\(String($0, radix: 36))x" }
  let text = (words + words.reversed() + words).joined(separator: " ")
  #expect(TextAnalyzer.searchTerms(text, limit: 1 << 20) == words.joined(separator: " "))
}

@Test func latin1IsDecoded() throws {
  let analysis = try analyze(Array("caf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8] + Array("me\n".utf8))
  #expect(analysis.facts.encoding == .latin1)
  #expect(analysis.facts.firstLine == "café crème")
  #expect(analysis.facts.chars == 11)
}

/// A huge file of one repeated byte, without holding it in memory.
private struct RepeatedBytes: ByteSource {
  var size: Int64
  func read(count: Int, at offset: Int64) throws -> [UInt8] {
    [UInt8](repeating: UInt8(ascii: "a"), count: Int(max(0, min(Int64(count), size - offset))))
  }
}

@Test func singleLineLongerThanAnyBlockIsCountedWhole() throws {
  // 96 MiB of one line, never held in memory: every character counts, the first line is capped.
  let source = RepeatedBytes(size: 96 << 20)
  let analysis = try TextAnalyzer.analyze(source, encoding: DetectedEncoding(encoding: .ascii, bom: false))
  #expect(analysis.facts.chars == 96 << 20)
  #expect(analysis.facts.words == 1)
  #expect(analysis.facts.lines == 1)
  #expect(analysis.facts.firstLine.count == 200)
  #expect(analysis.searchText.utf8.count <= TextAnalyzer.searchTextLimit)
}

/// Counts newlines and whitespace-separated words with `wc`, independently of shelf.
private func wordCount(_ path: String) throws -> (lines: Int, words: Int) {
  let process = Process()
  let pipe = Pipe()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/wc")
  process.arguments = ["-l", "-w", path]
  process.environment = ["LC_ALL": "C"]
  process.standardOutput = pipe
  try process.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  let fields = output.split(separator: " ").compactMap { Int($0) }
  return (fields[0], fields[1])
}

@Test func a73MiBTextIsCountedExactlyAndIsNotBadInput() throws {
  let scratch = try TemporaryDirectory()
  // Lines of 0 to 12 words, different lengths, written a megabyte at a time.
  var block: [UInt8] = []
  var line = 0
  while block.count < 1 << 20 {
    let words = (0..<(line % 13)).map { "w\(($0 * 7 + line) % 1000)" }
    block += Array((words.joined(separator: line % 3 == 0 ? "\t" : " ") + "\n").utf8)
    line += 1
  }
  let path = scratch.file("big.txt")
  #expect(FileManager.default.createFile(atPath: path, contents: nil))
  let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
  for _ in 0..<73 { try handle.write(contentsOf: block) }
  try handle.close()
  let size = Int64(block.count) * 73
  #expect(size > 73 << 20)

  let extraction = try MetadataExtractor.extract(path: RawPath(path))
  #expect(extraction.error == nil)
  let facts = try #require(extraction.text)
  let expected = try wordCount(path)
  #expect(facts.lines == expected.lines)
  #expect(facts.lines == line * 73)
  #expect(facts.words == expected.words)
  #expect(facts.chars == Int(size))
}

// MARK: Property lists

@Test func xmlPlistWithEntitiesAndNesting() throws {
  let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <!-- a comment -->
      <key>Name</key><string>Tom &amp; Jerry &lt;3 &#x263A;</string>
      <key>Count</key><integer>-42</integer>
      <key>Ratio</key><real>0.5</real>
      <key>On</key><true/>
      <key>Blob</key><data>AAEC</data>
      <key>When</key><date>2024-05-01T12:00:00Z</date>
      <key>List</key><array><string>a</string><array/><dict/></array>
    </dict>
    </plist>
    """
  let plist = try PropertyList.parse(Array(xml.utf8))
  #expect(
    plist.facts
      == PlistFacts(
        format: .xml, root: "dictionary", keys: ["Name", "Count", "Ratio", "On", "Blob", "When", "List"]))
  #expect(plist.root["Name"] == .string("Tom & Jerry <3 ☺"))
  #expect(plist.root["Count"] == .integer(-42))
  #expect(plist.root["Blob"] == .data([0, 1, 2]))
  #expect(plist.root["List"] == .array([.string("a"), .array([]), .dictionary([])]))
}

@Test func xmlPlistErrorsAreOneLine() {
  #expect(throws: HeaderError("XML plist: expected </string>, found </dict>")) {
    try PropertyList.parse(Array("<plist><dict><key>a</key><string>x</dict></plist>".utf8))
  }
  let deep = String(repeating: "<array>", count: 2000) + String(repeating: "</array>", count: 2000)
  #expect(throws: HeaderError("XML plist nested too deeply")) {
    try PropertyList.parse(Array(("<plist>" + deep + "</plist>").utf8))
  }
}

/// Builds a binary plist from encoded objects (1-byte refs and offsets).
private func bplist(_ objects: [[UInt8]], top: Int = 0, offsetPatch: [Int: Int] = [:]) -> [UInt8] {
  var out = Array("bplist00".utf8)
  var offsets: [Int] = []
  for object in objects {
    offsets.append(out.count)
    out += object
  }
  let table = out.count
  for (index, offset) in offsets.enumerated() { out.append(UInt8(offsetPatch[index] ?? offset)) }
  out += [0, 0, 0, 0, 0, 0, 1, 1]
  out += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
  out += [0, 0, 0, 0, 0, 0, 0, UInt8(top)]
  out += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
  return out
}

@Test func binaryPlistDictionary() throws {
  let file = bplist([
    [0xD2, 1, 2, 3, 4],  // dict with 2 keys
    [0x54] + Array("Name".utf8),
    [0x53] + Array("Age".utf8),
    [0x53] + Array("Bob".utf8),
    [0x10, 42],
  ])
  let plist = try PropertyList.parse(file)
  #expect(plist.facts == PlistFacts(format: .binary, root: "dictionary", keys: ["Name", "Age"]))
  #expect(plist.root["Age"] == .integer(42))
}

@Test func binaryPlistReferenceCycleIsRefused() {
  // An array that contains itself.
  let file = bplist([[0xA1, 0]])
  #expect(throws: HeaderError("corrupt binary plist: reference cycle")) { try PropertyList.parse(file) }
}

@Test func binaryPlistOffsetsPastTheEndAreRefused() {
  let file = bplist([[0xA1, 1], [0x10, 1]], offsetPatch: [1: 250])
  #expect(throws: HeaderError("corrupt binary plist: object offset past the end")) {
    try PropertyList.parse(file)
  }
  var truncatedTable = bplist([[0x10, 1]])
  truncatedTable[truncatedTable.count - 1] = 0xF0
  #expect(throws: HeaderError("corrupt binary plist: offset table past the end")) {
    try PropertyList.parse(truncatedTable)
  }
}

@Test func binaryPlistSharedReferencesAreBounded() throws {
  // Each array holds the next one twice: 2^40 values if expanded naively.
  var objects: [[UInt8]] = []
  for index in 0..<40 { objects.append([0xA2, UInt8(index + 1), UInt8(index + 1)]) }
  objects.append([0x09])
  #expect(throws: HeaderError("binary plist has too many values")) { try PropertyList.parse(bplist(objects)) }
}

/// The C set of words against a plain one, on texts of every length from 0 to 200 bytes (words
/// across the 64-byte blocks it classifies at a time, at the very end, of 1 to 20 bytes, with
/// non-ASCII letters), from a fixed generator.
@Test func searchTermsAgreeWithAPlainSetOnTextsOfEveryLength() {
  let pieces = [
    "a", "ab", "abcdefgh", "abcdefghi", "abcdefghijklmnopqrst", "Zoë", "ab", "9", " ", ", ", "\n", "—",
  ]
  var seed: UInt64 = 0x1234_5678
  for length in 0...200 {
    var text = ""
    while text.utf8.count < length {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      text += pieces[Int(seed >> 33) % pieces.count]
    }
    var seen = Set<Substring>()
    let words = text.split { !$0.isASCII ? false : !($0.isLetter || $0.isNumber) }.filter {
      seen.insert($0).inserted
    }
    #expect(TextAnalyzer.searchTerms(text, limit: 1 << 20) == words.joined(separator: " "), "\(text)")
  }
}
