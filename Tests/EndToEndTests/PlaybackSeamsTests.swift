import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Where `play` meets the rest: the file device the no-sound-card advice names, silent videos
/// in a folder, and keys on a terminal (typed in a burst, or while paused).
@Suite(.serialized) struct PlaybackSeamsTests {
  @Test func aFileDeviceWritesAWAVWhenItsNameEndsInWavAndRawSamplesOtherwise() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "a.wav", seconds: 0.5)
    let expected = try AudioE2E.decoded(wav)
    // A comma and a quote in the name stay part of it.
    let out = folder.path + "/take 1, John's.wav"
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:" + out, wav])
    try #require(result.status == 0, "\(result.stderr)")
    let header = AudioE2E.bytes(out).prefix(12)
    try #require(
      Array(header.prefix(4)) == Array("RIFF".utf8) && Array(header.suffix(4)) == Array("WAVE".utf8))
    let info = try AudioE2E.tool(["soxi", "-r", out])
    #expect(String(decoding: info.stdout, as: UTF8.self) == "44100\n")
    let written = try AudioE2E.decoded(out)
    #expect(written.count >= expected.count)
    #expect(Array(written.prefix(expected.count)) == expected)
    #expect(written.dropFirst(expected.count).allSatisfy { $0 == 0 })

    let raw = folder.path + "/out.raw"
    #expect(try ShelfProcess.run(["play", "--no-interactive", "-D", "file:" + raw, wav]).status == 0)
    #expect(Array(AudioE2E.bytes(raw).prefix(expected.count)) == expected)
    // ALSA's own spelling is left as it is.
    let spelled = folder.path + "/spelled.wav"
    #expect(
      try ShelfProcess.run(["play", "--no-interactive", "-D", "file:'\(spelled)',raw", wav]).status == 0)
    #expect(Array(AudioE2E.bytes(spelled).prefix(expected.count)) == expected)
  }

  @Test func aSilentVideoInAFolderIsSkippedWithANoteButNamedItFails() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: folder.path + "/clips", withIntermediateDirectories: true)
    let one = try AudioE2E.makeSignal(folder, "clips/01.wav", seconds: 0.2)
    let silent = folder.path + "/clips/02-silent.mp4"
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=0.5:size=64x48:rate=10", "-c:v",
      "mpeg4",
      silent,
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let three = try AudioE2E.makeSignal(folder, "clips/03.wav", seconds: 0.2)
    let config = try AudioE2E.alsaConfig(in: folder)
    let env = ["ALSA_CONFIG_PATH": config]
    let result = try ShelfProcess.run(["play", "--no-interactive", folder.path + "/clips"], environment: env)
    #expect(result.status == 0)
    #expect(
      result.stderr == """
        Playing \(one): Signed 16 bit PCM, 44100 Hz, stereo, 0:00
        \(silent): skipped: no audio track (a video without sound)
        Playing \(three): Signed 16 bit PCM, 44100 Hz, stereo, 0:00

        """)
    let expected = try AudioE2E.decoded(one) + AudioE2E.decoded(three)
    #expect(Array(AudioE2E.bytes(folder.path + "/played.raw").prefix(expected.count)) == expected)
    let json = try ShelfProcess.run(["play", "--json", folder.path + "/clips"], environment: env)
    #expect(json.status == 0)
    let events = json.stdout.split(separator: "\n").map(String.init)
    #expect(
      events.contains("{\"event\":\"skip\",\"track\":2,\"path\":\"\(silent)\",\"reason\":\"no audio track\"}")
    )
    #expect(events.last == "{\"event\":\"finish\",\"played\":2,\"failed\":0,\"quit\":false,\"underruns\":0}")
    // Named on the command line, the video is a failure of its own.
    let named = try ShelfProcess.run(["play", "--no-interactive", silent], environment: env)
    #expect(named.status == 65)
    #expect(named.stderr == "error: \(silent): no audio track\n")
  }

  @Test func keysInABurstAreAllAppliedAndAPausedPlayerShowsSeeksAndVolumeAtOnce() throws {
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let tracks = ["a", "b", "c", "d"].map { folder.path + "/\($0).wav" }
    for track in tracks { try FileManager.default.copyItem(atPath: wav, toPath: track) }
    let script = """
      \(ShelfProcess.binary) play -D "file:'\(fifo)',raw" \(tracks.joined(separator: " ")); \
      echo "EXIT=$?"; sleep 60
      """
    let tmux = try AudioE2E.Tmux(script)
    var screen = tmux.waitFor("> 1/4 a.wav  0:01 / 0:30")
    #expect(screen.contains("> 1/4 a.wav  0:01 / 0:30"), "\(screen)")
    // Three presses in one burst: three tracks on.
    try tmux.send("n", "n", "n")
    screen = tmux.waitFor("> 4/4 d.wav  0:01 / 0:30")
    #expect(screen.contains("> 4/4 d.wav  0:01 / 0:30"), "\(screen)")
    try tmux.send("Space")
    screen = tmux.waitFor("|| 4/4 d.wav")
    let paused = #/\|\| 4/4 d\.wav  0:(\d\d) / 0:30/#
    let shown = try #require(screen.firstMatch(of: paused).flatMap { Int($0.output.1) }, "\(screen)")
    // Paused, a seek moves the position shown, and a volume change shows, without playing on.
    try tmux.send("Right")
    let target = String(format: "|| 4/4 d.wav  0:%02d / 0:30", shown + 5)
    screen = tmux.waitFor(target)
    #expect(screen.contains(target), "\(screen)")
    try tmux.send("Down")
    screen = tmux.waitFor("vol 95%")
    #expect(screen.contains(target) && screen.contains("vol 95%"), "\(screen)")
    try tmux.send("q")
    screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("EXIT=0"), "\(screen)")
  }
}
