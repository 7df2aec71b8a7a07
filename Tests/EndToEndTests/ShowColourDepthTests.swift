import Foundation
import ShelfTestSupport
import Testing

/// Half-block previews in the colours the terminal announces: 24-bit with COLORTERM or a
/// terminfo entry of 16777216 colours, else xterm's 256 or the 16 ANSI colours.
@Suite struct ShowColourDepthTests {
  private let picture = ShelfProcess.repositoryRoot.appendingPathComponent(
    "SampleMedia/Documents/holiday.jpg"
  )
  .path

  /// The first row of the preview of a picture whose top-left pixels are (200, 0, 40).
  private func firstRow(_ environment: [String: String]) throws -> String {
    let result = try ShelfProcess.run(
      ["show", "--color", "always", "--width", "80", picture],
      environment: ["COLORTERM": "", "TERMINFO": "/nonexistent"].merging(environment) { $1 })
    #expect(result.status == 0, "\(result.stderr)")
    return String(result.stdout.split(separator: "\n").first ?? "")
  }

  @Test func eachTerminalGetsTheColoursItAnnounces() throws {
    let trueColour = "\u{1B}[38;2;200;0;40m\u{1B}[48;2;200;0;40m▀"
    let palette256 = "\u{1B}[38;5;160m\u{1B}[48;5;160m▀"
    let palette16 = "\u{1B}[31m\u{1B}[41m▀"
    for (environment, start) in [
      (["COLORTERM": "truecolor", "TERM": "xterm"], trueColour),
      (["COLORTERM": "24bit", "TERM": "xterm-256color"], trueColour),
      (["TERM": "xterm-256color"], palette256),
      (["TERM": "xterm"], palette16),
      (["TERM": "linux"], palette16),
      (["TERM": ""], palette16),
    ] {
      let row = try firstRow(environment)
      #expect(row.hasPrefix(start), "\(environment): \(row.prefix(40).debugDescription)")
      #expect(row.filter { $0 == "▀" }.count == 32)
      if start != trueColour { #expect(!row.contains("8;2;"), "\(environment)") }
    }
  }

  @Test func terminfoEntriesSayHowManyColoursTheTerminalHas() throws {
    let folder = try TemporaryDirectory()
    let source = try folder.write(
      "entries.src",
      Array(
        "shelfdeep|deep colours,\n\tcolors#0x1000000, use=xterm,\nshelfpal|a palette,\n\tcolors#256, use=xterm,\n"
          .utf8))
    let compiled = try ExternalTool.run(["tic", "-x", "-o", folder.path + "/terminfo", source])
    try #require(compiled.status == 0, "\(compiled.stderr)")
    let terminfo = folder.path + "/terminfo"
    #expect(try firstRow(["TERM": "shelfdeep", "TERMINFO": terminfo]).hasPrefix("\u{1B}[38;2;200;0;40m"))
    #expect(try firstRow(["TERM": "shelfpal", "TERMINFO": terminfo]).hasPrefix("\u{1B}[38;5;160m"))
    // A damaged entry counts as none: 16 colours, and no crash.
    try FileManager.default.createDirectory(atPath: terminfo + "/b", withIntermediateDirectories: true)
    _ = try folder.write("terminfo/b/broken", [0x1A, 0x01, 0xFF, 0x7F, 0x01, 0x00, 0x20, 0x00, 0x00])
    #expect(try firstRow(["TERM": "broken", "TERMINFO": terminfo]).hasPrefix("\u{1B}[31m"))
  }
}
