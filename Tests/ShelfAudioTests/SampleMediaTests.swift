import Foundation
import ShelfAudio
import ShelfCore
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
      #expect(info.tags.track == facts["track"] as? String, "\(path)")
      #expect(info.tags.genre == facts["genre"] as? String, "\(path)")
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
