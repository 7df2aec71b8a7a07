import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// Vorbis comments as mutagen writes them into FLAC, Ogg Vorbis and Opus files that ffmpeg
/// encoded: several values as repeated fields (joined with `; `), totals in fields of their
/// own or as `1/2`, the album artist's field. The values expected are the ones written.
@Suite struct VorbisCommentTagsTests {
  @Test(.enabled(if: ID3AsWrittenTests.hasMutagen, "needs the mutagen Python package (pip install mutagen)"))
  func repeatedFieldsAndTotalsReadAsWritten() throws {
    let folder = try TemporaryDirectory()
    let formats = [
      ("flac", "flac", "audio/flac"), ("ogg", "libvorbis", "audio/ogg"), ("opus", "libopus", "audio/ogg"),
    ]
    for (name, codec, mime) in formats {
      let path = folder.file("tagged.\(name)")
      try ExternalTool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=600:duration=1", "-c:a", codec, path])
      try ExternalTool.make([
        "python3", "-c",
        """
        import sys, mutagen
        f = mutagen.File(sys.argv[1])
        f["TITLE"] = ["Morning", "Été"]
        f["ARTIST"] = ["Straße"]
        f["ALBUMARTIST"] = ["Øresund"]
        f["ALBUM"] = ["Blue Note"]
        f["TRACKNUMBER"] = ["3"]
        f["TRACKTOTAL"] = ["12"]
        f["DISCNUMBER"] = ["1/2"]
        f["DATE"] = ["2004-03-05"]
        f["GENRE"] = ["Rock", "Électro"]
        f["COMMENT"] = ["naïve"]
        f.save()
        """,
        path,
      ])
      guard case .audio(let info) = try MediaFileInfo.read(RegularFile(path: RawPath(path)), mime: mime)
      else {
        Issue.record("\(path) is not audio")
        continue
      }
      let tags = info.tags
      #expect(tags.title == "Morning; Été", "\(name)")
      #expect(
        tags.artist == "Straße" && tags.albumArtist == "Øresund" && tags.album == "Blue Note", "\(name)")
      #expect(
        tags.trackNumber == 3 && tags.trackTotal == 12 && tags.disc == 1 && tags.discTotal == 2, "\(name)")
      #expect(
        tags.date == "2004-03-05" && tags.genre == "Rock; Électro" && tags.comment == "naïve", "\(name)")
    }
  }
}
