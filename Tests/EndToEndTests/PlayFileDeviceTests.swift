import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `-D file:PATH` through ALSA's real file plugin: it truncates its file with mode 0600 each
/// time it opens, so shelf refuses an existing file without --force, a file being played even
/// with it, and gives a new file the umask's mode; `record` refuses the device outright.
@Suite(.serialized) struct PlayFileDeviceTests {
  static let launcherWithUmask027 = ["sh", "-c", "umask 027; exec \"$@\"", "sh"]

  @Test func theTrackBeingPlayedIsNeverTheDevicesFileEvenWithForce() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "self.wav", seconds: 0.5)
    let before = AudioE2E.bytes(wav)
    let link = folder.file("link.wav")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: wav)
    for (device, named) in [
      ("file:" + wav, wav), ("file:'\(wav)',wav", wav), ("file:FILE=\(wav),FORMAT=raw", wav),
      ("file:" + link, link),
    ] {
      for force in [[], ["--force"]] {
        let result = try ShelfProcess.run(["play", "--no-interactive"] + force + ["-D", device, wav])
        #expect(result.status == 73, "\(device) \(force) \(result.stderr)")
        #expect(
          result.stderr
            == "error: \(named): is one of the files being played: the file: device cannot write it\n")
        #expect(AudioE2E.bytes(wav) == before)
      }
    }
    // A playlist's track is an input too.
    try folder.write("list.m3u", Array("self.wav\n".utf8))
    let listed = try ShelfProcess.run([
      "play", "--no-interactive", "--force", "-D", "file:" + wav, folder.file("list.m3u"),
    ])
    #expect(listed.status == 73, "\(listed.stderr)")
    #expect(AudioE2E.bytes(wav) == before)
  }

  @Test func anExistingFileIsReplacedOnlyWithForce() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "song.wav", seconds: 0.5)
    let out = try folder.write("out.raw", Array("keep me".utf8))
    let refused = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:" + out, wav])
    #expect(refused.status == 73)
    #expect(refused.stderr == "error: \(out): file exists (use --force to overwrite)\n")
    #expect(AudioE2E.bytes(out) == Array("keep me".utf8))
    let forced = try ShelfProcess.run(["play", "--no-interactive", "--force", "-D", "file:" + out, wav])
    #expect(forced.status == 0, "\(forced.stderr)")
    let samples = try AudioE2E.decoded(wav)
    #expect(Array(AudioE2E.bytes(out).prefix(samples.count)) == samples)
    // A FIFO (a paced test device) is no file to lose: it needs no --force.
    let fifo = folder.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = AudioE2E.PacedReader(fifo: fifo, bytesPerSecond: 10_000_000)
    let piped = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:'\(fifo)',raw", wav])
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(ObservableWait.until { reader.collected.count >= samples.count })
  }

  @Test func aNewFileGetsTheUmasksModeAndNothingPlayedLeavesNoFile() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "song.wav", seconds: 0.5)
    let out = folder.file("out.wav")
    let result = try ShelfProcess.run(
      ["play", "--no-interactive", "-D", "file:" + out, wav], launcher: Self.launcherWithUmask027)
    #expect(result.status == 0, "\(result.stderr)")
    var status = stat()
    #expect(stat(out, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o640)
    let samples = try AudioE2E.decoded(wav)
    #expect(Array(try AudioE2E.decoded(out).prefix(samples.count)) == samples)
    // ALSA expands %r in names: shelf writes the file named.
    let percent = folder.file("take %r.raw")
    let literal = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:" + percent, wav])
    #expect(literal.status == 0, "\(literal.stderr)")
    #expect(Array(AudioE2E.bytes(percent).prefix(samples.count)) == samples)
    // Nothing played into it (the only track is missing): the file made for ALSA is gone.
    let unused = folder.file("unused.raw")
    let missing = try ShelfProcess.run([
      "play", "--no-interactive", "-D", "file:" + unused, folder.file("gone.wav"),
    ])
    #expect(missing.status == 66)
    #expect(!FileManager.default.fileExists(atPath: unused))
    let damaged = try folder.write("damaged.wav", Array("RIFF....WAVEfmt ".utf8))
    let failed = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:" + unused, damaged])
    #expect(failed.status == 65, "\(failed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: unused))
  }

  @Test func recordRefusesTheFileDeviceAndSaysHowToRecordFromAFile() throws {
    let folder = try TemporaryDirectory()
    let target = try folder.write("precious.raw", Array("precious".utf8))
    let output = folder.file("take.wav")
    for device in ["file:" + target, "file:'\(target)',raw"] {
      let result = try ShelfProcess.run(["record", "-d", "0.1", "-D", device, output])
      #expect(result.status == 64, "\(result.stderr)")
      #expect(
        result.stderr
          == "error: device \(device): the file: device only plays (recording would empty \(target)); to record from a file, give ALSA a file device with an infile (see RECORDING FROM A FILE in shelf-record(1))\n"
      )
      #expect(AudioE2E.bytes(target) == Array("precious".utf8))
      #expect(!FileManager.default.fileExists(atPath: output))
    }
    // What the manual describes records from the file.
    let input = try folder.write("input.raw", AudioE2E.captureInput)
    let config = try folder.write(
      "asound.conf",
      Array(
        """
        </usr/share/alsa/alsa.conf>
        pcm.fromfile {
          type file; slave.pcm { type null }
          file "/dev/null"; infile "\(input)"; format "raw"
        }

        """.utf8))
    let recorded = try ShelfProcess.run(
      ["record", "-D", "fromfile", "-d", "0.5", output], environment: ["ALSA_CONFIG_PATH": config])
    #expect(recorded.status == 0, "\(recorded.stderr)")
    #expect(try AudioE2E.decoded(output) == Array(AudioE2E.captureInput.prefix(22050 * 4)))
  }
}
