import Foundation
import ShelfTestSupport
import Testing

/// `ls -l` on an 80-column terminal (issue 44, item 11): long similar paths were cut until
/// every row read `…/Sessi…3000.wav` while the date column stayed whole. What tells rows
/// apart and the file name stay; the date, the facts and the tags give way first.
@Suite struct LsLongNarrowTests {
  /// Fourteen recordings whose paths differ only inside long folder and file names.
  private static let names = (1...14).map { String(format: "%02d", $0) }

  private static func catalogue() throws -> (TemporaryDirectory, root: String, database: String) {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/root"
    for number in names {
      let folder = root + "/Backups/mbdb/Voice Recordings Archive/Session \(number) of the long week"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      _ = try AudioE2E.makeSignal(
        scratch,
        "root/Backups/mbdb/Voice Recordings Archive/Session \(number) of the long week/Backup recording of the session take \(number) at 3000.wav",
        seconds: 0.1)
    }
    let database = scratch.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", root])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    return (scratch, root, database)
  }

  /// The lines `ls ARGUMENTS` draws with COLUMNS=80 on a terminal as wide, once it exited 0.
  private static func terminalLines(database: String, _ arguments: String) throws -> [String] {
    let script =
      "cd / && env COLUMNS=80 NO_COLOR=1 \(ShelfProcess.binary) --db '\(database)' ls \(arguments); echo EXIT=$?; sleep 60"
    let tmux = try AudioE2E.Tmux(script, width: 80, height: 24)
    let screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("EXIT=0"), "\(screen)")
    let lines = screen.split(separator: "\n").map(String.init)
    return Array(lines.prefix { !$0.contains("EXIT=") })
  }

  @Test func everyRowStaysDistinctWithItsFileNameWhole() throws {
    let (scratch, _, database) = try Self.catalogue()
    defer { withExtendedLifetime(scratch) {} }
    for options in ["-l", ""] {
      let lines = try Self.terminalLines(database: database, "\(options) kind:audio")
      #expect(lines.count == 15, "\(lines)")
      #expect(lines.first?.hasPrefix("PATH ") == true)
      let rows = lines.dropFirst()
      #expect(Set(rows).count == Self.names.count, "\(lines)")
      for (row, number) in zip(rows, Self.names) {
        #expect(row.contains("Backup recording of the session take \(number) at 3000.wav"), "\(row)")
        // One column per character in these rows.
        #expect(row.count <= 80)
      }
    }
    // With -l, the date gives way to its day and the tags and facts are left out.
    let long = try Self.terminalLines(database: database, "-l kind:audio")
    #expect(long[0].contains(#/^PATH +MODIFIED +SIZE$/#), "\(long[0])")
    #expect(long[1].hasPrefix("…/Backup recording of the session take 01 at 3000.wav"), "\(long[1])")
    #expect(long[1].contains(#/  \d{4}-\d{2}-\d{2}…  /#), "\(long[1])")
  }
}
