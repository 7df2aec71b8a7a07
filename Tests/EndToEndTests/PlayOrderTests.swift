import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `play` as a library player: shuffled orders a seed gives again, albums kept together,
/// `--track`, `--repeat one`, and the `s` and `r` keys — checked on the samples that reach
/// ALSA's file plugin and on the `--json` events.
@Suite(.serialized) struct PlayOrderTests {
  /// The playlist indices (1-based) of the `start` events in `stdout`.
  static func started(_ stdout: String) -> [Int] {
    stdout.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("{\"event\":\"start\""), let match = line.firstMatch(of: #/"track":(\d+)/#) else {
        return nil
      }
      return Int(match.output.1)
    }
  }

  /// Five short tracks of different lengths (so that every order is told apart by its samples)
  /// in `folder/music`.
  static func tracks(_ folder: TemporaryDirectory, count: Int = 5, in sub: String = "music") throws
    -> [String]
  {
    try FileManager.default.createDirectory(
      atPath: folder.path + "/" + sub, withIntermediateDirectories: true)
    return try (1...count).map { number in
      try AudioE2E.makeSignal(folder, "\(sub)/\(number).wav", seconds: 0.05 + Double(number) * 0.01)
    }
  }

  @Test func aSeedGivesTheSameShuffledOrderAgainAndEveryTrackPlaysOnce() throws {
    let folder = try TemporaryDirectory()
    let files = try Self.tracks(folder)
    func play(seed: Int, into name: String) throws -> [Int] {
      let out = folder.path + "/" + name
      let result = try ShelfProcess.run([
        "play", "--json", "--shuffle", "--seed", "\(seed)", "--force", "-D", "file:" + out,
        folder.path + "/music",
      ])
      try #require(result.status == 0, "\(result.stderr)")
      let order = Self.started(result.stdout)
      let expected = try order.flatMap { try AudioE2E.decoded(files[$0 - 1]) }
      #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)
      return order
    }
    let first = try play(seed: 7, into: "a.raw")
    #expect(first.sorted() == [1, 2, 3, 4, 5])
    #expect(first != [1, 2, 3, 4, 5])
    #expect(try play(seed: 7, into: "b.raw") == first)
    #expect(try play(seed: 8, into: "c.raw") != first)
  }

  @Test func albumShuffleKeepsEachFolderTogetherInItsOrder() throws {
    let folder = try TemporaryDirectory()
    var albums: [[String]] = []
    for (name, count) in [("A", 3), ("B", 3), ("C", 2)] {
      albums.append(try Self.tracks(folder, count: count, in: "music/" + name))
    }
    let all = albums.flatMap { $0 }
    var albumOrders: Set<[String]> = []
    for seed in 1...4 {
      let result = try ShelfProcess.run([
        "play", "--json", "--album-shuffle", "--seed", "\(seed)", "-D", "null", folder.path + "/music",
      ])
      try #require(result.status == 0, "\(result.stderr)")
      let played = Self.started(result.stdout).map { all[$0 - 1] }
      #expect(played.count == all.count)
      // Runs of one folder, each in name order.
      var runs: [[String]] = []
      for path in played {
        let album = (path as NSString).deletingLastPathComponent
        if runs.last.map({ ($0[0] as NSString).deletingLastPathComponent }) == album {
          runs[runs.count - 1].append(path)
        } else {
          runs.append([path])
        }
      }
      #expect(Set(runs) == Set(albums), "seed \(seed): \(played)")
      albumOrders.insert(runs.map { ($0[0] as NSString).deletingLastPathComponent })
    }
    #expect(albumOrders.count > 1)
  }

  @Test func trackNStartsThereAndAMissingTrackIsAUsageError() throws {
    let folder = try TemporaryDirectory()
    let files = try Self.tracks(folder, count: 3)
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run([
      "play", "--json", "--track", "2", "--force", "-D", "file:" + out, folder.path + "/music",
    ])
    #expect(result.status == 0)
    #expect(Self.started(result.stdout) == [2, 3])
    let expected = try AudioE2E.decoded(files[1]) + AudioE2E.decoded(files[2])
    #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)

    let missing = try ShelfProcess.run(["play", "--track", "4", "-D", "null", folder.path + "/music"])
    #expect(missing.status == 64)
    #expect(missing.stderr.hasPrefix("error: --track 4: the playlist has 3 tracks\n"))
    let both = try ShelfProcess.run(["play", "--shuffle", "--album-shuffle", "-D", "null", files[0]])
    #expect(both.status == 64)
    #expect(both.stderr.hasPrefix("error: --shuffle and --album-shuffle cannot be used together\n"))
    let repeatFlag = try ShelfProcess.run(["play", "--repeat", files[0]])
    #expect(repeatFlag.status == 64)
    #expect(repeatFlag.stderr.hasPrefix("error: "))
  }

  @Test func repeatOnePlaysTheTrackAgainUntilStopped() throws {
    let folder = try TemporaryDirectory()
    let files = try Self.tracks(folder, count: 2)
    let out = folder.path + "/out.raw"
    let running = try AudioE2E.Running(
      ["play", "--json", "--repeat", "one", "--force", "-D", "file:" + out, files[0], files[1]],
      environment: [:],
      in: folder.path)
    let seen = ObservableWait.until(timeout: 30) { Self.started(running.stdout).count >= 3 }
    kill(running.pid, SIGTERM)
    #expect(running.wait() == 130)
    #expect(seen)
    let order = Self.started(running.stdout)
    #expect(order.count >= 3 && order.allSatisfy { $0 == 1 }, "\(order)")
    let one = try AudioE2E.decoded(files[0])
    let expected = one + one + one
    #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)
  }

  @Test func keysSAndRShowShuffleAndRepeatOnTheStatusLine() throws {
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let tmux = try AudioE2E.Tmux(
      "\(ShelfProcess.binary) play -D \"file:'\(fifo)',raw\" \(wav) \(wav); echo \"EXIT=$?\"; sleep 60")
    #expect(tmux.waitFor("0:01 / 0:30").contains("vol 100%"))
    try tmux.send("s")
    #expect(tmux.waitFor("vol 100% shuffle").contains("vol 100% shuffle"))
    try tmux.send("r")
    #expect(tmux.waitFor("shuffle repeat all").contains("shuffle repeat all"))
    try tmux.send("r")
    #expect(tmux.waitFor("shuffle repeat one").contains("shuffle repeat one"))
    try tmux.send("s", "r")
    #expect(
      ObservableWait.until(timeout: 15) {
        let screen = tmux.screen
        return screen.contains("vol 100%") && !screen.contains("shuffle") && !screen.contains("repeat")
      }, "\(tmux.screen)")
    try tmux.send("q")
    #expect(tmux.waitFor("EXIT=").contains("EXIT=0"))
  }
}
