import Foundation
import ShelfTestSupport
import Testing

/// `ls` on a terminal keeps the part of long paths that tells rows apart, and `-w` keeps
/// every cell whole.
@Suite struct LsWideTests {
  /// Three copies of one picture whose paths differ only in a folder in their middle, indexed.
  private static func catalogue() throws -> (TemporaryDirectory, root: String, database: String) {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/root"
    for year in ["2019-summer", "2020-summer", "2021-summer"] {
      let folder = root + "/Archive/\(year)/Camera/DCIM/100APPLE"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents/gradient-rgba.png")
          .path,
        toPath: folder + "/IMG_0001.PNG")
    }
    let database = scratch.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", root])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    return (scratch, root, database)
  }

  /// The lines `ls ARGUMENTS` draws on a tmux terminal `width` columns wide, once it exited 0.
  private static func terminalLines(database: String, width: Int, _ arguments: String) throws -> [String] {
    let script =
      "cd / && env -u COLUMNS NO_COLOR=1 \(ShelfProcess.binary) --db '\(database)' ls \(arguments); echo EXIT=$?; sleep 60"
    let tmux = try AudioE2E.Tmux(script, width: width, height: 20)
    let screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("EXIT=0"), "\(screen)")
    let lines = screen.split(separator: "\n").map(String.init)
    return Array(lines.prefix { !$0.contains("EXIT=") })
  }

  @Test func theFoldersEveryRowSharesGiveWaySoThatTheRowsStayApart() throws {
    let (scratch, _, database) = try Self.catalogue()
    defer { withExtendedLifetime(scratch) {} }
    let years = ["2019-summer", "2020-summer", "2021-summer"]
    var lines = try Self.terminalLines(database: database, width: 80, "name:IMG_0001.PNG")
    #expect(
      lines
        == ["PATH                                             KIND      SIZE  FACTS"]
        + years.map { "…/\($0)/Camera/DCIM/100APPLE/IMG_0001.PNG  image  3.7 KiB  64×48 rgba" })
    // Narrower, the folders every row ends with lose their middle; the file name stays.
    lines = try Self.terminalLines(database: database, width: 60, "name:IMG_0001.PNG")
    #expect(
      lines
        == ["PATH                          KIND      SIZE  FACTS"]
        + years.map { "…/\($0)/…/IMG_0001.PNG  image  3.7 KiB  64×48 rgba" })
  }

  @Test func wideKeepsEveryCellWhole() throws {
    let (scratch, root, database) = try Self.catalogue()
    defer { withExtendedLifetime(scratch) {} }
    for option in ["-w", "--wide"] {
      let lines = try Self.terminalLines(database: database, width: 200, "\(option) name:IMG_0001.PNG")
      let paths = ["2019-summer", "2020-summer", "2021-summer"].map {
        "\(root)/Archive/\($0)/Camera/DCIM/100APPLE/IMG_0001.PNG"
      }
      let pad = String(repeating: " ", count: paths[0].count - 4)
      #expect(
        lines == ["PATH\(pad)  KIND      SIZE  FACTS"] + paths.map { "\($0)  image  3.7 KiB  64×48 rgba" })
      // On a terminal narrower than the rows, they wrap rather than lose anything.
      let narrow = try Self.terminalLines(database: database, width: 50, "\(option) name:IMG_0001.PNG")
      #expect(!narrow.joined().contains("…"), "\(narrow)")
      #expect(narrow.joined().contains("2021-summer/Camera/DCIM"))
    }
  }
}
