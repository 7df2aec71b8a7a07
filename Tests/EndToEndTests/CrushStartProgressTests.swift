import Foundation
import ShelfTestSupport
import Testing

/// `crush` on a terminal says what it is working on, and at which level, as soon as the work
/// on a file starts, not only once the file is done (issue 44, item 15: `--level max` showed
/// nothing for 8 s before its first file).
@Suite struct CrushStartProgressTests {
  @Test func theFileAndLevelShowBeforeTheFirstFileIsDone() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.copy(fromRepository: "SampleMedia/Documents/gradient-rgba.png", as: "photo.png")
    let out = scratch.path + "/out"
    let terminal = try TerminalSession(
      "env -u NO_COLOR TERM=xterm \(ShelfProcess.binary) crush --level max -o \(out) \(input)",
      log: scratch.path + "/terminal.log")
    // Drawn when the work starts: none of the one file is done yet.
    let starting = "crush level max [------------------------] 0% 0/1 photo.png"
    let shown = ObservableWait.until(timeout: 60) { terminal.screen.contains(starting) }
    #expect(try terminal.finish() == 0)
    #expect(shown, "\(terminal.screen)")
    // Then the file done, and the summary in place of the progress line.
    #expect(terminal.screen.contains("crush level max [########################] 100% 1/1 photo.png"))
    #expect(terminal.screen.contains("\u{1B}[2KCrushed 1 of 1 file: "))
    #expect(FileManager.default.fileExists(atPath: out + "/photo.png"))
  }

  @Test func aPipeGetsNoProgress() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.copy(fromRepository: "SampleMedia/Documents/gradient-rgba.png", as: "photo.png")
    let result = try ShelfProcess.run(["crush", "--level", "max", "-o", scratch.path + "/out", input])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.hasPrefix("Crushed 1 of 1 file: "))
  }
}
