import Foundation
import ShelfTestSupport
import Testing

/// `shelf info --json` on the rarer containers FFmpeg reads, made at test time by ffmpeg, sox,
/// mpcenc and mutagen (ID3 tags ahead of FLAC, WAV and Musepack) or shipped by Debian (tracker
/// modules): kind, MIME type, codec and duration as ffprobe reports them; and the same files cut
/// short or garbled end in a one-line error or `other`, never a crash or a hang.
@Suite(
  .enabled(
    if: ExternalTool.isInstalled(["ffmpeg", "ffprobe", "sox", "mpcenc", "mpcdec"]),
    "needs ffmpeg, sox and musepack-tools"))
struct RareContainersInfoTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    /// The commands that make it, `{out}` standing for its path.
    var commands: [[String]]
    var mime: String
    /// True when the length to expect is what the reference decoder `mpcdec` yields (ffprobe
    /// gives none for a Musepack file with an ID3 tag ahead).
    var decodedByMpcdec = false
    var testDescription: String { name }
  }

  static func ffmpeg(_ arguments: [String]) -> [String] {
    ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments
  }
  static let tone = ["-f", "lavfi", "-i", "sine=f=440:r=44100:d=2.5"]
  static let picture = ["-f", "lavfi", "-i", "testsrc=d=2:s=320x240:r=25", "-f", "lavfi", "-i", "sine=d=2"]

  /// Prepends an ID3v2 tag (title, and a cover larger than the 8 KiB shelf sniffs first) with
  /// mutagen, PyPI's tag library.
  static let id3Ahead = [
    "python3", "-c",
    "import sys; from mutagen.id3 import ID3, TIT2, APIC; t = ID3(); t.add(TIT2(encoding=3, text='Ahead'));"
      + " t.add(APIC(encoding=3, mime='image/jpeg', type=3, desc='', data=bytes(range(256)) * 64));"
      + " t.save(sys.argv[1])", "{out}",
  ]

  static let cases: [Case] = [
    Case(name: "tone.tta", commands: [ffmpeg(tone + ["-c:a", "tta", "{out}"])], mime: "audio/x-tta"),
    Case(
      name: "clip.rm", commands: [ffmpeg(picture + ["-c:v", "rv10", "-c:a", "ac3", "{out}"])],
      mime: "video/vnd.rn-realvideo"),
    Case(
      name: "voice.ra", commands: [ffmpeg(tone + ["-ar", "8000", "-c:a", "real_144", "-f", "rm", "{out}"])],
      mime: "audio/vnd.rn-realaudio"),
    Case(
      name: "tape.dv",
      commands: [
        ffmpeg(["-f", "lavfi", "-i", "testsrc=d=0.4:s=720x576:r=25", "-target", "pal-dv", "{out}"])
      ],
      mime: "video/dv"),
    Case(
      name: "stream.flv", commands: [ffmpeg(picture + ["-c:v", "flv1", "-c:a", "libmp3lame", "{out}"])],
      mime: "video/x-flv"),
    Case(
      name: "broadcast.ts",
      commands: [ffmpeg(picture + ["-c:v", "mpeg2video", "-c:a", "mp2", "-f", "mpegts", "{out}"])],
      mime: "video/mp2t"),
    Case(
      name: "disc.m2ts",
      commands: [
        ffmpeg(
          picture + ["-c:v", "mpeg2video", "-c:a", "ac3", "-f", "mpegts", "-mpegts_m2ts_mode", "1", "{out}"])
      ], mime: "video/mp2t"),
    Case(
      name: "camera.avi", commands: [ffmpeg(picture + ["-c:v", "mpeg4", "-c:a", "libmp3lame", "{out}"])],
      mime: "video/x-msvideo"),
    // The sound goes on a second after the picture ends: the longest stream's length.
    Case(
      name: "film.ogv",
      commands: [
        ffmpeg([
          "-f", "lavfi", "-i", "testsrc=d=2:s=320x240:r=25", "-f", "lavfi", "-i", "sine=d=3", "-c:v",
          "libtheora",
          "-c:a", "libvorbis", "{out}",
        ])
      ], mime: "video/ogg"),
    Case(
      name: "media.wmv", commands: [ffmpeg(picture + ["-c:v", "wmv2", "-c:a", "wmav2", "{out}"])],
      mime: "video/x-ms-wmv"),
    Case(
      name: "dvb.latm", commands: [ffmpeg(tone + ["-c:a", "aac", "-f", "latm", "{out}"])], mime: "audio/aac"),
    Case(name: "tagged.flac", commands: [ffmpeg(tone + ["{out}"]), id3Ahead], mime: "audio/flac"),
    Case(
      name: "tagged.wav",
      commands: [["sox", "-n", "-r", "22050", "{out}", "synth", "1.5", "sine", "330"], id3Ahead],
      mime: "audio/wav"),
    Case(
      name: "tagged.mpc",
      commands: [
        ffmpeg(tone + ["-ac", "2", "{out}.wav"]), ["mpcenc", "--silent", "{out}.wav", "{out}"], id3Ahead,
      ],
      mime: "audio/x-musepack", decodedByMpcdec: true),
  ]

  /// ffprobe's kind (video when a picture stream is not cover art), codec of that stream and
  /// length (the container's, else the longest stream's).
  static func probe(_ path: String) throws -> (kind: String, codec: String, duration: Double) {
    let json = try ExternalTool.ffprobe(path)
    let streams = json["streams"] as? [[String: Any]] ?? []
    let video = streams.first {
      $0["codec_type"] as? String == "video"
        && ($0["disposition"] as? [String: Any])?["attached_pic"] as? Int != 1
    }
    let stream = video ?? streams.first { $0["codec_type"] as? String == "audio" } ?? [:]
    let format = json["format"] as? [String: Any] ?? [:]
    // A length of 0 is none declared (ffmpeg's RealAudio 14.4): the packets' then.
    func seconds(_ value: Any?) -> Double? {
      (value as? String).flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
    }
    let lengths = streams.compactMap { seconds($0["duration"]) }
    let duration = try seconds(format["duration"]) ?? lengths.max() ?? packetTime(path)
    return (video == nil ? "audio" : "video", stream["codec_name"] as? String ?? "", duration)
  }

  /// The first audio stream's packet durations added up, for a raw stream that declares no length
  /// (LATM).
  static func packetTime(_ path: String) throws -> Double {
    let outcome = try ExternalTool.run([
      "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=duration_time", "-of",
      "csv=p=0",
      path,
    ])
    return String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
      .reduce(
        0, +)
  }

  static func make(_ item: Case, in folder: TemporaryDirectory) throws -> String {
    let out = folder.file(item.name)
    for command in item.commands {
      try ExternalTool.make(command.map { $0.replacingOccurrences(of: "{out}", with: out) })
    }
    return out
  }

  static func info(_ path: String) throws -> [String: Any] {
    let result = try ShelfProcess.run(["info", "--json", path])
    #expect(result.status == 0, "\(result.stderr)")
    return try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any] ?? [:]
  }

  @Test(arguments: cases)
  func infoAgreesWithFFprobe(_ item: Case) throws {
    let folder = try TemporaryDirectory()
    let path = try Self.make(item, in: folder)
    var expected = try Self.probe(path)
    if item.decodedByMpcdec {
      try ExternalTool.make(["mpcdec", path, folder.file("decoded.wav")])
      expected.duration = try Self.probe(folder.file("decoded.wav")).duration
      #expect(expected.duration > 2)
    }
    let object = try Self.info(path)
    #expect(object["kind"] as? String == expected.kind)
    #expect(object["mime"] as? String == item.mime)
    #expect(object["error"] == nil)
    let facts = object[expected.kind] as? [String: Any] ?? [:]
    #expect(facts["codec"] as? String == expected.codec)
    let duration = facts["duration"] as? Double ?? 0
    #expect(abs(duration - expected.duration) <= max(0.05, expected.duration * 0.01), "\(duration) s")
  }

  /// ASF: the picture rate FFmpeg finds (25), and Apple's creation date of a QuickTime movie
  /// that exiftool wrote, with its offset.
  @Test func frameRateAndAppleCreationDate() throws {
    let folder = try TemporaryDirectory()
    let wmv = try Self.make(Self.cases.first { $0.name == "media.wmv" }!, in: folder)
    let video = try Self.info(wmv)["video"] as? [String: Any]
    #expect(video?["frame_rate"] as? Double == 25)
    try #require(ExternalTool.isInstalled(["exiftool"]))
    let movie = folder.file("phone.mov")
    try ExternalTool.ffmpeg(Self.picture + ["-c:v", "mpeg4", "-c:a", "aac", movie])
    try ExternalTool.make([
      "exiftool", "-q", "-overwrite_original", "-Keys:CreationDate=2021:03:04 05:06:07-07:00",
      "-QuickTime:CreateDate=2001:02:03 04:05:06", movie,
    ])
    let taken = (try Self.info(movie)["video"] as? [String: Any])?["taken"] as? String
    #expect(taken == "2021-03-04T05:06:07-07:00")
  }

  /// An AVI by ffmpeg whose header frame counts are blanked, as a writer that never went back to
  /// fill them in leaves them: ffprobe gives no length; the index's, as mediainfo reads it.
  @Test(
    .enabled(if: ExternalTool.isInstalled(["mediainfo"]), "needs mediainfo (scripts/setup.sh installs it)"))
  func aviLengthFromItsIndex() throws {
    let folder = try TemporaryDirectory()
    let path = try Self.make(Self.cases.first { $0.name == "camera.avi" }!, in: folder)
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    // avih's dwTotalFrames, then each strh's dwLength.
    func blank(_ tag: String, at offset: Int) {
      let id = Array(tag.utf8)
      for start in 0..<(bytes.count - 48) where Array(bytes[start..<start + 4]) == id {
        bytes.replaceSubrange(start + offset..<start + offset + 4, with: [0, 0, 0, 0])
      }
    }
    blank("avih", at: 24)
    blank("strh", at: 40)
    try folder.write("blank.avi", bytes)
    let blanked = folder.file("blank.avi")
    let reference = try ExternalTool.run(["mediainfo", "--Inform=General;%Duration%", blanked])
    let milliseconds = Double(
      String(decoding: reference.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    let expected = try #require(milliseconds) / 1000
    #expect(expected > 1.9)
    let video = try Self.info(blanked)["video"] as? [String: Any]
    #expect(abs((video?["duration"] as? Double ?? 0) - expected) < 0.05)
  }

  /// Tracker modules as Debian's games ship them (pingus-data, tecnoballz-data, njam-data): audio
  /// read through FFmpeg's libopenmpt demuxer, ffprobe's length.
  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: "/usr/share/games/njam/data/dali.xm"),
      "needs pingus-data, tecnoballz-data and njam-data (scripts/setup.sh installs them)"))
  func trackerModules() throws {
    let modules = [
      ("/usr/share/games/njam/data/dali.xm", "audio/x-xm"),
      ("/usr/share/games/njam/data/ritam.s3m", "audio/x-s3m"),
      ("/usr/share/games/pingus/data/music/pingus-1.it", "audio/x-it"),
      ("/usr/share/games/tecnoballz/musics/area2-game.mod", "audio/x-mod"),
    ]
    for (path, mime) in modules {
      let expected = try Self.probe(path)
      let object = try Self.info(path)
      #expect(object["kind"] as? String == "audio", "\(path)")
      #expect(object["mime"] as? String == mime, "\(path)")
      let audio = object["audio"] as? [String: Any] ?? [:]
      #expect(audio["codec"] as? String == expected.codec, "\(path)")
      #expect(abs((audio["duration"] as? Double ?? 0) - expected.duration) < 0.001, "\(path)")
    }
  }

  /// Each file cut to a few hundred bytes, or its body replaced by noise after the signature:
  /// `shelf info` answers (a one-line error, or the facts it could read) within the time limit.
  @Test(arguments: cases)
  func damagedFilesEndInOneLine(_ item: Case) throws {
    let folder = try TemporaryDirectory()
    let path = try Self.make(item, in: folder)
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var noise = SeededNoise(seed: UInt64(bytes.count))
    let garbled = Array(bytes.prefix(64)) + (0..<4096).map { _ in noise.next() }
    for (name, damaged) in [
      ("cut", Array(bytes.prefix(300))), ("half", Array(bytes.prefix(bytes.count / 2))),
      ("garbled", garbled),
    ] {
      try folder.write(name + "-" + item.name, damaged)
      let result = try ShelfProcess.run(["info", "--json", folder.file(name + "-" + item.name)], timeout: 30)
      #expect(result.status == 0 || result.status == 65, "\(name): \(result.status) \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count <= 1, "\(name): \(result.stderr)")
    }
  }
}

/// A small xorshift generator: the same noise every run.
struct SeededNoise {
  var state: UInt64
  init(seed: UInt64) { state = seed | 1 }
  mutating func next() -> UInt8 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return UInt8(truncatingIfNeeded: state >> 32)
  }
}
