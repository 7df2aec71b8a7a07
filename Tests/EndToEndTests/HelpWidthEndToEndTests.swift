import Foundation
import ShelfTestSupport
import Testing

/// `--help` of every command the binary has (the names `shelf help help` lists from the
/// command table) fits 80 columns exactly (issue 44, item 15: show's was 99, index's 85).
@Suite struct HelpWidthEndToEndTests {
  @Test func everyHelpPageFits80Columns() throws {
    let helpOfHelp = try ShelfProcess.run(["help", "help"])
    let section = helpOfHelp.stdout.components(separatedBy: "COMMANDS:\n").last?.components(
      separatedBy: "\n\n")
    let names = (section?.first ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
    #expect(names.count >= CLITests.commandNames.count)
    var pages = [["--help"], ["help", "help"]] + names.map { [$0, "--help"] }
    pages.append([])  // `shelf` alone: the usage summary, on stderr.
    for arguments in pages {
      let result = try ShelfProcess.run(arguments, environment: ["COLUMNS": "80"])
      let text = arguments.isEmpty ? result.stderr : result.stdout
      #expect(text.count > 100, "\(arguments)")
      let wide = text.split(separator: "\n").filter { $0.unicodeScalars.count > 80 }
      #expect(wide == [], "shelf \(arguments.joined(separator: " "))")
    }
  }
}
