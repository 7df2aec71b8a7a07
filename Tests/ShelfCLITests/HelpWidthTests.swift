import Testing

@testable import ShelfCLI

/// Every help page fits 80 columns, as the terminals people read it on (issue 44, item 15):
/// the overview, the options, the examples' command lines (broken with a backslash as the
/// shell continues them) and the usage summary of `shelf` alone.
@Suite struct HelpWidthTests {
  static let renderer = HelpRenderer(commands: CommandTable.commands, width: 80)

  /// The lines of `text` wider than 80 columns.
  static func wide(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { TextLayout.displayWidth($0) > 80 }
  }

  @Test(arguments: CommandTable.commands.map(\.name)) func everyCommandsHelpFits80Columns(_ name: String)
    throws
  {
    let command = try #require(CommandTable.commands.first { $0.name == name })
    #expect(Self.wide(Self.renderer.help(for: command)) == [])
  }

  @Test func theRootHelpHelpOfHelpAndUsageSummaryFit80Columns() {
    #expect(Self.wide(Self.renderer.rootHelp()) == [])
    #expect(Self.wide(Self.renderer.helpOfHelp()) == [])
    #expect(Self.wide(Self.renderer.usageSummary()) == [])
  }

  @Test func aLongExampleBreaksWhereTheShellSplitsIt() {
    #expect(
      HelpRenderer.shellWords(#"shelf index ~/Application\ Support 'a b' "c d""#)
        == ["shelf", "index", #"~/Application\ Support"#, "'a b'", #""c d""#])
    let page = Self.renderer.help(for: IndexCommand.command)
    #expect(
      page.contains(
        "  shelf --password-file pw.txt index \\\n    ~/Library/Application\\ Support/MobileSync/Backup\n"))
  }
}
