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

/// The identity of an application bundle found in a sandbox root.
public struct BundleInfo: Sendable, Equatable {
  public var identifier: String?
  public var name: String?
  public var version: String?
  /// The bundle folder, relative to the root (e.g. `Demo.app`).
  public var bundlePath: RawPath

  public init(identifier: String?, name: String?, version: String?, bundlePath: RawPath) {
    self.identifier = identifier
    self.name = name
    self.version = version
    self.bundlePath = bundlePath
  }
}

/// Where an entry of an iPhone backup comes from: its domain and name in the manifest.
public struct BackupFacts: Sendable, Equatable {
  /// The backup domain, e.g. `CameraRollDomain` or `AppDomain-com.example.notes`.
  public var domain: String
  /// The application's bundle identifier, for an app's domain.
  public var app: String?
  /// The name the file is stored under in the backup (a SHA-1 hex for modern backups).
  public var fileID: String
  /// The data-protection class, for files of encrypted backups.
  public var protectionClass: Int?
  /// The Unix mode the phone recorded, type bits included.
  public var mode: UInt32

  public init(domain: String, app: String?, fileID: String, protectionClass: Int?, mode: UInt32) {
    self.domain = domain
    self.app = app
    self.fileID = fileID
    self.protectionClass = protectionClass
    self.mode = mode
  }
}

/// What a backup root is: the device it came from and how it was written.
public struct BackupRootFacts: Sendable, Equatable {
  public var deviceName: String?
  /// The model identifier, e.g. `iPhone12,1`.
  public var productType: String?
  public var iosVersion: String?
  /// When the backup was made (ISO-8601).
  public var date: String?
  public var isEncrypted: Bool
  /// The manifest era: `manifest-db`, `mbdb`, `mdinfo` or `mdbackup`.
  public var format: String

  public init(
    deviceName: String?, productType: String?, iosVersion: String?, date: String?, isEncrypted: Bool,
    format: String
  ) {
    self.deviceName = deviceName
    self.productType = productType
    self.iosVersion = iosVersion
    self.date = date
    self.isEncrypted = isEncrypted
    self.format = format
  }
}

/// Everything the catalogue knows about one file.
public struct CatalogEntry: Sendable, Equatable {
  /// The absolute path.
  public var path: RawPath
  /// The root the file was found under (absolute), or nil for a live, uncatalogued look.
  public var root: RawPath?
  /// The sandbox area: `bundle`, `documents`, `preferences`, `caches`, `library`, `tmp`, `other`.
  public var area: String
  public var kind: FileKind
  public var mime: String
  public var detectedBy: DetectionMethod
  public var extensionMismatch: Bool
  public var size: Int64
  public var mtimeNanoseconds: Int64
  public var ctimeNanoseconds: Int64
  public var inode: UInt64
  public var device: UInt64
  /// Why extraction failed, when it did.
  public var error: String?
  public var image: ImageFacts?
  /// An image's EXIF facts (when, which camera, where, which way up).
  public var exif: EXIFFacts?
  public var audio: AudioFacts?
  public var video: VideoFacts?
  public var text: TextFacts?
  public var plist: PlistFacts?
  /// The other half of a Live Photo (the movie of a still, the still of a movie): a file in
  /// the same folder sharing Apple's content identifier. Set by the indexer after a scan.
  public var livePhoto: RawPath?
  /// For an entry of an iPhone backup, its domain and stored name.
  public var backup: BackupFacts?
  /// The version of the extractors that produced the facts.
  public var extractorVersion: Int
  /// The machine holding the file, in a catalogue shared by several (nil in a SQLite one).
  public var host: String? = nil

  public init(
    path: RawPath, root: RawPath?, area: String, kind: FileKind, mime: String,
    detectedBy: DetectionMethod, extensionMismatch: Bool, size: Int64, mtimeNanoseconds: Int64,
    ctimeNanoseconds: Int64 = 0, inode: UInt64 = 0, device: UInt64 = 0, error: String? = nil,
    image: ImageFacts? = nil, audio: AudioFacts? = nil, text: TextFacts? = nil,
    plist: PlistFacts? = nil, backup: BackupFacts? = nil, video: VideoFacts? = nil, exif: EXIFFacts? = nil,
    livePhoto: RawPath? = nil, extractorVersion: Int = MetadataExtractor.version
  ) {
    self.path = path
    self.root = root
    self.area = area
    self.kind = kind
    self.mime = mime
    self.detectedBy = detectedBy
    self.extensionMismatch = extensionMismatch
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
    self.ctimeNanoseconds = ctimeNanoseconds
    self.inode = inode
    self.device = device
    self.error = error
    self.image = image
    self.audio = audio
    self.text = text
    self.plist = plist
    self.backup = backup
    self.video = video
    self.exif = exif
    self.livePhoto = livePhoto
    self.extractorVersion = extractorVersion
  }

  /// Apple's content identifier of a still or a movie, which pairs a Live Photo's halves.
  public var contentIdentifier: String? { exif?.contentIdentifier ?? video?.contentIdentifier }

  /// The file's lower-case extension without the dot.
  public var fileExtension: String { path.lowercasedExtension }
}
