import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// Chromaprint fingerprints of real music: the seven tracks of Debian's xmoto-data (Ogg
/// Vorbis, 71–161 s, one game's soundtrack: a hard case, one composer and style), each decoded
/// to FLAC and encoded from that FLAC to MP3 by LAME and to Opus by libopus.
/// The music of Debian's xmoto-data, when installed.
enum XmotoMusic {
  static let folder = "/usr/share/games/xmoto/Textures/Musics"
  static let tracks: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    .filter { $0.hasSuffix(".ogg") }.sorted()
}

@Suite(
  .enabled(
    if: XmotoMusic.tracks.count >= 3 && ExternalTool.isInstalled(["ffmpeg", "lame"]),
    "needs xmoto-data's music, ffmpeg and lame (scripts/setup.sh installs them)"))
struct AudioFingerprintTests {
  static let musicFolder = XmotoMusic.folder
  static let tracks = XmotoMusic.tracks

  /// Each track as FLAC, MP3 (LAME -V 5, about 130 kbit/s), Opus 64 kbit/s and Opus 24 kbit/s.
  static func encodings(in folder: TemporaryDirectory) throws -> [(
    name: String, flac: String, copies: [String]
  )] {
    try tracks.map { track in
      let name = String(track.dropLast(4))
      let flac = folder.file(name + ".flac")
      try ExternalTool.ffmpeg(["-i", musicFolder + "/" + track, "-c:a", "flac", flac])
      let mp3 = folder.file(name + ".mp3")
      try ExternalTool.make(["lame", "--quiet", "-V", "5", flac, mp3])
      let opus = folder.file(name + ".opus")
      try ExternalTool.ffmpeg(["-i", flac, "-c:a", "libopus", "-b:a", "64k", opus])
      let lowOpus = folder.file(name + "-24k.opus")
      try ExternalTool.ffmpeg(["-i", flac, "-c:a", "libopus", "-b:a", "24k", lowOpus])
      return (name, flac, [mp3, opus, lowOpus])
    }
  }

  @Test func encodingsOfOneRecordingAreSimilarAndDifferentRecordingsAreNot() throws {
    let folder = try TemporaryDirectory()
    let sets = try Self.encodings(in: folder)
    var originals: [AudioFingerprint] = []
    var lowestSame = 1.0
    for set in sets {
      let original = try AudioFingerprint.compute(path: RawPath(set.flac))
      // A minute or more of music: about eight items a second.
      #expect(original.raw.count > 400, "\(set.name): \(original.raw.count) items")
      #expect(original.similarity(to: original) == 1)
      for copy in set.copies {
        let fingerprint = try AudioFingerprint.compute(path: RawPath(copy))
        let similarity = original.similarity(to: fingerprint)
        print("same recording \(set.name) ↔ \((copy as NSString).lastPathComponent): \(similarity)")
        lowestSame = min(lowestSame, similarity)
        #expect(
          similarity >= AudioFingerprint.sameRecordingSimilarity,
          "\(copy) is \(similarity) alike its FLAC")
      }
      originals.append(original)
    }
    var highestDifferent = 0.0
    for first in originals.indices {
      for second in originals.indices where second > first {
        let similarity = originals[first].similarity(to: originals[second])
        highestDifferent = max(highestDifferent, similarity)
        #expect(
          similarity < AudioFingerprint.sameRecordingSimilarity,
          "\(sets[first].name) and \(sets[second].name) are \(similarity) alike")
      }
    }
    print(
      "audio fingerprints: lowest same-recording similarity \(lowestSame), highest across recordings \(highestDifferent)"
    )
  }

  @Test func onlyTheFirstMaxSecondsAreFingerprinted() throws {
    let folder = try TemporaryDirectory()
    let flac = folder.file("a.flac")
    try ExternalTool.ffmpeg(["-i", Self.musicFolder + "/" + Self.tracks[0], "-c:a", "flac", flac])
    let whole = try AudioFingerprint.compute(path: RawPath(flac))
    let start = try AudioFingerprint.compute(path: RawPath(flac), maxSeconds: 20)
    // 20 s is ~161 items of 0.124 s, less the ~2.6 s Chromaprint's frame and filters need to
    // fill before the first item (measured: 140 items).
    #expect((135...145).contains(start.raw.count), "\(start.raw.count) items")
    #expect(Array(whole.raw.prefix(start.raw.count - 4)) == Array(start.raw.prefix(start.raw.count - 4)))
  }

  @Test func aShiftOfASecondIsFoundByTheAlignment() throws {
    let folder = try TemporaryDirectory()
    let flac = folder.file("a.flac")
    let shifted = folder.file("shifted.mp3")
    try ExternalTool.ffmpeg(["-i", Self.musicFolder + "/" + Self.tracks[1], "-c:a", "flac", flac])
    // One second of silence before the music, as a ripper with another offset might write.
    try ExternalTool.ffmpeg([
      "-i", flac, "-af", "adelay=1000:all=1", "-c:a", "libmp3lame", "-b:a", "128k", shifted,
    ])
    let original = try AudioFingerprint.compute(path: RawPath(flac))
    let copy = try AudioFingerprint.compute(path: RawPath(shifted))
    #expect(original.similarity(to: copy) >= AudioFingerprint.sameRecordingSimilarity)
  }

  @Test func errorsNameTheFile() throws {
    let folder = try TemporaryDirectory()
    let path = try folder.write("not-audio.flac", Array("plain text, not a recording\n".utf8))
    #expect(throws: AudioError.self) { try AudioFingerprint.compute(path: RawPath(path)) }
    #expect(throws: AudioError.self) {
      try AudioFingerprint.compute(path: RawPath(folder.file("missing.mp3")))
    }
  }

  @Test func emptyOrTooShortFingerprintsAreLikeNothing() {
    let empty = AudioFingerprint(raw: [])
    let short = AudioFingerprint(raw: [1, 2, 3])
    #expect(empty.similarity(to: empty) == 0)
    #expect(short.similarity(to: short) == 0)
    var state: UInt32 = 7
    let items = (0..<100).map { _ in
      state = state &* 1_664_525 &+ 1_013_904_223
      return state
    }
    // Every bit differs where aligned; other alignments of unrelated items differ in about half.
    let inverted = AudioFingerprint(raw: items.map { ~$0 })
    #expect(AudioFingerprint(raw: items).similarity(to: inverted) < 0.3)
  }
}
