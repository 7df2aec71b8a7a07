import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// The audio of SampleMedia/ as its manifest (Tests/Fixtures/sample-media.json) describes it:
/// what the catalogue will store for each file.
@Suite struct SampleMediaTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static var audioFiles: [(path: String, facts: [String: Any])] {
    let manifest = root.appendingPathComponent("Tests/Fixtures/sample-media.json")
    guard let data = try? Data(contentsOf: manifest),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let files = json["files"] as? [[String: Any]]
    else { return [] }
    return files.compactMap { file in
      guard let path = file["path"] as? String, let audio = file["audio"] as? [String: Any] else {
        return nil
      }
      return (path, audio)
    }
  }

  @Test func manifestListsAudio() {
    #expect(Self.audioFiles.count >= 4)
  }

  @Test func formatAndTagsMatchTheManifest() throws {
    for (path, facts) in Self.audioFiles {
      let info = try AudioFileInfo.read(
        path: RawPath(Self.root.appendingPathComponent("SampleMedia/" + path).path))
      #expect(info.sampleRate == facts["sample_rate"] as? Int, "\(path)")
      #expect(info.channels == facts["channels"] as? Int, "\(path)")
      #expect(info.frames == Int64(facts["frames"] as? Int ?? -1), "\(path)")
      #expect(info.tags.title == facts["title"] as? String, "\(path)")
      #expect(info.tags.artist == facts["artist"] as? String, "\(path)")
      #expect(info.tags.album == facts["album"] as? String, "\(path)")
      #expect(info.tags.date == facts["date"] as? String, "\(path)")
      #expect(info.tags.trackNumber == facts["track"] as? Int, "\(path)")
      #expect(info.tags.genre == facts["genre"] as? String, "\(path)")
      if let codec = facts["codec"] as? String {
        #expect(info.codec == codec, "\(path)")
        #expect(info.tags.albumArtist == facts["album_artist"] as? String, "\(path)")
        #expect(info.tags.trackTotal == facts["track_total"] as? Int, "\(path)")
        #expect(info.tags.disc == facts["disc"] as? Int, "\(path)")
        #expect(info.tags.discTotal == facts["disc_total"] as? Int, "\(path)")
        #expect(info.hasArtwork == facts["artwork"] as? Bool, "\(path)")
        #expect(info.defect == nil, "\(path)")
      }
    }
  }

  static var videoFiles: [(path: String, facts: [String: Any])] {
    let manifest = root.appendingPathComponent("Tests/Fixtures/sample-media.json")
    guard let data = try? Data(contentsOf: manifest),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let files = json["files"] as? [[String: Any]]
    else { return [] }
    return files.compactMap { file in
      guard let path = file["path"] as? String, let video = file["video"] as? [String: Any] else {
        return nil
      }
      return (path, video)
    }
  }

  @Test func theVideoIsDescribedAsTheManifestAndExiftoolSay() throws {
    let videos = Self.videoFiles
    #expect(videos.count == 2)
    for (path, facts) in videos {
      let full = Self.root.appendingPathComponent("SampleMedia/" + path).path
      guard case .video(let info) = try MediaFileInfo.read(RegularFile(path: RawPath(full))) else {
        Issue.record("\(path) is not read as a video")
        continue
      }
      #expect(info.width == facts["width"] as? Int)
      #expect(info.height == facts["height"] as? Int)
      #expect(info.codec == facts["codec"] as? String)
      #expect(info.frameRate == facts["frame_rate"] as? Double)
      #expect(info.rotation == facts["rotation"] as? Int)
      #expect(info.audioCodec == facts["audio_codec"] as? String)
      #expect(info.sampleRate == facts["sample_rate"] as? Int)
      #expect(info.channels == facts["channels"] as? Int)
      #expect(info.taken == facts["taken"] as? String)
      let exiftool = try ExternalTool.run(["exiftool", "-s3", "-Rotation", full])
      #expect(String(decoding: exiftool.stdout, as: UTF8.self) == "\(info.rotation)\n")
    }
  }

  /// Codec, rate and channels as ffprobe reports them, for every audio sample.
  @Test func codecRateAndChannelsAgreeWithFFprobe() throws {
    for (path, _) in Self.audioFiles {
      let full = Self.root.appendingPathComponent("SampleMedia/" + path).path
      let info = try AudioFileInfo.read(path: RawPath(full))
      let probed = try ExternalTool.ffprobe(full)
      let stream = try #require(
        (probed["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == "audio" })
      #expect(info.codec == stream["codec_name"] as? String, "\(path)")
      #expect(String(info.sampleRate) == stream["sample_rate"] as? String, "\(path)")
      #expect(info.channels == stream["channels"] as? Int, "\(path)")
    }
  }

  @Test func losslessSamplesDecodeToTheirDeclaredLength() throws {
    for (path, facts) in Self.audioFiles where ["wav", "flac"].contains(facts["format"] as? String) {
      let reader = try AudioFileReader(
        path: RawPath(Self.root.appendingPathComponent("SampleMedia/" + path).path))
      let samples: [Int32] = try reader.readAll()
      #expect(samples.count == (facts["frames"] as? Int ?? 0) * (facts["channels"] as? Int ?? 0), "\(path)")
    }
  }
}
