import Foundation
import ShelfTestSupport
import Testing

/// `extract` (and every reader of backup entries) opens a backup as `index` does: on a
/// terminal, a backup the given password does not open is asked for by name, and a wrong
/// answer is asked again (three times in all, as sudo).
@Suite struct ExtractPasswordPromptTests {
  @Test func aWrongAnswerIsAskedAgainAndTheRightOneExtracts() throws {
    let copy = try SampleBackupCopy()
    let encrypted = copy.backup("manifest-db-encrypted")
    #expect(try copy.run(["index", encrypted]).status == 0)
    let output = copy.scratch.file("out")
    let terminal = try TerminalSession(
      "env SHELF_BACKUP_PASSWORD=not-the-password \(ShelfProcess.binary) --db \(copy.database) extract area:recordings -o \(output)",
      log: copy.scratch.file("typescript"))
    let prompt = "Password for the encrypted backup \(encrypted): "
    for (count, typed) in [SampleBackupCopy.password + "x", SampleBackupCopy.password].enumerated() {
      #expect(terminal.type(typed, after: prompt, count: count + 1))
    }
    let status = try terminal.finish()
    let text = terminal.screen
    #expect(status == 0, "\(text)")
    #expect(text.contains("\(encrypted): the password given does not open this backup\n"), "\(text)")
    #expect(text.components(separatedBy: "Sorry, try again.").count == 2, "\(text)")
    #expect(!text.contains(SampleBackupCopy.password), "the typed password is not echoed")
    let written = SampleBackupCopy.tree(output)
    #expect(
      written.keys.sorted() == [
        "Shelf Test iPhone 2024-05-01/MediaDomain/Media/Recordings/20240501 093000.wav"
      ])
    let original = SampleBackupCopy.tree(
      ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents").path)["tone-440-mono.wav"]
    #expect(written.values.first == original)
  }
}
