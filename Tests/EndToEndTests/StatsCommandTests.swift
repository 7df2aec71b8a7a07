import Foundation
import ShelfTestSupport
import Testing

@Suite struct StatsCommandTests {
  @Test(arguments: TestCatalogues.kinds) func countsByKindAndAreaAsJSON(store: CatalogueStoreKind) throws {
    let sample = try IndexedSample(store)
    let result = try sample.run(["stats", "--json"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    let entries = SampleMediaManifest.entries
    #expect(object["files"] as? Int == entries.count)
    #expect(object["size"] as? Int == entries.reduce(0) { $0 + $1.size })
    #expect(object["extension_mismatches"] as? Int == 1)
    let byKind = try #require(object["by_kind"] as? [String: [String: Any]])
    for kind in Set(entries.map(\.kind)) {
      let expected = entries.filter { $0.kind == kind }
      #expect(byKind[kind]?["files"] as? Int == expected.count, "\(kind)")
      #expect(byKind[kind]?["size"] as? Int == expected.reduce(0) { $0 + $1.size }, "\(kind)")
    }
    // 1 s + 2 s + 1.5 s + 2 s of test signals, 2 s + 1.5 s + 89856/44100 s + 1 s + 1 s of
    // music and 2 s of voicemail; two videos of 1 s.
    #expect(abs((byKind["audio"]?["duration"] as? Double ?? 0) - (14 + 89856.0 / 44100)) < 0.01)
    #expect(abs((byKind["video"]?["duration"] as? Double ?? 0) - 2) < 0.05)
    let byArea = try #require(object["by_area"] as? [String: [String: Any]])
    for area in Set(entries.map(\.area)) {
      #expect(byArea[area]?["files"] as? Int == entries.filter { $0.area == area }.count, "\(area)")
    }
    let roots = try #require(object["roots"] as? [[String: Any]])
    #expect(roots.count == 1)
    #expect(roots.first?["path"] as? String == sample.root)
    #expect(roots.first?["sandbox"] as? Bool == true)
    let bundle = try #require(roots.first?["bundle"] as? [String: Any])
    #expect(bundle["identifier"] as? String == "com.example.shelfdemo")
    #expect(bundle["path"] as? String == "Demo.app")
  }

  @Test(arguments: TestCatalogues.kinds) func humanTableByKindAndArea(store: CatalogueStoreKind) throws {
    let sample = try IndexedSample(store)
    let result = try sample.run(["stats"])
    #expect(result.status == 0)
    #expect(
      result.stdout.hasPrefix(
        """
        kind   files     size  duration
        audio     10  484 KiB      0:16
        image     16   40 KiB
        other      1  2.0 KiB
        plist      6  2.5 KiB
        text      12  2.0 KiB
        video      2   41 KiB      0:02
        total     47  572 KiB      0:18

        area         files     size  duration
        bundle           3   20 KiB
        caches           1    421 B
        documents       37  546 KiB      0:16
        library          3  5.5 KiB      0:02
        preferences      2    600 B
        tmp              1     31 B
        total           47  572 KiB      0:18

        taken  photos     size
        2022        1  4.3 KiB
        2024        1  1.4 KiB

        """))
    #expect(
      result.stdout.contains(
        "roots:\n  \(sample.root)  (sandbox: Demo.app, com.example.shelfdemo, version 1.0)  scanned "))
  }

  @Test func missingCatalogueExits66() throws {
    let scratch = try TemporaryDirectory()
    let result = try ShelfProcess.run(["--db", scratch.path + "/x.sqlite", "stats"])
    #expect(result.status == 66)
  }

  /// An 8-bit mono PCM WAV of `count` samples at `rate` Hz.
  private func wav(rate: UInt32, count: Int) -> [UInt8] {
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    return Array("RIFF".utf8) + le32(UInt32(36 + count)) + Array("WAVEfmt ".utf8) + le32(16) + le16(1)
      + le16(1) + le32(rate) + le32(rate) + le16(1) + le16(8) + Array("data".utf8) + le32(UInt32(count))
      + [UInt8](repeating: 128, count: count)
  }

  @Test func aDurationOverAWeekIsCountedNotSummed() throws {
    let scratch = try TemporaryDirectory()
    // 700,000 samples at 1 Hz: eight days, more than any real recording in a catalogue.
    _ = try scratch.write("m/long.wav", wav(rate: 1, count: 700_000))
    _ = try scratch.write("m/second.wav", wav(rate: 8000, count: 8000))
    let database = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/m"]).status == 0)
    let result = try ShelfProcess.run(["--db", database, "stats", "--json"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    #expect(object["duration"] as? Double == 1)
    #expect(object["implausible_durations"] as? Int == 1)
    let byKind = try #require(object["by_kind"] as? [String: [String: Any]])
    #expect(byKind["audio"]?["duration"] as? Double == 1)
    let text = try ShelfProcess.run(["--db", database, "stats"]).stdout
    #expect(
      text.contains(
        "\n1 with an implausible duration (not finite, negative or over a week): left out of the durations\n")
    )
    #expect(text.contains("audio      2  691 KiB      0:01\n"))
  }
}
