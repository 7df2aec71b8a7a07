import Foundation
import ShelfTestSupport
import Testing

/// `index` progress: redrawn in place only on a terminal without `NO_COLOR`; plain lines
/// otherwise, never `\r` or escape sequences.
@Suite struct ProgressOutputTests {
  /// Runs `command` on a pseudo-terminal through script(1) and returns every byte it wrote.
  private func onTerminal(_ command: String, scratch: TemporaryDirectory) throws -> [UInt8] {
    let log = scratch.path + "/typescript"
    let result = try AudioE2E.tool(["script", "--quiet", "--return", "--log-out", log, "--command", command])
    #expect(result.status == 0)
    return Array(FileManager.default.contents(atPath: log) ?? Data())
  }

  /// True when `bytes` hold an escape or a carriage return that does not end a line.
  private func redrawsInPlace(_ bytes: [UInt8]) -> Bool {
    bytes.indices.contains { index in
      bytes[index] == 0x1B || (bytes[index] == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A))
    }
  }

  @Test func noColorOnATerminalGetsPlainProgressLines() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia")
    // The sample backups have facts and tests of their own (Tests/Fixtures/sample-backups.json).
    try FileManager.default.removeItem(atPath: root + "/Backups")
    let command =
      "NO_COLOR=1 \(ShelfProcess.binary) --db \(scratch.path)/c.sqlite index \(root) > /dev/null"
    let bytes = try onTerminal(command, scratch: scratch)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(!redrawsInPlace(bytes), "\(text)")
    // The terminal turns each line end into \r\n.
    #expect(text.contains("SampleMedia: walking… 0 files\r\n"), "\(text)")
    #expect(text.contains(" 47/47 files, "), "\(text)")
  }

  @Test func aTerminalWithColourRedrawsInPlace() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia")
    // The sample backups' password, so that no prompt waits for it on the terminal.
    let command =
      "env -u NO_COLOR TERM=xterm SHELF_BACKUP_PASSWORD=\(SampleBackupCopy.password) \(ShelfProcess.binary) --db \(scratch.path)/c.sqlite index \(root) > /dev/null"
    let bytes = try onTerminal(command, scratch: scratch)
    #expect(redrawsInPlace(bytes))
  }

  @Test func aFileGetsPlainProgressLines() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia")
    let result = try ShelfProcess.run(
      ["--db", scratch.path + "/c.sqlite", "index", "--progress", "always", root],
      environment: ["NO_COLOR": "", "SHELF_BACKUP_PASSWORD": SampleBackupCopy.password])
    #expect(result.status == 0)
    #expect(!redrawsInPlace(result.stderrBytes))
    #expect(result.stderr.hasPrefix("SampleMedia: walking… 0 files\n"))
  }
}
