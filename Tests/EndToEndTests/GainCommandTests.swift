import Foundation
import ShelfTestSupport
import Testing

/// `shelf gain` against loudgain (Debian) on real music, its gains kept in SQLite and
/// PostgreSQL catalogues and shown by `info --json` and `ls --json`, the files never written.
@Suite struct GainCommandTests {
  /// xmoto's soundtrack (Debian xmoto-data): real music, Ogg Vorbis.
  static let musicFolder = "/usr/share/games/xmoto/Textures/Musics"
  static let albums = [["menu.ogg", "foxrun.ogg"], ["MadeiraStew.ogg", "speeditup.ogg"]]
  static let haveMusic =
    FileManager.default.fileExists(atPath: musicFolder + "/menu.ogg")
    && ExternalTool.isInstalled(["loudgain"])
    && ExternalTool.isInstalled(["python3"])

  /// Copies of the albums in folders `A` and `B` of `scratch`. A's tracks have no album tag
  /// (an album by folder); B's are tagged as one album by mutagen (MadeiraStew.ogg has an
  /// album tag of its own that speeditup.ogg lacks).
  static func copyAlbums(_ scratch: TemporaryDirectory) throws -> [String] {
    let folders = try albums.enumerated().map { index, names in
      let folder = scratch.path + "/" + ["A", "B"][index]
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      for name in names {
        try FileManager.default.copyItem(atPath: musicFolder + "/" + name, toPath: folder + "/" + name)
      }
      return folder
    }
    let script = """
      import sys, mutagen
      for path in sys.argv[1:]:
          f = mutagen.File(path); f["ALBUM"] = "Musix 4 XMoto"; f["ALBUMARTIST"] = "Jens Erler"; f.save()
      """
    try ExternalTool.make(["python3", "-c", script] + albums[1].map { folders[1] + "/" + $0 })
    return folders
  }

  static func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  static func contents(_ folders: [String]) throws -> [String: Data] {
    var out: [String: Data] = [:]
    for folder in folders {
      for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
        out[folder + "/" + name] = FileManager.default.contents(atPath: folder + "/" + name)
      }
    }
    return out
  }

  /// loudgain's `-O` rows (`File`, `Album`) of one album: gain (dB) and true peak by name.
  static func loudgain(_ files: [String]) throws -> [String: (gain: Double, peak: Double)] {
    let outcome = try ExternalTool.run(["loudgain", "-a", "-s", "s", "-O"] + files)
    #expect(outcome.status == 0)
    var rows: [String: (Double, Double)] = [:]
    for line in String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").dropFirst() {
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count >= 9, let peak = Double(fields[3]),
        let gain = Double(fields[8].replacingOccurrences(of: " dB", with: ""))
      else { continue }
      rows[fields[0]] = (gain, peak)
    }
    return rows
  }

  @Test(.enabled(if: haveMusic)) func measuresAsLoudgainDoesPerAlbumAndWritesNoFile() throws {
    let scratch = try TemporaryDirectory()
    let folders = try Self.copyAlbums(scratch)
    let before = try Self.contents(folders)
    let result = try ShelfProcess.run(
      ["--db", scratch.path + "/none.sqlite", "gain", "--json"] + folders)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let report = try Self.json(result.stdout)
    let tracks = try #require(report["tracks"] as? [[String: Any]])
    #expect(tracks.count == 4)
    for folder in folders {
      let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
        folder + "/" + $0
      }
      let anchor = try Self.loudgain(files)
      let album = try #require(anchor["Album"])
      for file in files {
        let expected = try #require(anchor[file])
        let track = try #require(tracks.first { $0["path"] as? String == file })
        let gain = try #require(track["track_gain"] as? Double)
        let albumGain = try #require(track["album_gain"] as? Double)
        let peak = try #require(track["track_peak"] as? Double)
        #expect(abs(gain - expected.gain) <= 0.1, "\(file): \(gain) vs loudgain \(expected.gain)")
        #expect(abs(albumGain - album.gain) <= 0.1, "\(file): album \(albumGain) vs loudgain \(album.gain)")
        // loudgain measures 16-bit samples (clipped at full scale); shelf the decoder's floats,
        // whose overs it keeps: their true peaks agree where nothing was clipped.
        if expected.peak < 0.99 {
          #expect(
            abs(peak - expected.peak) <= 0.001 * expected.peak, "\(file): peak \(peak) vs \(expected.peak)")
        } else {
          #expect(peak >= 0.99, "\(file): peak \(peak) vs \(expected.peak)")
        }
        // Not in a catalogue: measured and printed only.
        #expect(track["stored"] as? Bool == false)
      }
    }
    // The table: loudgain's columns, each album's tracks then its Album row.
    let table = try ShelfProcess.run(["--db", scratch.path + "/none.sqlite", "gain", folders[0]])
    let lines = table.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("File\tLoudness\tTrue_Peak\tTrue_Peak_dBTP\tReference\t") == true)
    #expect(lines.count == 4 && lines.last?.hasPrefix("Album\t") == true)
    #expect(try Self.contents(folders) == before)
  }

  @Test(.enabled(if: haveMusic), arguments: TestCatalogues.kinds)
  func keepsTheGainsOfCataloguedFilesWhileTheyAreUnchanged(store: CatalogueStoreKind) throws {
    let scratch = try TemporaryDirectory()
    let folders = try Self.copyAlbums(scratch)
    let database = try TestCatalogues.location(store, in: scratch.path)
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/A"]).status == 0)
    let before = try Self.contents(folders)
    // A: catalogued, kept; B: measured and printed only.
    let result = try ShelfProcess.run(["--db", database, "gain", "--json", folders[0], folders[1]])
    #expect(result.status == 0, "\(result.stderr)")
    let tracks = try #require(try Self.json(result.stdout)["tracks"] as? [[String: Any]])
    let stored = Dictionary(
      uniqueKeysWithValues: tracks.map { ($0["path"] as! String, $0["stored"] as! Bool) })
    #expect(stored.filter(\.value).keys.sorted() == Self.albums[0].map { folders[0] + "/" + $0 }.sorted())
    #expect(try Self.contents(folders) == before)
    let file = folders[0] + "/menu.ogg"
    let measured = try #require(tracks.first { $0["path"] as? String == file })
    func shown() throws -> [String: Any]? {
      let info = try ShelfProcess.run(["--db", database, "info", "--json", file])
      #expect(info.status == 0)
      return try Self.json(info.stdout)["replaygain"] as? [String: Any]
    }
    let gain = try #require(try shown())
    #expect(gain["source"] as? String == "measured")
    #expect(abs((gain["track_gain"] as? Double ?? 99) - (measured["track_gain"] as! Double)) < 0.01)
    #expect(abs((gain["album_gain"] as? Double ?? 99) - (measured["album_gain"] as! Double)) < 0.01)
    #expect((gain["track_peak"] as? Double ?? 0) > 0.5)
    let all = try ShelfProcess.run(["--db", database, "ls", "--json", "kind:audio"])
    #expect(all.stdout.contains("\"replaygain\":{\"track_gain\":"))
    #expect(all.stdout.contains("\"source\":\"measured\""))
    // A rescan of the unchanged files keeps them; a changed file loses its gains.
    #expect(
      try ShelfProcess.run(
        ["--db", database, "index", scratch.path + "/A"], environment: ["SHELF_TRUST_WINDOW": "0"]
      ).status == 0)
    #expect(try shown()?["source"] as? String == "measured")
    let handle = try #require(FileHandle(forWritingAtPath: file))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([0]))
    try handle.close()
    #expect(
      try ShelfProcess.run(
        ["--db", database, "index", scratch.path + "/A"], environment: ["SHELF_TRUST_WINDOW": "0"]
      ).status == 0)
    #expect(try shown() == nil)
  }

  @Test(.enabled(if: haveMusic)) func tagsOfTheFileAreShownAsTags() throws {
    let scratch = try TemporaryDirectory()
    let file = scratch.path + "/m/tagged.flac"
    try FileManager.default.createDirectory(atPath: scratch.path + "/m", withIntermediateDirectories: true)
    try ExternalTool.ffmpeg([
      "-t", "3", "-i", Self.musicFolder + "/menu.ogg", "-c:a", "flac", "-metadata",
      "REPLAYGAIN_TRACK_GAIN=-6.54 dB",
      "-metadata", "REPLAYGAIN_TRACK_PEAK=0.988", file,
    ])
    let database = scratch.path + "/c.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/m"]).status == 0)
    let info = try ShelfProcess.run(["--db", database, "info", "--json", file])
    let gain = try #require(try Self.json(info.stdout)["replaygain"] as? [String: Any])
    #expect(gain["source"] as? String == "tags")
    #expect(gain["track_gain"] as? Double == -6.54)
    #expect(gain["track_peak"] as? Double == 0.988)
    #expect(gain["album_gain"] is NSNull)
    let text = try ShelfProcess.run(["--db", database, "info", file])
    #expect(text.stdout.contains("replaygain:"))
    #expect(text.stdout.contains("track -6.54 dB, peak 0.988000 (tags)"))
  }

  @Test(.enabled(if: haveMusic)) func aFileThatFailsCostsThatFileOnly() throws {
    let scratch = try TemporaryDirectory()
    let folders = try Self.copyAlbums(scratch)
    let bad = try scratch.write("A/broken.ogg", Array("not music at all\n".utf8))
    let result = try ShelfProcess.run(
      ["--db", scratch.path + "/none.sqlite", "gain", folders[0], scratch.path + "/missing.flac"])
    #expect(result.status == 1)
    let errors = result.stderr.split(separator: "\n").map(String.init)
    #expect(errors.count == 2)
    #expect(errors.contains { $0.hasPrefix("error: \(bad): ") })
    #expect(errors.contains("error: \(scratch.path)/missing.flac: no such file or directory"))
    #expect(result.stdout.split(separator: "\n").count == 4)
    let nothing = try ShelfProcess.run(["--db", scratch.path + "/none.sqlite", "gain", bad])
    #expect(nothing.status == 65)
  }

  @Test(.enabled(if: haveMusic)) func whileAnotherShelfWritesTheGainsArePrintedThenItExits75() throws {
    let scratch = try TemporaryDirectory()
    let folders = try Self.copyAlbums(scratch)
    let database = scratch.path + "/c.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", folders[0]]).status == 0)
    // A slow index of another root holds the writer lock.
    let other = scratch.path + "/other"
    for index in 0..<200 { _ = try scratch.write("other/n\(index).txt", Array("n \(index)\n".utf8)) }
    let writer = try BackgroundShelf(
      ["--db", database, "index", other],
      environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      writer.kill(SIGKILL)
      _ = writer.wait()
    }
    #expect(
      try ObservableWait.until {
        try ShelfProcess.run(["--db", database, "ls", "-0", "root:" + other]).stdoutBytes.contains(0)
      })
    let result = try ShelfProcess.run(
      ["--db", database, "gain", "--json", folders[0]], environment: ["SHELF_LOCK_WAIT": "0.3"])
    #expect(result.status == 75)
    #expect(result.stderr.hasPrefix("error: gains not kept in the catalogue: "))
    #expect(result.stderr.split(separator: "\n").count == 1)
    let tracks = try #require(try Self.json(result.stdout)["tracks"] as? [[String: Any]])
    #expect(tracks.count == 2 && tracks.allSatisfy { $0["stored"] as? Bool == false })
  }
}
