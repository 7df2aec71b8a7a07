import Foundation
import Testing

@testable import ShelfCLI

/// The man pages in man/ are generated from the command table; these tests fail when a page
/// is missing, stale, or lacks an option. `make man` regenerates them
/// (SHELF_WRITE_MAN_PAGES=1).
@Suite struct ManPageSyncTests {
  let manFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")
  let pages = ManPageRenderer(commands: CommandTable.commands).pages()

  @Test func committedPagesMatchTheCommandTable() throws {
    if ProcessInfo.processInfo.environment["SHELF_WRITE_MAN_PAGES"] == "1" {
      try FileManager.default.createDirectory(at: manFolder, withIntermediateDirectories: true)
      for page in pages {
        try page.content.write(
          to: manFolder.appendingPathComponent(page.name), atomically: false, encoding: .utf8)
      }
    }
    for page in pages {
      let committed = try? String(contentsOf: manFolder.appendingPathComponent(page.name), encoding: .utf8)
      #expect(committed == page.content, "man/\(page.name) is stale: run `make man`")
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: manFolder.path).filter {
      $0.hasSuffix(".1")
    }
    #expect(Set(files) == Set(pages.map(\.name)), "man/ holds pages for commands that do not exist")
  }

  @Test(arguments: CommandTable.commands)
  func everyOptionIsDocumentedInItsPage(_ command: Command) throws {
    let page = try String(
      contentsOf: manFolder.appendingPathComponent("shelf-\(command.name).1"), encoding: .utf8)
    for option in command.options + GlobalOptions.specs {
      let roff = "\\fB\\-\\-" + option.long + "\\fR"
      #expect(page.contains(roff), "man/shelf-\(command.name).1 lacks --\(option.long)")
    }
  }
}

extension Command: CustomTestStringConvertible {
  public var testDescription: String { name }
}
