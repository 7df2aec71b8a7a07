import ShelfCore
public import ShelfFacts

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
