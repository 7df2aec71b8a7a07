import Foundation
import ShelfTestSupport
import Testing

/// `play` tells what went wrong with its items in the order they were given, each the way it
/// always has (a missing item, a list's skipped entries), and plays the rest; the exit status
/// says that some failed.
@Suite struct PlayOperandProblemsTests {
  @Test func problemsAreToldInTheOrderOfTheItems() throws {
    let folder = try TemporaryDirectory()
    let here = try AudioE2E.makeSignal(folder, "here.wav", seconds: 0.05)
    try folder.makeDirectory("music")
    let inFolder = try AudioE2E.makeSignal(folder, "music/a.wav", seconds: 0.05)
    let list = try folder.write("list.m3u", Array("gone.wav\nhere.wav\n".utf8))
    let result = try ShelfProcess.run(
      [
        "play", "--no-interactive", "--json", "-D", "null", folder.file("missing.flac"), list,
        folder.file("music"), folder.file("also/missing.wav"),
      ])
    let told = result.stderr.split(separator: "\n").filter {
      $0.hasPrefix("error: ") || $0.hasPrefix("warning: ")
    }
    #expect(
      told == [
        "error: \(folder.file("missing.flac")): no such file or directory",
        "warning: \(list):1: gone.wav: no such file, skipped",
        "error: \(folder.file("also/missing.wav")): no such file or directory",
      ], "\(result.stderr)")
    #expect(PlayAlbumsListsAndStatusTests.startedPaths(result.stdout) == [here, inFolder])
    #expect(result.status == 1, "\(result.stderr)")
  }
}
