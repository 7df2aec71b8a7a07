import Foundation
import ShelfTestSupport
import Testing

/// Mutants of SampleMedia through the built binary: whatever a file holds, `shelf info` and
/// `shelf index` end with one of the documented exit statuses (`ExitStatus.swift`), never a
/// signal or a hang. The mutants come from a seeded generator, so a failure names a mutant
/// that the next run makes again, byte for byte.
@Suite struct MutationTests {
  /// The statuses the man page documents.
  static let documentedStatuses: Set<Int32> = [0, 1, 64, 65, 66, 69, 73, 74, 75, 77, 130]
  static let mutantCount = 300
  /// Mutants per `index` run (each in a folder of its own, into one catalogue).
  static let batchSize = 30

  struct Mutant {
    var name: String
    var source: String
    var steps: [String]
    var bytes: [UInt8]
  }

  /// The sample files (backups included) up to 256 KiB, by path relative to SampleMedia.
  static func samples() throws -> [(String, [UInt8])] {
    let root = ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia").path
    let paths = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    return paths.sorted().compactMap { relative in
      var isFolder: ObjCBool = false
      let path = root + "/" + relative
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
        let data = FileManager.default.contents(atPath: path), data.count <= 256 << 10, !data.isEmpty
      else { return nil }
      return (relative, Array(data))
    }
  }

  /// Byte flips, "interesting" values written over lengths and counts, insertions, deletions,
  /// truncations, widened size nibbles and splices with another sample; one to four of them
  /// per mutant.
  static func mutants(of samples: [(String, [UInt8])], count: Int, seed: UInt64) -> [Mutant] {
    var random = SeededGenerator(state: seed)
    let interesting: [[UInt8]] = [
      [0x00], [0xFF], [0x7F], [0x80], [0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF],
      [0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
      [0x00, 0x00, 0x00, 0x00], [0x1F], [0x4F], [0x6F], [0xAF], [0xDF],
    ]
    var result: [Mutant] = []
    for index in 0..<count {
      let (source, original) = samples[random.below(samples.count)]
      var bytes = original
      var steps: [String] = []
      for _ in 0..<(1 + random.below(4)) {
        let at = random.below(bytes.count)
        switch random.below(8) {
        case 0:
          let bit = UInt8(1 << random.below(8))
          if !bytes.isEmpty { bytes[at] ^= bit }
          steps.append("flip \(bit) at \(at)")
        case 1, 2:
          // Headers sit at the start and the end (plist trailers, ID3v1): aim there often.
          let value = interesting[random.below(interesting.count)]
          let place = random.below(3) == 0 ? max(0, bytes.count - 32 + random.below(32)) : at
          for (offset, byte) in value.enumerated() where place + offset < bytes.count {
            bytes[place + offset] = byte
          }
          steps.append("set \(value.map { String($0, radix: 16) }.joined()) at \(place)")
        case 3:
          let inserted = (0..<(1 + random.below(16))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
          bytes.insert(contentsOf: inserted, at: min(at, bytes.count))
          steps.append("insert \(inserted.count) at \(at)")
        case 4:
          let length = min(1 + random.below(64), bytes.count - at)
          if length > 0 { bytes.removeSubrange(at..<at + length) }
          steps.append("delete \(length) at \(at)")
        case 5:
          bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
          steps.append("truncate to \(bytes.count)")
        case 6:
          // A size nibble widened: a binary plist object (found through its offset table)
          // becomes an integer marker asking for 256 bytes to 4 GiB; in other files the next
          // byte that reads as a 1-to-8-byte integer marker (0x10–0x13) does.
          let marker =
            Self.binaryPlistObjectOffsets(bytes).randomElement(using: &random)
            ?? bytes[at...].firstIndex(where: { (0x10...0x13).contains($0) })
          if let marker {
            bytes[marker] = 0x10 | UInt8(8 + random.below(8))
            steps.append("widen marker at \(marker)")
          }
        default:
          let (other, otherBytes) = samples[random.below(samples.count)]
          let from = random.below(otherBytes.count)
          let piece = otherBytes[from..<min(otherBytes.count, from + 1 + random.below(512))]
          bytes.replaceSubrange(at..<min(bytes.count, at + piece.count), with: piece)
          steps.append("splice \(piece.count) of \(other) at \(at)")
        }
      }
      // The name keeps the extension: it breaks the sniffer's ties, as it does for real files.
      let file = (source as NSString).lastPathComponent
      result.append(
        Mutant(name: String(format: "m%03d-", index) + file, source: source, steps: steps, bytes: bytes))
    }
    return result
  }

  /// The offsets of a binary plist's objects, read from its trailer and offset table; empty
  /// when `bytes` is not one or its trailer does not add up.
  static func binaryPlistObjectOffsets(_ bytes: [UInt8]) -> [Int] {
    guard bytes.count > 40, bytes.starts(with: Array("bplist00".utf8)) else { return [] }
    func number(_ at: Int, _ size: Int) -> Int? {
      guard at >= 0, size <= 8, at + size <= bytes.count else { return nil }
      let value = bytes[at..<at + size].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      return value < UInt64(bytes.count) ? Int(value) : nil
    }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    guard (1...8).contains(offsetSize), let count = number(trailer + 8, 8),
      let table = number(trailer + 24, 8)
    else { return [] }
    return (0..<min(count, 4096)).compactMap { number(table + $0 * offsetSize, offsetSize) }
      .filter { $0 >= 8 && $0 < trailer }
  }

  /// One line per run that ended outside the documented statuses: the status, and for a crash
  /// the Swift runtime's reason and the first frame in shelf's sources.
  static func describe(_ status: Int32?, _ what: String, _ result: ShelfResult?) -> String {
    let reason = status.map { $0 > 128 ? "signal \($0 - 128) (status \($0))" : "status \($0)" } ?? "hung"
    let lines = result?.stderr.split(separator: "\n").map(String.init) ?? []
    let cause = lines.first { $0.contains("Fatal error") || $0.contains("Swift runtime failure") }
    // The crashed thread's first frame in shelf's sources (other threads are listed too).
    let crashed = lines.firstIndex { $0.hasSuffix("crashed:") } ?? 0
    let frame = lines[crashed...].first { $0.contains("/Sources/") }.map {
      String($0[$0.range(of: "/Sources/")!.lowerBound...])
    }
    return "\(what): \(reason) \([cause, frame].compactMap { $0 }.joined(separator: " at "))"
  }

  @Test func mutantsOfTheSamplesEndWithADocumentedStatus() throws {
    let scratch = try TemporaryDirectory()
    let mutants = Self.mutants(of: try Self.samples(), count: Self.mutantCount, seed: 0x5EED_2100)
    var failures: [String] = []
    var folders: [String] = []
    for (index, mutant) in mutants.enumerated() {
      if index % Self.batchSize == 0 {
        folders.append(scratch.path + "/batch\(index / Self.batchSize)")
        try FileManager.default.createDirectory(atPath: folders.last!, withIntermediateDirectories: true)
      }
      let path = folders.last! + "/" + mutant.name
      FileManager.default.createFile(atPath: path, contents: Data(mutant.bytes))
      let what = "info \(mutant.name) (\(mutant.source): \(mutant.steps.joined(separator: ", ")))"
      do {
        let result = try ShelfProcess.run(["info", path], timeout: 20)
        if !Self.documentedStatuses.contains(result.status) {
          failures.append(Self.describe(result.status, what, result))
        }
      } catch ShelfProcessError.timeout {
        failures.append(Self.describe(nil, what, nil))
      }
    }
    let database = scratch.path + "/catalogue.db"
    for folder in folders {
      let what = "index \((folder as NSString).lastPathComponent)"
      do {
        let result = try ShelfProcess.run(
          ["--db", database, "index", folder], environment: ["SHELF_TRUST_WINDOW": "0"], timeout: 60)
        if !Self.documentedStatuses.contains(result.status) {
          failures.append(Self.describe(result.status, what, result))
        }
      } catch ShelfProcessError.timeout {
        failures.append(Self.describe(nil, what, nil))
      }
    }
    // SHELF_KEEP_MUTANTS=FOLDER keeps the mutants (in folders of `batchSize`) for a closer look.
    if let keep = ProcessInfo.processInfo.environment["SHELF_KEEP_MUTANTS"] {
      try? FileManager.default.removeItem(atPath: keep)
      try FileManager.default.copyItem(atPath: scratch.path, toPath: keep)
    }
    let summary = "\(failures.count) runs of \(mutants.count) mutants:\n" + failures.joined(separator: "\n")
    #expect(failures.isEmpty, Comment(rawValue: summary))
  }

  /// The generator is deterministic: the same seed makes the same mutants.
  @Test func mutantsAreTheSameForTheSameSeed() throws {
    let samples = try Self.samples()
    let first = Self.mutants(of: samples, count: 20, seed: 7).map(\.bytes)
    let second = Self.mutants(of: samples, count: 20, seed: 7).map(\.bytes)
    #expect(first == second)
    #expect(Set(first).count > 15)
  }
}
