import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// FFmpegInput: files opened through shelf's own descriptor, described as ffprobe describes them.
@Suite struct FFmpegInputTests {
  @Test func describesAnM4AsStreamsAndTagsAsFFprobeDoes() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("song.m4a")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-ac", "2", "-c:a", "aac",
      "-b:a", "128k", "-metadata", "title=Hello", "-metadata", "artist=Someone", path,
    ])
    let input = try FFmpegInput(path: RawPath(path))
    let audio = try #require(input.audioStream)
    let probed = try ExternalTool.ffprobe(path)
    let probedStream = try #require((probed["streams"] as? [[String: Any]])?.first)
    #expect(audio.codec == "aac")
    #expect(audio.codec == probedStream["codec_name"] as? String)
    #expect(audio.sampleRate == 44100)
    #expect(audio.channels == 2)
    #expect(input.formatName == (probed["format"] as? [String: Any])?["format_name"] as? String)
    #expect(input.tags["title"] == "Hello")
    #expect(input.tags["ARTIST"] == "Someone")
    #expect(input.videoStream == nil)
    #expect(!input.hasAttachedPicture)
  }

  @Test func readsThroughTheDescriptorNotThePath() throws {
    let folder = try TemporaryDirectory()
    let plain = folder.file("plain.mov")
    let path = folder.file("clip.mov")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1", "-f", "lavfi", "-i",
      "sine=sample_rate=48000:duration=1", "-c:v", "mpeg4", "-c:a", "aac", plain,
    ])
    // FFmpeg 5.1 writes a display matrix only when copying; this one is a phone's portrait
    // video: exiftool says Rotation 90, ffprobe -90.
    try ExternalTool.ffmpeg(["-i", plain, "-c", "copy", "-metadata:s:v", "rotate=270", path])
    let exiftool = try ExternalTool.run(["exiftool", "-s3", "-Rotation", path])
    #expect(String(decoding: exiftool.stdout, as: UTF8.self) == "90\n")
    let file = try RegularFile(path: RawPath(path))
    // The name now leads nowhere: only the open descriptor can still reach the data.
    try FileManager.default.removeItem(atPath: path)
    let input = try FFmpegInput(file: file)
    let video = try #require(input.videoStream)
    #expect(video.codec == "mpeg4")
    #expect(video.width == 320 && video.height == 240)
    #expect(video.frameRate == 25)
    #expect(video.rotation == 90)
    #expect(input.audioStream?.sampleRate == 48000)
    #expect(input.audioStream?.channels == 1)
  }

  @Test func aMissingFileIsMissingInputAndGarbageIsBadInput() throws {
    let folder = try TemporaryDirectory()
    do {
      _ = try FFmpegInput(path: folder.raw("absent.m4a"))
      Issue.record("opened a missing file")
    } catch {
      #expect(error.failure == .missingInput)
      #expect(error.description == "\(folder.path)/absent.m4a: no such file or directory")
    }
    let garbage = try folder.write("noise.m4a", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
    do {
      _ = try FFmpegInput(path: RawPath(garbage))
      Issue.record("opened garbage")
    } catch {
      #expect(error.failure == .badInput)
      #expect(error.call == "avformat_open_input")
      #expect(error.description.hasPrefix("\(garbage): invalid data found when processing input"))
      #expect(!error.description.contains("\n"))
    }
  }
}
