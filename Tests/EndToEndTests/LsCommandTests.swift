import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

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

  @Test(arguments: TestCatalogues.kinds) func tableRowsShowPathKindSizeAndKeyFacts(store: CatalogueStoreKind)
    throws
  {
    let sample = try IndexedSample(store)
    let result = try sample.run(["ls", "ext:flac,ext:plist", "area:documents"])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let root = sample.root
    #expect(
      result.stdout == """
        \(root)/Documents/Music/duet-repeated-artist.flac  audio  35 KiB  0:01 flac 44100 Hz 2 ch  First Voice; Second Voice – Duet
        \(root)/Documents/chord-stereo.flac                audio  64 KiB  0:02 flac 44100 Hz 2 ch  Shelf Test Signals – C Major Chord
        \(root)/Documents/recent-items.plist               plist   209 B  binary array
        \(root)/Documents/settings.plist                   plist   683 B  xml dictionary 5 keys

        """)
  }

  @Test(arguments: TestCatalogues.kinds) func queriesByFieldComparisonRangeNegationAndOr(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    #expect(
      try paths(sample, ["kind:image", "width>=64"]) == [
        "Demo.app/AppIcon60x60@2x.png", "Documents/Camera/DSC01234.JPG", "Documents/Camera/IMG_0001.HEIC",
        "Documents/Scans/scan-pages.tif", "Documents/gradient-iphone.png", "Documents/gradient-rgba.png",
      ])
    #expect(
      try paths(sample, ["kind:audio", "track:1..2"]) == [
        "Documents/Music/duet-repeated-artist.flac", "Documents/chord-stereo.flac",
        "Documents/tone-440-mono.wav",
      ])
    #expect(
      try paths(sample, ["duration<1.5"]) == [
        "Documents/Camera/IMG_0001.MOV", "Documents/Camera/portrait-clip.mov",
        "Documents/Music/duet-repeated-artist.flac",
        "Documents/Music/tagged-id3.aiff", "Documents/tone-440-mono.wav",
      ])
    #expect(
      try paths(sample, ["size>60K"]) == [
        "Documents/Music/lossless-fifth.m4a", "Documents/Music/tagged-id3.aiff",
        "Documents/chord-stereo.flac",
        "Documents/tone-440-mono.wav",
      ])
    #expect(try paths(sample, ["kind:audio,text"]).count == 22)
    #expect(try paths(sample, ["-kind:image", "-kind:audio,text"]).count == 9)
    #expect(try paths(sample, ["key:=CFBundleIdentifier"]) == ["Demo.app/Info.plist"])
    #expect(
      try paths(sample, ["plist:xml", "key:Theme"]) == [
        "Library/Preferences/com.example.shelfdemo.display.plist"
      ])
    #expect(try paths(sample, ["encoding:=utf-16le"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["mismatch:yes"]) == ["Documents/holiday.jpg"])
    #expect(try paths(sample, ["depth:16", "kind:image"]) == ["Documents/rgb16.png"])
    #expect(try paths(sample, ["alpha:yes", "color:=palette"]) == ["Documents/palette-trns.png"])
    #expect(try paths(sample, ["area:preferences"]).count == 2)
    #expect(try paths(sample, ["artist:shelf test", "genre:=blues"]) == ["Documents/beeps-stereo.mp3"])
    #expect(try paths(sample, ["year:2020..2029", "format:ogg-vorbis"]) == ["Documents/sweep-stereo.ogg"])
    #expect(
      try paths(sample, ["mtime>2000-01-01", "kind:other"]) == ["Library/Application Support/index.bin"])
    #expect(try paths(sample, ["mtime<2000-01-01"]).isEmpty)
  }

  @Test(arguments: TestCatalogues.kinds) func bareWordsSearchNamesTagsKeysAndText(store: CatalogueStoreKind)
    throws
  {
    let sample = try IndexedSample(store)
    #expect(try paths(sample, ["jalapeños"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["creme"]) == ["Documents/Notes/shopping-utf16le.txt"])
    #expect(try paths(sample, ["Beeps"]) == ["Documents/beeps-stereo.mp3"])
    #expect(try paths(sample, ["LaunchCount"]) == ["Library/Preferences/com.example.shelfdemo.plist"])
    #expect(try paths(sample, ["thumbnail"]) == ["Library/Caches/thumbnail-0001.png"])
  }

  @Test(arguments: TestCatalogues.kinds) func wordsListTheBestMatchesFirstUnlessSorted(
    store: CatalogueStoreKind
  )
    throws
  {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/root"
    try FileManager.default.createDirectory(atPath: root + "/notes", withIntermediateDirectories: true)
    let texts = [
      // In path order: found in the path alone, a long text, a short one, and one without it.
      "a-lighthouse-trip/list.txt": "bread milk eggs\n",
      "notes/long.txt": "the lighthouse "
        + Array(repeating: "and then the tide came in", count: 20).joined(
          separator: " ") + "\n",
      "notes/short.txt": "lighthouse keeper\n",
      "notes/zebra.txt": "nothing to see here\n",
    ]
    for (name, text) in texts {
      let path = root + "/" + name
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }
    let db = try TestCatalogues.location(store, in: scratch.path)
    #expect(try ShelfProcess.run(["--db", db, "index", root]).status == 0)
    func listed(_ arguments: [String]) throws -> [String] {
      let result = try ShelfProcess.run(["--db", db, "ls", "-0"] + arguments)
      return result.stdoutBytes.split(separator: 0).map {
        String(decoding: $0.dropFirst(root.utf8.count + 1), as: UTF8.self)
      }
    }
    // Found in the text first, the shorter text ahead; then found in the path alone.
    let ranked = ["notes/short.txt", "notes/long.txt", "a-lighthouse-trip/list.txt"]
    #expect(try listed(["lighthouse"]) == ranked)
    #expect(try listed(["lighthouse", "--limit", "2"]) == Array(ranked.prefix(2)))
    #expect(try listed(["light", "kind:text"]) == ranked)
    // A sort asked for wins.
    #expect(
      try listed(["lighthouse", "--sort", "path"]) == [
        "a-lighthouse-trip/list.txt", "notes/long.txt", "notes/short.txt",
      ])
  }

  @Test(arguments: TestCatalogues.kinds) func sortAndLimit(store: CatalogueStoreKind) throws {
    let sample = try IndexedSample(store)
    #expect(
      try paths(sample, ["kind:audio"], ["--sort", "size:desc", "--limit", "2"]) == [
        "Documents/Music/tagged-id3.aiff", "Documents/tone-440-mono.wav",
      ])
    #expect(
      try paths(sample, ["kind:audio"], ["--sort", "duration"]) == [
        "Documents/Music/duet-repeated-artist.flac", "Documents/Music/tagged-id3.aiff",
        "Documents/tone-440-mono.wav", "Documents/Music/lossless-fifth.m4a", "Documents/sweep-stereo.ogg",
        "Documents/Music/morning-chord.m4a", "Documents/beeps-stereo.mp3", "Documents/chord-stereo.flac",
        "Library/Voicemail/voicemail-0001.amr", "Documents/Music/no-xing-cover.mp3",
      ])
  }

  @Test(arguments: TestCatalogues.kinds) func twoSortsOrderByTheFirstThenTheSecond(store: CatalogueStoreKind)
    throws
  {
    let sample = try IndexedSample(store)
    #expect(
      try paths(sample, ["ext:wav,ext:flac,ext:plist"], ["--sort", "kind", "--sort", "name:desc"]) == [
        "Documents/tone-440-mono.wav", "Documents/Music/duet-repeated-artist.flac",
        "Documents/chord-stereo.flac",
        "Library/Application Support/state.plist",
        "Documents/settings.plist", "Documents/recent-items.plist",
        "Library/Preferences/com.example.shelfdemo.plist",
        "Library/Preferences/com.example.shelfdemo.display.plist", "Demo.app/Info.plist",
      ])
    let direction = try sample.run(["ls", "--sort", "size:biggest"])
    #expect(direction.status == 64)
    #expect(direction.stderr.hasPrefix("error: --sort: unknown sort direction 'biggest' (use asc or desc)\n"))
  }

  @Test func namesMatchWholeAndNameAndPathTakeSmartCaseGlobs() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/root"
    try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
    let png = AudioE2E.bytes(
      ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents/rgb16.png").path)
    let names: [[UInt8]] = [
      Array("a.png".utf8), Array("IMG_1.PNG".utf8), Array("sub/img_2.png".utf8), Array("x.libpng16".utf8),
      Array("y.optipng".utf8), Array("bad".utf8) + [0xFF] + Array(".png".utf8),
    ]
    for name in names {
      let fd = (Array((root + "/").utf8) + name + [0]).withUnsafeBufferPointer {
        $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
      }
      #expect(fd >= 0)
      _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
    let db = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", db, "index", root]).status == 0)
    func listed(_ query: String) throws -> [[UInt8]] {
      let result = try ShelfProcess.run(["--db", db, "ls", "-0", query])
      return result.stdoutBytes.split(separator: 0).map { Array($0.dropFirst(root.utf8.count + 1)) }
    }
    let bad = Array("bad".utf8) + [0xFF] + Array(".png".utf8)
    let allPNG = [Array("IMG_1.PNG".utf8), Array("a.png".utf8), bad, Array("sub/img_2.png".utf8)]
    #expect(try listed("ext:png") == allPNG)
    #expect(try listed("ext:PNG") == allPNG)
    #expect(try listed("name:*.png") == allPNG)
    #expect(try listed("name:img_*.png") == [Array("IMG_1.PNG".utf8), Array("sub/img_2.png".utf8)])
    #expect(try listed("name:IMG_*.PNG") == [Array("IMG_1.PNG".utf8)])
    #expect(try listed("name:bad?.png") == [bad])
    #expect(try listed("path:*/sub/*") == [Array("sub/img_2.png".utf8)])
    #expect(try listed("name:png").isEmpty)
  }

  @Test(arguments: TestCatalogues.kinds) func globsMatchTheRawBytesOfNamesThatAreNotUTF8(
    store: CatalogueStoreKind
  )
    throws
  {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/root"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let invalid: [UInt8] = Array("bad".utf8) + [0xFF] + Array(".png".utf8)
    let otherInvalid: [UInt8] = Array("bad".utf8) + [0xFE] + Array(".png".utf8)
    let replacement = Array("bad\u{FFFD}.png".utf8)
    // A sequence cut short: two units for the glob, one U+FFFD in the text form.
    let truncated: [UInt8] = [0x61, 0xE2, 0x82] + Array(".png".utf8)
    let latin1: [UInt8] = [0xE9] + Array(".png".utf8)
    let accented = Array("é.png".utf8)
    let capital = Array("É.PNG".utf8)
    let kelvin = Array("\u{212A}elvin.txt".utf8)
    let plain = Array("kelvin.txt".utf8)
    for name in [invalid, otherInvalid, replacement, truncated, latin1, accented, capital, kelvin, plain] {
      let fd = (Array((root + "/").utf8) + name + [0]).withUnsafeBufferPointer {
        $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
      }
      #expect(fd >= 0)
      _ = write(fd, "some text\n", 10)
      close(fd)
    }
    let db = try TestCatalogues.location(store, in: scratch.path)
    #expect(try ShelfProcess.run(["--db", db, "index", root]).status == 0)
    func listed(_ query: String) throws -> [[UInt8]] {
      let result = try ShelfProcess.run(["--db", db, "ls", "-0", query])
      return result.stdoutBytes.split(separator: 0).map { Array($0.dropFirst(root.utf8.count + 1)) }
    }
    func sorted(_ names: [[UInt8]]) -> [[UInt8]] { names.sorted { $0.lexicographicallyPrecedes($1) } }
    // `?` is one unit: a character, or a byte that is not UTF-8.
    #expect(try listed("name:bad?.png") == sorted([invalid, otherInvalid, replacement]))
    #expect(try listed("name:a??.png") == [truncated])
    #expect(try listed("name:a?.png") == [])
    #expect(try listed("name:?.png") == sorted([latin1, accented, capital]))
    // A U+FFFD in the pattern is that character, not any byte the text form replaced with it.
    #expect(try listed("name:bad\u{FFFD}.png") == [replacement])
    #expect(try listed("path:*/bad\u{FFFD}*") == [replacement])
    #expect(try listed("name:=bad\u{FFFD}.png") == [replacement])
    // Case folds as in SQLite: É to é, KELVIN SIGN to k; a byte that is not UTF-8 is no letter.
    #expect(try listed("name:é*") == sorted([accented, capital]))
    #expect(try listed("name:[é]*") == sorted([accented, capital]))
    #expect(try listed("name:kelvin*") == sorted([kelvin, plain]))
    #expect(try listed("name:[a-k]elvin*") == sorted([kelvin, plain]))
    #expect(try listed("name:[!k]elvin*") == [])
    #expect(try listed("name:Kelvin*") == [])
    #expect(try listed("-name:*.png") == sorted([kelvin, plain]))
  }

  @Test(arguments: TestCatalogues.kinds) func termsWithoutWordCharactersAreUsageErrorsNotEverything(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    for term in ["\"", "(", "*", "-", ","] {
      let result = try sample.run(["ls", "-0", term])
      #expect(result.status == 64, "\(term)")
      #expect(result.stdout.isEmpty)
      #expect(result.stderr.hasPrefix("error: query term '\(term)' has no letters or digits to search for\n"))
    }
  }

  @Test func helpSummarisesTheQuerySyntax() throws {
    let help = try ShelfProcess.run(["ls", "--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("  name:'IMG_*.PNG'       name, path, root: globs (* ? [a-z])\n"))
    #expect(help.stdout.contains("  kind:image  ext:png    names: the whole value, any case\n"))
  }

  @Test(arguments: TestCatalogues.kinds) func jsonAndJSONLinesUseTheDocumentedFieldNames(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let array = try sample.run(["ls", "--json", "kind:image"])
    let records = try JSONSerialization.jsonObject(with: Data(array.stdoutBytes)) as? [[String: Any]] ?? []
    #expect(records.count == 16)
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
    #expect(objects.count == 10)
    let audio = try #require(objects.first?["audio"] as? [String: Any])
    for key in [
      "duration", "sample_rate", "channels", "frames", "format", "codec", "encoding", "bitrate", "title",
      "artist", "album", "album_artist", "date", "track", "track_total", "disc", "disc_total", "genre",
      "artwork",
    ] {
      #expect(audio[key] != nil, "\(key)")
    }
    let video = try sample.run(["ls", "--json", "kind:video"])
    let clips = try JSONSerialization.jsonObject(with: Data(video.stdoutBytes)) as? [[String: Any]] ?? []
    let portrait = clips.first { ($0["path"] as? String)?.hasSuffix("/portrait-clip.mov") == true }
    let clip = try #require(portrait?["video"] as? [String: Any])
    #expect(clip["width"] as? Int == 320 && clip["height"] as? Int == 240)
    #expect(clip["rotation"] as? Int == 90 && clip["codec"] as? String == "h264")
    #expect(clip["audio_codec"] as? String == "aac")
    #expect(clip["taken"] as? String == "2024-05-01T14:30:00+02:00")
  }

  @Test(arguments: TestCatalogues.kinds) func longListingAddsMIMEAreaAndTime(store: CatalogueStoreKind) throws
  {
    let sample = try IndexedSample(store)
    let result = try sample.run(["ls", "-l", "name:=holiday.jpg"])
    #expect(result.status == 0)
    let columns = result.stdout.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    #expect(columns.count == 9)
    #expect(
      Array(columns.prefix(4)) == ["\(sample.root)/Documents/holiday.jpg", "image", "image/png", "documents"])
    #expect(columns[4].hasSuffix("Z"))
    #expect(Array(columns.suffix(4)) == ["580", "B", "32×24", "rgb\n"])
  }

  @Test(arguments: TestCatalogues.kinds) func nothingMatchingExits1Silently(store: CatalogueStoreKind) throws
  {
    let sample = try IndexedSample(store)
    let result = try sample.run(["ls", "kind:image", "size>1G"])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.isEmpty)
  }

  @Test(arguments: TestCatalogues.kinds) func badQueriesAreUsageErrors(store: CatalogueStoreKind) throws {
    let sample = try IndexedSample(store)
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
    #expect(page.contains("the whole value"))
    #expect(page.contains("smart case"))
  }
}
