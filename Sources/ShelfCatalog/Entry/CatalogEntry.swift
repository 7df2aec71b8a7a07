public import ShelfAudio
public import ShelfBackup
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
  /// The manifest era.
  public var format: BackupFormat

  public init(
    deviceName: String?, productType: String?, iosVersion: String?, date: String?, isEncrypted: Bool,
    format: BackupFormat
  ) {
    self.deviceName = deviceName
    self.productType = productType
    self.iosVersion = iosVersion
    self.date = date
    self.isEncrypted = isEncrypted
    self.format = format
  }
}

/// Everything the catalogue knows about one file: where it is (root, path, sandbox area, backup
/// identity, the file status it was read at) and its `FileFacts`, whose fields read and write
/// through (`entry.kind`, `entry.exif?.camera`), so that a new fact is added in one place.
@dynamicMemberLookup
public struct CatalogEntry: Sendable, Equatable {
  /// The absolute path.
  public var path: RawPath
  /// The root the file was found under (absolute), or nil for a live, uncatalogued look.
  public var root: RawPath?
  /// Where in a sandbox or a backup the file lies.
  public var area: CatalogArea
  public var size: Int64
  public var mtimeNanoseconds: Int64
  public var ctimeNanoseconds: Int64
  public var inode: UInt64
  public var device: UInt64
  /// What the file's content is.
  public var facts: FileFacts
  /// The other half of a Live Photo (the movie of a still, the still of a movie): a file in
  /// the same folder sharing Apple's content identifier. Set by the indexer after a scan.
  public var livePhoto: RawPath?
  /// For an entry of an iPhone backup, its domain and stored name.
  public var backup: BackupFacts?
  /// The version of the extractors that produced the facts.
  public var extractorVersion: Int
  /// The machine holding the file, in a catalogue shared by several (nil in a SQLite one).
  public var host: String? = nil
  /// The ReplayGain `shelf gain` measured for the file as it is (source `.measured`; kept in
  /// `replay_gains` while the file's device, inode, size and times are unchanged).
  public var measuredReplayGain: ReplayGain? = nil

  /// An entry of `facts` read from the file at `path` when it had `size` and the times and
  /// identity given (a backup's file has its manifest's size and time, and neither of the rest).
  public init(
    path: RawPath, root: RawPath?, area: CatalogArea, size: Int64, mtimeNanoseconds: Int64,
    ctimeNanoseconds: Int64 = 0, inode: UInt64 = 0, device: UInt64 = 0, facts: FileFacts,
    backup: BackupFacts? = nil, livePhoto: RawPath? = nil, extractorVersion: Int = MetadataExtractor.version
  ) {
    self.path = path
    self.root = root
    self.area = area
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
    self.ctimeNanoseconds = ctimeNanoseconds
    self.inode = inode
    self.device = device
    self.facts = facts
    self.backup = backup
    self.livePhoto = livePhoto
    self.extractorVersion = extractorVersion
  }

  /// An entry of `facts` read from the file at `path` whose status was `status`.
  public init(path: RawPath, root: RawPath?, area: CatalogArea, status: FileStatus, facts: FileFacts) {
    self.init(
      path: path, root: root, area: area, size: status.size, mtimeNanoseconds: status.mtimeNanoseconds,
      ctimeNanoseconds: status.ctimeNanoseconds, inode: status.inode, device: status.device, facts: facts)
  }

  /// The entry of a file whose content could not be read: its kind guessed from its
  /// extension, and why (`error`).
  public init(
    unreadable path: RawPath, root: RawPath?, area: CatalogArea, size: Int64, mtimeNanoseconds: Int64,
    ctimeNanoseconds: Int64 = 0, inode: UInt64 = 0, device: UInt64 = 0, error: FileFactsError,
    backup: BackupFacts? = nil
  ) {
    self.init(
      path: path, root: root, area: area, size: size, mtimeNanoseconds: mtimeNanoseconds,
      ctimeNanoseconds: ctimeNanoseconds, inode: inode, device: device,
      facts: FileFacts(unreadable: error, fileExtension: path.lowercasedExtension), backup: backup)
  }

  /// One of the facts, e.g. `entry.kind` or `entry.audio?.title`.
  public subscript<Value>(dynamicMember keyPath: WritableKeyPath<FileFacts, Value>) -> Value {
    get { facts[keyPath: keyPath] }
    set { facts[keyPath: keyPath] = newValue }
  }

  /// One of the facts that is computed from others, e.g. `entry.contentIdentifier`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<FileFacts, Value>) -> Value {
    facts[keyPath: keyPath]
  }

  /// The file's ReplayGain: its tags' (`audio.tags.replayGain`) when it has some, else the one
  /// `shelf gain` measured.
  public var replayGain: ReplayGain? { facts.audio?.tags.replayGain ?? measuredReplayGain }

  /// The file's lower-case extension without the dot.
  public var fileExtension: String { path.lowercasedExtension }
}
