import Foundation
import Testing

@testable import ShelfCLI

@Test func helpListsEveryOptionAndWrapsToTheWidth() {
  let renderer = HelpRenderer(commands: CommandTable.commands, width: 60)
  for command in CommandTable.commands {
    let help = renderer.help(for: command)
    // The overview is wrapped like the rest: joined again, it is the abstract.
    let overview = help.components(separatedBy: "\n\n")[0]
    #expect(overview.replacingOccurrences(of: "\n", with: " ") == "OVERVIEW: \(command.abstract)")
    #expect(help.contains("USAGE: \(command.usage)\n"))
    for option in command.options {
      #expect(help.contains(option.synopsis), "\(command.name) help lacks \(option.synopsis)")
    }
    for line in help.split(separator: "\n") where !line.hasPrefix("USAGE") {
      // Only a single word longer than the room left may overflow.
      #expect(
        line.count <= 60 || !line.trimmingCharacters(in: .whitespaces).contains(" "),
        "line too wide in \(command.name) help: \(line)")
    }
  }
}

@Test func wrappingKeepsWordsWholeAndIndents() {
  #expect(TextLayout.wrap("aaa bbb ccc", width: 8, indent: 2) == "  aaa\n  bbb\n  ccc")
  #expect(TextLayout.wrap("aaa bbb", width: 20) == "aaa bbb")
}

@Test func tablesAlignColumnsByDisplayWidth() {
  let lines = TableRenderer(alignments: [.left, .right]).render([["a", "1"], ["日本", "100"]])
  #expect(lines == ["a       1", "日本  100"])
}

@Test func jsonEscapesControlCharactersAndKeepsKeyOrder() {
  let value = JSONValue.object([
    ("b", .int(1)), ("a", .string("x\n\u{1}\"")), ("c", .array([.bool(true), .null, .double(1.5)])),
  ])
  #expect(value.serialized() == #"{"b":1,"a":"x\n\u0001\"","c":[true,null,1.5]}"#)
}
