import Foundation
import ShelfTestSupport
import Testing

/// Numbers and missing fields in templates (issue 44, item 10): `{track}` in `ls -f` and
/// `extract --name` is the track's number even when the tag reads `3/10` (it gave `3/10`, and
/// `3_10 - Fox.mp3` as a file name), `{track:02}` pads it, and a field with no value in the
/// file name becomes `unknown` as in a folder (an untagged file's `{artist} - {title}.{ext}`
/// was ` - .aac`).
@Suite struct TemplateNumbersTests {
  /// A catalogue of `Fox.mp3` (track 3/10, disc 1/2, title and artist) and an untagged
  /// `plain.aac`.
  static func catalogue() throws -> IndexedRoot {
    try IndexedRoot { _, root in
      let tone = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.3"]
      try ExternalTool.make(
        tone + [
          "-metadata", "track=3/10", "-metadata", "disc=1/2", "-metadata", "title=Fox", "-metadata",
          "artist=Band", root + "/Fox.mp3",
        ])
      try ExternalTool.make(tone + ["-c:a", "aac", "-f", "adts", root + "/plain.aac"])
    }
  }

  /// The files below `folder`, relative to it, sorted.
  func files(in folder: String) throws -> [String] {
    let names = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
    return names.filter { name in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
        && !isFolder.boolValue
    }.sorted()
  }

  @Test func trackIsTheNumberAndTakesAWidth() throws {
    let catalogue = try Self.catalogue()
    let listed = try catalogue.run([
      "ls", "-f", "{track}|{track:02}|{track_total}|{disc}|{disc:03}|{disc_total}|{title}", "title:Fox",
    ])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout == "3|03|10|1|001|2|Fox\n")
    // A number wider than the width is whole; a field with no value stays empty in a listing.
    let wide = try catalogue.run(["ls", "-f", "{track:01}|{track:04}|{year:04}|{name}", "kind:audio"])
    #expect(wide.stdout == "3|0003||Fox.mp3\n|||plain.aac\n")
  }

  @Test func aWidthOnlyGoesWithANumber() throws {
    let catalogue = try Self.catalogue()
    let letters = try catalogue.run(["ls", "-f", "{track:x}", "kind:audio"])
    #expect(letters.status == 64)
    #expect(letters.stdout.isEmpty)
    #expect(
      letters.stderr.contains("field 'track' takes a width to pad with zeros, such as {track:02}, not 'x'"))
    let title = try catalogue.run(["ls", "-f", "{title:02}", "kind:audio"])
    #expect(title.status == 64)
    #expect(title.stderr.contains("field 'title' is no date and takes no format"))
  }

  @Test func extractNamesFilesByTrackNumberAndFillsMissingFieldsWithUnknown() throws {
    let catalogue = try Self.catalogue()
    let output = catalogue.folder.path + "/out"
    let result = try catalogue.run([
      "extract", "-o", output, "--name", "{album}/{track:02} - {artist} - {title}.{ext}", "kind:audio",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      try files(in: output) == [
        "unknown/03 - Band - Fox.mp3", "unknown/unknown - unknown - unknown.aac",
      ])
    let plain = try catalogue.run([
      "extract", "-o", output + "2", "--name", "{artist} - {title}.{ext}", "ext:aac",
    ])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(try files(in: output + "2") == ["unknown - unknown.aac"])
    // The extracted file is the catalogued one, byte for byte.
    #expect(
      FileManager.default.contents(atPath: output + "2/unknown - unknown.aac")
        == FileManager.default.contents(atPath: catalogue.root + "/plain.aac"))
  }
}
