import Foundation
import ShelfTestSupport
import Testing

/// `play` with ReplayGain: the samples that reach ALSA are the decoded ones × 10^(gain / 20) as
/// floats (within 1e-6), the peak keeps them from clipping, `auto` picks the album's gain for
/// an album in order and the track's otherwise, and a file without gains stays bit-exact.
@Suite(.serialized) struct PlayReplayGainTests {
  /// A FLAC made by sox, tagged by metaflac with `tags` (`NAME=value`).
  static func taggedFLAC(_ folder: TemporaryDirectory, _ name: String, tags: [String], seconds: Double = 0.3)
    throws -> String
  {
    let path = try AudioE2E.makeSignal(folder, name, seconds: seconds)
    let result = try AudioE2E.tool(["metaflac"] + tags.map { "--set-tag=\($0)" } + [path])
    try #require(result.status == 0, "\(result.stderr)")
    return path
  }

  /// What sox decodes from `path`, as floats (sample / 32768 for 16-bit sources).
  static func decodedFloats(_ path: String) throws -> [Float] {
    let result = try AudioE2E.tool(["sox", path, "-t", "raw", "-e", "float", "-b", "32", "-L", "-"])
    try #require(result.status == 0)
    return floats(Array(result.stdout))
  }

  static func floats(_ bytes: [UInt8]) -> [Float] {
    stride(from: 0, to: bytes.count - 3, by: 4).map { index in
      Float(
        bitPattern: UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
          | UInt32(bytes[index + 3]) << 24)
    }
  }

  /// The `gain` events of a `--json` run: mode and dB per 1-based track.
  static func gains(_ stdout: String) -> [String] {
    stdout.split(separator: "\n").filter { $0.hasPrefix("{\"event\":\"gain\"") }.compactMap { line in
      line.firstMatch(of: #/"track":(\d+),"mode":"(\w+)","gain":(-?[\d.]+)/#).map {
        "\($0.output.1) \($0.output.2) \($0.output.3)"
      }
    }
  }

  /// The largest difference between what was played and `expected` × `factor`.
  static func largestError(_ played: [Float], _ expected: [Float], factor: Double) -> Double {
    zip(played, expected).map { abs(Double($0) - Double($1) * factor) }.max() ?? .infinity
  }

  @Test func aTrackGainScalesTheDecodedSamplesAsFloatsAndThePreampAdds() throws {
    let folder = try TemporaryDirectory()
    let flac = try Self.taggedFLAC(
      folder, "a.flac", tags: ["REPLAYGAIN_TRACK_GAIN=-6.00 dB", "REPLAYGAIN_TRACK_PEAK=0.500000"])
    let expected = try Self.decodedFloats(flac)
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "--json", "--force", "-D", "file:" + out, flac])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(Self.gains(result.stdout) == ["1 track -6"])
    let played = Self.floats(AudioE2E.bytes(out))
    #expect(played.count >= expected.count)
    #expect(Self.largestError(played, expected, factor: pow(10, -6.0 / 20)) <= 1e-6)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })

    let boosted = try ShelfProcess.run([
      "play", "--json", "--preamp", "+2dB", "--force", "-D", "file:" + out, flac,
    ])
    #expect(Self.gains(boosted.stdout) == ["1 track -4"])
    #expect(Self.largestError(Self.floats(AudioE2E.bytes(out)), expected, factor: pow(10, -4.0 / 20)) <= 1e-6)
    let cut = try ShelfProcess.run(["play", "--json", "--preamp", "-3", "--force", "-D", "file:" + out, flac])
    #expect(Self.gains(cut.stdout) == ["1 track -9"])
    let wrong = try ShelfProcess.run(["play", "--preamp", "loud", "-D", "null", flac])
    #expect(wrong.status == 64)
    #expect(
      wrong.stderr.hasPrefix(
        "error: invalid value 'loud' for '--preamp': expected a number of dB from -30 to 30\n"))
  }

  @Test func thePeakKeepsAGainFromClipping() throws {
    let folder = try TemporaryDirectory()
    // +10 dB would take a 0.9 peak to 2.85: the factor is 1 / 0.9 instead.
    let flac = try Self.taggedFLAC(
      folder, "loud.flac", tags: ["REPLAYGAIN_TRACK_GAIN=+10.00 dB", "REPLAYGAIN_TRACK_PEAK=0.9"])
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "--json", "--force", "-D", "file:" + out, flac])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("\"factor\":\(1 / 0.9)"))
    let expected = try Self.decodedFloats(flac)
    #expect(Self.largestError(Self.floats(AudioE2E.bytes(out)), expected, factor: 1 / 0.9) <= 1e-6)
  }

  @Test func autoIsTheAlbumGainForAnAlbumInOrderAndTheTrackGainOtherwise() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: folder.path + "/album", withIntermediateDirectories: true)
    var files: [String] = []
    for number in 1...3 {
      files.append(
        try Self.taggedFLAC(
          folder, "album/\(number).flac",
          tags: [
            "ALBUM=Gains", "ARTIST=Shelf", "REPLAYGAIN_TRACK_GAIN=-\(number).50 dB",
            "REPLAYGAIN_ALBUM_GAIN=-2.25 dB",
          ], seconds: 0.1))
    }
    let album = try ShelfProcess.run(["play", "--json", "-D", "null", folder.path + "/album"])
    #expect(Self.gains(album.stdout) == ["1 album -2.25", "2 album -2.25", "3 album -2.25"])
    let single = try ShelfProcess.run(["play", "--json", "-D", "null", files[1]])
    #expect(Self.gains(single.stdout) == ["1 track -2.5"])
    let shuffled = try ShelfProcess.run([
      "play", "--json", "--shuffle", "--seed", "1", "-D", "null", files[0], files[2],
    ])
    #expect(Set(Self.gains(shuffled.stdout)) == ["1 track -1.5", "2 track -3.5"])
    let forcedAlbum = try ShelfProcess.run([
      "play", "--json", "--replaygain", "album", "-D", "null", files[1],
    ])
    #expect(Self.gains(forcedAlbum.stdout) == ["1 album -2.25"])
    let forcedTrack = try ShelfProcess.run(
      ["play", "--json", "--replaygain", "track", "-D", "null", folder.path + "/album"])
    #expect(Self.gains(forcedTrack.stdout) == ["1 track -1.5", "2 track -2.5", "3 track -3.5"])
  }

  @Test func offOrNoGainKeepsTheSamplesBitExact() throws {
    let folder = try TemporaryDirectory()
    let tagged = try Self.taggedFLAC(folder, "a.flac", tags: ["REPLAYGAIN_TRACK_GAIN=-6.00 dB"])
    let plain = try AudioE2E.makeSignal(folder, "b.flac", seconds: 0.3)
    let out = folder.path + "/out.raw"
    for (arguments, path) in [(["--replaygain", "off"], tagged), ([], plain)] {
      let result = try ShelfProcess.run(
        ["play", "--json"] + arguments + ["--force", "-D", "file:" + out, path])
      #expect(result.status == 0)
      #expect(Self.gains(result.stdout).isEmpty)
      let expected = try AudioE2E.decoded(path)
      #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)
    }
  }

  /// A file without gain tags plays with what `shelf gain` measured and the catalogue keeps,
  /// named by path or found by a query; the catalogue is only read.
  @Test func measuredGainsFromTheCatalogueApplyToUntaggedFiles() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: folder.path + "/m", withIntermediateDirectories: true)
    let plain = try AudioE2E.makeSignal(folder, "m/plain.flac", seconds: 1)
    let database = folder.path + "/c.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", folder.path + "/m"]).status == 0)
    let measured = try ShelfProcess.run(["--db", database, "gain", "--json", plain])
    try #require(measured.status == 0, "\(measured.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(measured.stdout.utf8)) as? [String: Any]
    let track = try #require((object?["tracks"] as? [[String: Any]])?.first)
    #expect(track["stored"] as? Bool == true)
    let trackGain = try #require(track["track_gain"] as? Double)
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    for items in [[plain], ["kind:audio"]] {
      let result = try ShelfProcess.run(
        ["--db", database, "play", "--json", "--replaygain", "track", "-D", "null"] + items)
      try #require(result.status == 0, "\(result.stderr)")
      let shown = Self.gains(result.stdout)
      #expect(shown.count == 1)
      let played = try #require(shown.first.flatMap { Double($0.split(separator: " ")[2]) })
      #expect(abs(played - trackGain) < 0.01, "\(shown) against \(trackGain)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    // Without the catalogue, the same file has no gain.
    let alone = try ShelfProcess.run(
      ["--db", folder.path + "/none.sqlite", "play", "--json", "-D", "null", plain])
    #expect(alone.status == 0)
    #expect(Self.gains(alone.stdout).isEmpty)
  }
}
