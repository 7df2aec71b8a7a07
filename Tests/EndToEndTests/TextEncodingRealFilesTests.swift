import Foundation
import ShelfTestSupport
import Testing

/// Real files of Debian's /usr/share that shelf once named and showed wrong (issue 44), through
/// the binary: `info` names their encoding and `show` prints exactly their text.
@Suite struct TextEncodingRealFilesTests {
  private func fixture(_ name: String) -> String {
    ShelfProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/text/" + name).path
  }

  private func bytes(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
  }

  /// The encoding `shelf info --json` gives the file.
  private func encoding(_ name: String) throws -> String? {
    let result = try ShelfProcess.run(["info", "--json", fixture(name)])
    #expect(result.status == 0)
    let record = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
    return (record?["text"] as? [String: Any])?["encoding"] as? String
  }

  /// glibc locale files are ASCII (once UTF-7, which showed `^[+1yY]` as `^[휦]`): shown byte
  /// for byte.
  @Test(arguments: ["aa_ET", "bo_CN"]) func asciiLocaleFilesShowUnchanged(_ name: String) throws {
    #expect(try encoding(name) == "ascii")
    let result = try ShelfProcess.run(["show", fixture(name)])
    #expect(result.status == 0)
    #expect(result.stdoutBytes == (try bytes(name)))
    #expect(result.stdout.contains("+1yY"))
    #expect(result.stderr.isEmpty)
  }

  /// Valid UTF-8 with a C1 control (U+009E, an `ž` that went through windows-1252 and Latin-1)
  /// is UTF-8 (once Mac Roman, which showed `moguće` as `moguƒáe`); the control in caret
  /// notation.
  @Test func utf8WithAC1ControlShowsAsUTF8() throws {
    #expect(try encoding("pingus-sr.po") == "utf-8")
    let result = try ShelfProcess.run(["show", fixture("pingus-sr.po")])
    #expect(result.status == 0)
    let text = String(decoding: try bytes("pingus-sr.po"), as: UTF8.self)
    #expect(result.stdout == text.replacingOccurrences(of: "\u{9E}", with: "M-^^"))
    #expect(result.stdout.contains("Nije moguće snimiti fajl"))
  }

  /// Latin-1 tables of letters (groff's hyphenation codes, Vim's keymaps) are Latin-1, once
  /// windows-1258, windows-1256 and x-mac-ce: shown as Latin-1 decodes them.
  @Test(arguments: ["de.tmac", "fr.tmac", "accents.vim", "canfr-win.vim"])
  func latin1TablesShowAsLatin1(_ name: String) throws {
    #expect(try encoding(name) == "latin-1")
    let result = try ShelfProcess.run(["show", fixture(name)])
    #expect(result.status == 0)
    let latin1 = String(String.UnicodeScalarView(try bytes(name).map { Unicode.Scalar($0) }))
    #expect(result.stdout == latin1)
  }
}
