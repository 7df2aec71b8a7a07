import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// Tags written by ffmpeg into containers SampleMedia does not cover (ASF, Ogg Opus, Matroska),
/// read back as ffprobe reads them, with numbers and totals split.
@Suite struct TagFormatsTests {
  @Test(arguments: [("wma", "wmav2"), ("opus", "libopus"), ("mka", "libopus"), ("m4a", "aac")])
  func tagsOfEveryContainer(_ format: (ext: String, encoder: String)) throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("tagged." + format.ext)
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1", "-c:a", format.encoder, "-metadata",
      "title=Song",
      "-metadata", "artist=Singer", "-metadata", "album_artist=Band", "-metadata", "album=Record",
      "-metadata",
      "track=3/9", "-metadata", "disc=1/2", "-metadata", "genre=Jazz", "-metadata", "date=2021", path,
    ])
    let info = try AudioFileInfo.read(path: RawPath(path))
    let tags = info.tags
    #expect(tags.title == "Song", "\(format.ext)")
    #expect(tags.artist == "Singer", "\(format.ext)")
    #expect(tags.albumArtist == "Band", "\(format.ext)")
    #expect(tags.album == "Record", "\(format.ext)")
    #expect(tags.trackNumber == 3 && tags.trackTotal == 9, "\(format.ext)")
    #expect(tags.disc == 1 && tags.discTotal == 2, "\(format.ext)")
    #expect(tags.genre == "Jazz", "\(format.ext)")
    #expect(tags.date == "2021", "\(format.ext)")
    #expect(info.sampleRate == 48000 && info.channels == 1, "\(format.ext)")
    #expect(abs(info.duration - 1) < 0.03, "\(format.ext)")
  }

  @Test func positionsSplitIntoNumberAndTotal() {
    #expect(AudioTags.numberAndTotal("3/12") == (3, 12))
    #expect(AudioTags.numberAndTotal("7") == (7, nil))
    #expect(AudioTags.numberAndTotal(" /4") == (nil, 4))
  }
}
