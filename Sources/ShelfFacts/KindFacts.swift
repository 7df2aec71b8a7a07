import ShelfAudio
import ShelfCore

/// What the header of an image says.
public struct ImageFacts: Sendable, Equatable, Codable {
  public var format: String
  public var width: Int
  public var height: Int
  /// Bits per sample (per channel), when the format says.
  public var bitDepth: Int?
  /// A colour description: `rgba`, `rgb`, `gray`, `gray-alpha`, `palette`, `cmyk`, `ycbcr`.
  public var colorType: String?
  public var alpha: Bool?
  public var interlaced: Bool?
  /// True for Apple's iPhone-optimized PNG (CgBI); nil for other formats.
  public var cgbi: Bool?
  /// Number of frames (APNG, animated GIF/WebP); 1 for still images when known.
  public var frames: Int?
  /// How many times an animation plays, 0 for forever; nil when the file does not say. WebP's
  /// ANIM chunk counts plays (webpmux's Loop Count); a GIF's NETSCAPE2.0 (or ANIMEXTS1.0)
  /// extension counts repeats after the first play (Pillow's `info['loop']`), so a nonzero
  /// count is one more than it, as gif2webp converts it and browsers play it.
  public var loop: Int?
  /// PNG chunk names in file order (repeats collapsed), for PNG only.
  public var chunks: [String]

  public init(
    format: String, width: Int, height: Int, bitDepth: Int? = nil, colorType: String? = nil,
    alpha: Bool? = nil, interlaced: Bool? = nil, cgbi: Bool? = nil, frames: Int? = nil,
    loop: Int? = nil, chunks: [String] = []
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.bitDepth = bitDepth
    self.colorType = colorType
    self.alpha = alpha
    self.interlaced = interlaced
    self.cgbi = cgbi
    self.frames = frames
    self.loop = loop
    self.chunks = chunks
  }
}

/// What an audio file's header and tags say; tags read through (`facts.title`) to `tags`.
@dynamicMemberLookup
public struct AudioFacts: Sendable, Equatable, Codable {
  public var duration: Double
  public var sampleRate: Int
  public var channels: Int
  public var frames: Int64
  /// The container, e.g. `wav`, `flac`, `ogg`, `mp3`.
  public var format: String
  /// The encoding's long name, e.g. `AAC (Advanced Audio Coding)`.
  public var subtype: String?
  public var tags: AudioTags
  /// FFmpeg's codec name: `aac`, `alac`, `mp3`, `flac`, `vorbis`, `opus`, `pcm_s16le`, `amr_nb`, …
  public var codec: String?
  /// Bits per second (the average for variable bit rates).
  public var bitrate: Int?
  /// True when cover art is embedded.
  public var artwork: Bool

  public init(
    duration: Double, sampleRate: Int, channels: Int, frames: Int64, format: String,
    subtype: String? = nil, tags: AudioTags = AudioTags(), codec: String? = nil, bitrate: Int? = nil,
    artwork: Bool = false
  ) {
    self.duration = duration
    self.sampleRate = sampleRate
    self.channels = channels
    self.frames = frames
    self.format = format
    self.subtype = subtype
    self.tags = tags
    self.codec = codec
    self.bitrate = bitrate
    self.artwork = artwork
  }

  /// One tag, e.g. `facts.artist`.
  public subscript(dynamicMember keyPath: KeyPath<AudioTags, String?>) -> String? {
    tags[keyPath: keyPath]
  }

  /// The year in `date` (its first four digits), when there is one.
  public var year: Int? {
    guard let date = tags.date else { return nil }
    let digits = Array(date.utf8)
    var index = 0
    while index + 4 <= digits.count {
      let slice = digits[index..<index + 4]
      if slice.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        return Int(String(decoding: slice, as: UTF8.self))
      }
      index += 1
    }
    return nil
  }

  /// The track number in `track` (`3` or `3/12`), when there is one.
  public var trackNumber: Int? { tags.trackNumber }
}

/// What a video file holds: picture size, codec and rate, its turn for display, its sound, and
/// when it was filmed.
public struct VideoFacts: Sendable, Equatable, Codable {
  public var duration: Double
  public var width: Int
  public var height: Int
  /// FFmpeg's video codec name: `h264`, `hevc`, `mpeg4`, `vp9`, …
  public var codec: String
  /// Pictures per second.
  public var frameRate: Double?
  /// Degrees to turn clockwise for display (0, 90, 180, 270).
  public var rotation: Int
  /// The sound track's codec, rate and channels; nil for a silent video.
  public var audioCodec: String?
  public var sampleRate: Int?
  public var channels: Int?
  /// Overall bits per second.
  public var bitrate: Int?
  /// When it was filmed (ISO-8601), from the container.
  public var taken: String?
  /// Apple's content identifier, shared with the still of a Live Photo.
  public var contentIdentifier: String?
  /// The container: `mp4`, `mov`, `3gp`, `matroska`, `webm`, `avi`, `asf`, `ogg`.
  public var format: String
  public var title: String?

  public init(
    duration: Double, width: Int, height: Int, codec: String, frameRate: Double? = nil, rotation: Int = 0,
    audioCodec: String? = nil, sampleRate: Int? = nil, channels: Int? = nil, bitrate: Int? = nil,
    taken: String? = nil, contentIdentifier: String? = nil, format: String, title: String? = nil
  ) {
    self.duration = duration
    self.width = width
    self.height = height
    self.codec = codec
    self.frameRate = frameRate
    self.rotation = rotation
    self.audioCodec = audioCodec
    self.sampleRate = sampleRate
    self.channels = channels
    self.bitrate = bitrate
    self.taken = taken
    self.contentIdentifier = contentIdentifier
    self.format = format
    self.title = title
  }
}

/// What reading a text file found.
public struct TextFacts: Sendable, Equatable, Codable {
  public var encoding: TextEncoding
  public var bom: Bool
  /// `lf`, `crlf`, `cr`, `mixed` or `none`.
  public var lineEndings: String
  public var lines: Int
  public var words: Int
  public var chars: Int
  /// The first line (trimmed, at most 200 characters).
  public var firstLine: String

  public init(
    encoding: TextEncoding, bom: Bool, lineEndings: String, lines: Int, words: Int, chars: Int,
    firstLine: String
  ) {
    self.encoding = encoding
    self.bom = bom
    self.lineEndings = lineEndings
    self.lines = lines
    self.words = words
    self.chars = chars
    self.firstLine = firstLine
  }
}

/// What a property list holds at its top level.
public struct PlistFacts: Sendable, Equatable, Codable {
  /// `xml` or `binary`.
  public var format: String
  /// `dictionary`, `array`, `string`, `integer`, `real`, `boolean`, `date`, `data`.
  public var root: String
  /// The top-level keys (dictionary roots only), in file order.
  public var keys: [String]

  public init(format: String, root: String, keys: [String]) {
    self.format = format
    self.root = root
    self.keys = keys
  }
}
