import ShelfAudio
import ShelfCore
import ShelfFacts
import Testing

@testable import ShelfWorkers

/// What a worker sends comes back whole: facts with every property set to something other than
/// its default (checked by reflection, so a property added later fails here until it is both
/// set below and written by its `WireCodable` conformance), every reply and request.
@Suite struct WorkerWireTests {
  static let tags = AudioTags(
    title: "Title", artist: "Artist", album: "Album", date: "2024", track: "3/12", genre: "Genre",
    comment: "Comment", albumArtist: "Album artist", trackTotal: 12, disc: 1, discTotal: 2)

  static var fullTags: AudioTags {
    var tags = Self.tags
    tags.replayGain = ReplayGain(
      trackGain: -6.5, trackPeak: 0.9, albumGain: -7.25, albumPeak: 0.95, source: .tags)
    return tags
  }

  static var full: FileFacts {
    var facts = FileFacts(
      kind: .video, mime: "video/quicktime", detectedBy: .contentAndExtension, extensionMismatch: true,
      error: FileFactsError(reason: "cut short", failure: .badInput), searchText: "words of it")
    facts.image = ImageFacts(
      format: "png", width: 640, height: 480, bitDepth: 8, colorType: .rgba, alpha: true, interlaced: true,
      cgbi: true, frames: 3, loop: 2, chunks: ["IHDR", "IDAT"])
    facts.exif = EXIFFacts(
      taken: "2024-05-06T07:08:09", camera: "Apple iPhone 15", lens: "back camera", orientation: 6,
      gps: GPSPosition(latitude: 59.3, longitude: 18.1, altitude: 12.5), software: "17.4",
      contentIdentifier: "ABC-123")
    facts.audio = AudioFileInfo(
      duration: 1.5, sampleRate: 44100, channels: 2, frames: 66150, formatName: "mp3", encodingName: "MP3",
      bitsPerSample: 16, isLossless: true, tags: fullTags, codec: "mp3", bitrate: 128_000, hasArtwork: true,
      defect: AudioError(subject: "a.mp3", reason: .damaged, message: "last frame cut off"), container: "mp3")
    facts.video = VideoFileInfo(
      duration: 2.5, width: 1920, height: 1080, codec: "hevc", frameRate: 29.97, rotation: 90,
      audioCodec: "aac",
      sampleRate: 48000, channels: 2, bitrate: 8_000_000, taken: "2024-05-06T07:08:09+02:00",
      contentIdentifier: "ABC-123", tags: fullTags, formatName: "mov,mp4,m4a,3gp,3g2,mj2", container: "mov")
    facts.text = TextFacts(
      encoding: .windows1252, bom: true, lineEndings: .crlf, lines: 3, words: 7, chars: 40,
      firstLine: "Hello")
    facts.plist = PlistFacts(format: .binary, root: "dict", keys: ["CFBundleName"])
    return facts
  }

  /// The paths (in `value`) of properties left at a default: nil, zero, false, empty.
  static func defaults(in value: Any, at path: String = "facts") -> [String] {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
      guard let wrapped = mirror.children.first?.value else { return [path] }
      return defaults(in: wrapped, at: path)
    }
    switch value {
    case let value as String: return value.isEmpty ? [path] : []
    case let value as Bool: return value ? [] : [path]
    case let value as Int: return value == 0 ? [path] : []
    case let value as Int64: return value == 0 ? [path] : []
    case let value as Double: return value == 0 ? [path] : []
    case let value as [String]: return value.isEmpty ? [path] : []
    default: break
    }
    return mirror.children.flatMap { defaults(in: $0.value, at: path + "." + ($0.label ?? "?")) }
  }

  @Test func factsWithEveryPropertySetComeBackWhole() throws {
    let facts = Self.full
    #expect(Self.defaults(in: facts) == [])
    let bare = FileFacts(kind: .text, mime: "text/plain", detectedBy: .content, extensionMismatch: true)
    #expect(
      Self.defaults(in: bare) == [
        "facts.error", "facts.image", "facts.exif", "facts.audio", "facts.video", "facts.text", "facts.plist",
        "facts.searchText",
      ])
    let reply = try WireFormat.decode(WorkerReply.self, from: WireFormat.encode(WorkerReply.extracted(facts)))
    guard case .extracted(let back) = reply else {
      Issue.record("not facts: \(reply)")
      return
    }
    #expect(back == facts)
  }

  @Test func everyReplyAndRequestComesBack() throws {
    for sent in [
      WorkerReply.fingerprinted(.image(0xDEAD_BEEF_0123_4567)), .fingerprinted(.audio([1, 0, .max])),
      .unreadable(reason: "gone", vanished: true),
      .extracted(FileFacts(kind: .other, mime: "", detectedBy: .content, extensionMismatch: false)),
    ] {
      let back = try WireFormat.decode(WorkerReply.self, from: WireFormat.encode(sent))
      #expect("\(back)" == "\(sent)")
    }
    let requests = [
      WorkerRequest(path: [0x2F, 0xFF], fileExtension: "jpg", cpuSeconds: 30),
      WorkerRequest(path: [], fileExtension: "", cpuSeconds: 1, task: .fingerprint(.audio)),
    ]
    let back = try WireFormat.decode([WorkerRequest].self, from: WireFormat.encode(requests))
    #expect(back.map(\.path) == requests.map(\.path))
    #expect(back.map(\.fileExtension) == requests.map(\.fileExtension))
    #expect(back.map(\.cpuSeconds) == requests.map(\.cpuSeconds))
    #expect(back.map(\.task) == requests.map(\.task))
  }

  @Test func everyTruncationOfAFullReplyIsAnError() throws {
    let bytes = WireFormat.encode(WorkerReply.extracted(Self.full))
    for length in 0..<bytes.count {
      #expect(throws: WireFormatError.self) {
        try WireFormat.decode(WorkerReply.self, from: Array(bytes.prefix(length)))
      }
    }
    #expect(throws: WireFormatError("unknown reply")) { try WireFormat.decode(WorkerReply.self, from: [9]) }
  }
}
