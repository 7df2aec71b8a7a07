import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// ReplayGain values: parsing as taggers write them, hostile values refused, the player's
/// scale, and every tag kind read from real music tagged by mutagen (on copies).
@Suite struct ReplayGainTests {
  @Test func parsesGainsAndPeaksAsTaggersWriteThem() {
    #expect(ReplayGain.parseGain("-6.54 dB") == -6.54)
    #expect(ReplayGain.parseGain("+1.2 dB") == 1.2)
    #expect(ReplayGain.parseGain("  -0.50 DB ") == -0.5)
    #expect(ReplayGain.parseGain("3") == 3)
    #expect(ReplayGain.parseGain("-6,54 dB") == -6.54)
    #expect(ReplayGain.parsePeak("0.988") == 0.988)
    #expect(ReplayGain.parsePeak("1.000000") == 1)
    #expect(ReplayGain.parsePeak("1.5") == 1.5)
  }

  @Test func refusesHostileValues() {
    for text in ["nan", "inf", "-inf", "1e3", "", "dB", "--1 dB", "1.2.3", "61 dB", "-60.01", "0x10", "١٢"] {
      #expect(ReplayGain.parseGain(text) == nil, "\(text)")
    }
    for text in ["0", "-0.5", "100.5", "nan", "1e-3", "abc"] {
      #expect(ReplayGain.parsePeak(text) == nil, "\(text)")
    }
    for text in ["32768", "-32769", "1.5", "12345678", "", "+"] {
      #expect(ReplayGain.parseR128Gain(text) == nil, "\(text)")
    }
    let built = ReplayGain(
      trackGain: .nan, trackPeak: -1, albumGain: 1e9, albumPeak: .infinity, source: .tags)
    #expect(
      built.trackGain == nil && built.trackPeak == nil && built.albumGain == nil && built.albumPeak == nil)
    #expect(ReplayGain.fromTags { _ in "garbage" } == nil)
  }

  @Test func opusR128GainsAreRelativeToMinus23LUFS() {
    // Q7.8: -1234/256 dB against -23 LUFS is 5 dB more against ReplayGain's -18 LUFS.
    #expect(ReplayGain.parseR128Gain("-1234") == -1234.0 / 256 + 5)
    #expect(ReplayGain.parseR128Gain("256") == 6)
    let tags = ["R128_TRACK_GAIN": "0", "R128_ALBUM_GAIN": "-512"]
    let gain = ReplayGain.fromTags { key in tags.first { $0.key.lowercased() == key }?.value }
    #expect(gain == ReplayGain(trackGain: 5, albumGain: 3, source: .tags))
  }

  @Test func scaleAppliesPreampAndPreventsClipping() {
    let gain = ReplayGain(trackGain: -6, trackPeak: 0.5, albumGain: 4, albumPeak: 0.9, source: .tags)
    #expect(abs(gain.scale(mode: .track) - pow(10, -6.0 / 20)) < 1e-12)
    #expect(abs(gain.scale(mode: .track, preamp: 3) - pow(10, -3.0 / 20)) < 1e-12)
    // +4 dB would push the album's 0.9 peak over full scale: limited to 1/0.9.
    #expect(abs(gain.scale(mode: .album) - 1 / 0.9) < 1e-12)
    #expect(abs(gain.scale(mode: .auto) - 1 / 0.9) < 1e-12)
    // +8 dB on the track would take its 0.5 peak over full scale: limited to 1/0.5.
    #expect(gain.scale(mode: .track, preamp: 14) == 2)
    #expect(abs(gain.scale(mode: .track, preamp: 11) - pow(10, 5.0 / 20)) < 1e-12)
    #expect(gain.scale(mode: .off) == 1)
    let trackOnly = ReplayGain(trackGain: -2, source: .measured)
    #expect(abs(trackOnly.scale(mode: .album) - pow(10, -2.0 / 20)) < 1e-12)
    #expect(ReplayGain(trackPeak: 0.5, source: .tags).scale(mode: .track, preamp: 6) == 1)
  }

  /// Real music (xmoto's Ogg Vorbis soundtrack, a Debian package), cut to 8 seconds.
  static let music = "/usr/share/games/xmoto/Textures/Musics/foxrun.ogg"
  static let haveTools =
    FileManager.default.fileExists(atPath: music)
    && ExternalTool.isInstalled(["python3"])
    && ExternalTool.isInstalled(["ffmpeg"])

  /// The mutagen script that writes each kind of tag (the values every test expects).
  static let tagger = """
    import sys, mutagen
    from mutagen.id3 import ID3, TXXX
    from mutagen.apev2 import APEv2
    from mutagen.mp4 import MP4, MP4FreeForm
    kind, path = sys.argv[1], sys.argv[2]
    values = [("REPLAYGAIN_TRACK_GAIN", "-6.54 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.988"),
              ("replaygain_album_gain", "+1.20 dB"), ("REPLAYGAIN_ALBUM_PEAK", "1.000000")]
    if kind == "vorbis":
        f = mutagen.File(path)
        for k, v in values: f[k] = v
        f.save()
    elif kind == "opus":
        f = mutagen.File(path); f["R128_TRACK_GAIN"] = "-1234"; f["R128_ALBUM_GAIN"] = "256"; f.save()
    elif kind == "id3":
        t = ID3(path)
        for k, v in values: t.add(TXXX(encoding=3, desc=k, text=[v]))
        t.save(path)
    elif kind == "ape":
        t = APEv2()
        for k, v in values: t[k] = v
        t.save(path)
    elif kind == "mp4":
        f = MP4(path)
        for k, v in values: f["----:com.apple.iTunes:" + k.lower()] = [MP4FreeForm(v.encode())]
        f.save()
    """

  /// A copy of the music encoded with `encoder` as `ext`, tagged with `kind`.
  static func taggedCopy(ext: String, encoder: String, kind: String, in folder: TemporaryDirectory) throws
    -> String
  {
    let path = folder.file("tagged.\(ext)")
    try ExternalTool.ffmpeg(["-t", "8", "-i", music, "-map_metadata", "-1", "-c:a", encoder, path])
    let script = folder.file("tag.py")
    try Data(tagger.utf8).write(to: URL(fileURLWithPath: script))
    try ExternalTool.make(["python3", script, kind, path])
    return path
  }

  static let expected = ReplayGain(
    trackGain: -6.54, trackPeak: 0.988, albumGain: 1.2, albumPeak: 1, source: .tags)

  @Test(
    .enabled(if: haveTools),
    arguments: [
      ("flac", "flac", "vorbis"), ("ogg", "libvorbis", "vorbis"), ("opus", "libopus", "opus"),
      ("mp3", "libmp3lame", "id3"), ("mp3", "libmp3lame", "ape"), ("wv", "wavpack", "ape"),
      ("m4a", "aac", "mp4"),
    ])
  func everyTagKindReachesTheDecoderAndTheFacts(_ format: (ext: String, encoder: String, kind: String)) throws
  {
    let folder = try TemporaryDirectory()
    let path = try Self.taggedCopy(ext: format.ext, encoder: format.encoder, kind: format.kind, in: folder)
    let wanted =
      format.kind == "opus"
      ? ReplayGain(trackGain: -1234.0 / 256 + 5, albumGain: 6, source: .tags) : Self.expected
    // What the player gets from the decoder it plays with (libsndfile or FFmpeg).
    let decoder = try AudioDecoders.open(path: RawPath(path))
    #expect(decoder.tags.replayGain == wanted, "\(format)")
    // What the indexer records: FFmpeg's reading, and shelf's own for MP3s.
    #expect(try AudioFileInfo.read(path: RawPath(path)).tags.replayGain == wanted, "\(format)")
    if format.ext == "mp3" {
      let file = try RegularFile(path: RawPath(path))
      guard case .audio(let info) = try MediaFileInfo.read(file, mime: "audio/mpeg") else {
        Issue.record("not audio")
        return
      }
      #expect(info.tags.replayGain == wanted, "\(format)")
    }
  }

  @Test(.enabled(if: haveTools)) func aFileWithoutTagsHasNoGain() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("plain.flac")
    try ExternalTool.ffmpeg(["-t", "2", "-i", Self.music, "-map_metadata", "-1", "-c:a", "flac", path])
    #expect(try AudioDecoders.open(path: RawPath(path)).tags.replayGain == nil)
    #expect(try AudioFileInfo.read(path: RawPath(path)).tags.replayGain == nil)
  }

  @Test func commentBlocksOfHostileLengthsAreRefusedNotTrusted() {
    var generator = SeededGenerator(state: 26)
    for _ in 0..<5000 {
      let bytes = (0..<Int.random(in: 0..<96, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      _ = VorbisComments.parse(bytes)
      _ = APETag.parse(bytes, count: Int.random(in: 0...Int(Int32.max), using: &generator))
    }
    // A comment whose length claims 4 GiB: nothing read past the block.
    let lying: [UInt8] =
      [0, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + Array("REPLAYGAIN_TRACK_GAIN=1".utf8)
    #expect(VorbisComments.parse(lying).isEmpty)
    let good: [UInt8] = [0, 0, 0, 0, 1, 0, 0, 0, 23, 0, 0, 0] + Array("REPLAYGAIN_TRACK_GAIN=1".utf8)
    #expect(VorbisComments.parse(good).map(\.value) == ["1"])
  }
}
