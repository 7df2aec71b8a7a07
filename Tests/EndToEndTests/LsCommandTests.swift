import Foundation
import ShelfTestSupport
import Testing

@Suite struct LsCommandTests {
  /// The relative paths `ls -0 QUERY` prints, in order.
  private func paths(_ sample: IndexedSample, _ query: [String], _ options: [String] = []) throws -> [String]
  {
    let result = try sample.run(["ls", "-0"] + options + query)
    return result.stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self).dropFirst(sample.root.count + 1)
    }
    .map(String.init)
  }

  @Test func tableRowsShowPathKindSizeAndKeyFacts() throws {
    let sample = try IndexedSample()
    let result = try sample.run(["ls", "ext:flac,ext:plist", "area:documents"])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let root = sample.root
    #expect(
      result.stdout == """
        \(root)/Documents/chord-stereo.flac   audio  64 KiB  0:02 flac 44100 Hz 2 ch  Shelf Test Signals – C Major Chord
        \(root)/Documents/recent-items.plist  plist   209 B  binary array
        \(root)/Documents/settings.plist      plist   683 B  xml dictionary 5 keys

        """)
  }

  @Test func queriesByFieldComparisonRangeNegationAndOr() throws {
    let sample = try IndexedSample()
    #expect(
      try paths(sample, ["kind:image", "width>=64"]) == [
        "Demo.app/AppIcon60x60@2x.png", "Documents/gradient-iphone.png", "Documents/gradient-rgba.png",
      ])
    #expect(
      try paths(sample, ["kind:audio", "track:1..2"]) == [
        "Documents/chord-stereo.flac", "Documents/tone-440-mono.wav",
      ])
    #expect(try paths(sample, ["duration<1.5"]) == ["Documents/tone-440-mono.wav"])
    #expect(
      try paths(sample, ["size>60K"]) == ["Documents/chord-stereo.flac", "Documents/tone-440-mono.wav"])
    #expect(try paths(sample, ["kind:audio,text"]).count == 10)
    #expect(try paths(sample, ["-kind:image", "-kind:audio,text"]).count == 7)
    #expect(try paths(sample, ["key:=CFBundleIdentifier"]) == ["Demo.app/Info.plist"])
    #expect(
      try paths(sample, ["plist:xml", "key:Theme"]) == [
        "Library/Preferences/com.example.shelfdemo.display.plist"
      ])
    #expect(try paths(sample, ["encoding:=utf-16le"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["mismatch:yes"]) == ["Documents/holiday.jpg"])
    #expect(try paths(sample, ["depth:16"]) == ["Documents/rgb16.png"])
    #expect(try paths(sample, ["alpha:yes", "color:=palette"]) == ["Documents/palette-trns.png"])
    #expect(try paths(sample, ["area:preferences"]).count == 2)
    #expect(try paths(sample, ["artist:shelf test", "genre:=blues"]) == ["Documents/beeps-stereo.mp3"])
    #expect(try paths(sample, ["year:2020..2029", "format:ogg"]) == ["Documents/sweep-stereo.ogg"])
    #expect(
      try paths(sample, ["mtime>2000-01-01", "kind:other"]) == ["Library/Application Support/index.bin"])
    #expect(try paths(sample, ["mtime<2000-01-01"]).isEmpty)
  }

  @Test func bareWordsSearchNamesTagsKeysAndText() throws {
    let sample = try IndexedSample()
    #expect(try paths(sample, ["jalapeños"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["creme"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["Beeps"]) == ["Documents/beeps-stereo.mp3"])
    #expect(try paths(sample, ["LaunchCount"]) == ["Library/Preferences/com.example.shelfdemo.plist"])
    #expect(try paths(sample, ["thumbnail"]) == ["Library/Caches/thumbnail-0001.png"])
  }

  @Test func sortAndLimit() throws {
    let sample = try IndexedSample()
    #expect(
      try paths(sample, ["kind:audio"], ["--sort", "size:desc", "--limit", "2"]) == [
        "Documents/tone-440-mono.wav", "Documents/chord-stereo.flac",
      ])
    #expect(
      try paths(sample, ["kind:audio"], ["--sort", "duration"]) == [
        "Documents/tone-440-mono.wav", "Documents/sweep-stereo.ogg", "Documents/beeps-stereo.mp3",
        "Documents/chord-stereo.flac",
      ])
  }

  @Test func jsonAndJSONLinesUseTheDocumentedFieldNames() throws {
    let sample = try IndexedSample()
    let array = try sample.run(["ls", "--json", "kind:image"])
    let records = try JSONSerialization.jsonObject(with: Data(array.stdoutBytes)) as? [[String: Any]] ?? []
    #expect(records.count == 10)
    let first = try #require(records.first)
    #expect(
      Set(first.keys) == ["path", "root", "area", "kind", "mime", "size", "mtime", "detected_by", "image"])
    let image = try #require(first["image"] as? [String: Any])
    for key in ["width", "height", "bit_depth", "color_type", "alpha", "interlaced", "cgbi", "frames"] {
      #expect(image[key] != nil, "\(key)")
    }
    #expect((first["mtime"] as? String)?.hasSuffix("Z") == true)
    let lines = try sample.run(["ls", "--jsonl", "kind:audio"])
    let objects = lines.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(objects.count == 4)
    let audio = try #require(objects.first?["audio"] as? [String: Any])
    for key in [
      "duration", "sample_rate", "channels", "frames", "format", "title", "artist", "album", "date", "track",
      "genre",
    ] {
      #expect(audio[key] != nil, "\(key)")
    }
  }

  @Test func longListingAddsMIMEAreaAndTime() throws {
    let sample = try IndexedSample()
    let result = try sample.run(["ls", "-l", "name:=holiday.jpg"])
    #expect(result.status == 0)
    let columns = result.stdout.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    #expect(columns.count == 9)
    #expect(
      Array(columns.prefix(4)) == ["\(sample.root)/Documents/holiday.jpg", "image", "image/png", "documents"])
    #expect(columns[4].hasSuffix("Z"))
    #expect(Array(columns.suffix(4)) == ["580", "B", "32×24", "rgb\n"])
  }

  @Test func nothingMatchingExits1Silently() throws {
    let sample = try IndexedSample()
    let result = try sample.run(["ls", "kind:image", "size>1G"])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.isEmpty)
  }

  @Test func badQueriesAreUsageErrors() throws {
    let sample = try IndexedSample()
    var result = try sample.run(["ls", "kinds:image"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: unknown query field 'kinds' (did you mean 'kind'?)\n"))
    result = try sample.run(["ls", "size>huge"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: field 'size' cannot compare with 'huge'\n"))
    result = try sample.run(["ls", "--json", "--jsonl"])
    #expect(result.status == 64)
  }

  @Test func missingCatalogueExits66() throws {
    let scratch = try TemporaryDirectory()
    let result = try ShelfProcess.run(["--db", scratch.path + "/none.sqlite", "ls"])
    #expect(result.status == 66)
    #expect(
      result.stderr
        == "error: \(scratch.path)/none.sqlite: no catalogue yet (run `shelf index FOLDER` first)\n")
  }

  @Test func manPageDocumentsTheQuerySyntax() throws {
    let page = try String(
      contentsOf: ShelfProcess.repositoryRoot.appendingPathComponent("man/shelf-ls.1"), encoding: .utf8)
    #expect(page.contains("QUERY SYNTAX"))
    for field in ["kind", "type", "ext", "duration", "artist", "year", "encoding", "plist", "key"] {
      #expect(page.contains(field))
    }
  }
}
