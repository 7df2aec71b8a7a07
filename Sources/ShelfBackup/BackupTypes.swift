import ShelfCore

/// Which era a backup folder is: the manifest format iTunes or Finder wrote.
public enum BackupFormat: String, Sendable {
  /// iOS 10 and later: `Manifest.db` (SQLite), files stored at `XX/fileID`.
  case manifestDB = "manifest-db"
  /// iOS 4 to 9: `Manifest.mbdb`, files stored flat by fileID.
  case mbdb
  /// iTunes 8.1 to 9: one `*.mdinfo` plist beside each `*.mddata`.
  case mdinfo
  /// iTunes 7 to 8: one `*.mdbackup` plist per file, holding its data.
  case mdbackup
}

/// Facts about a backup from its Info.plist, Manifest.plist and Status.plist, so that `stats`
/// and `roots` can say which device it came from and whether it is complete.
public struct BackupInfo: Sendable, Equatable {
  /// The name the owner gave the device, e.g. `Anna's iPhone`.
  public var deviceName: String?
  /// The model identifier, e.g. `iPhone15,2`.
  public var productType: String?
  /// The iOS version at backup time, e.g. `17.5`.
  public var iosVersion: String?
  /// When the backup was made, ISO-8601 (UTC).
  public var date: String?
  /// True when the backup is password-protected.
  public var isEncrypted: Bool
  /// False while iTunes or Finder is still writing the backup; nil when there is no Status.plist.
  public var isFinished: Bool?
  /// The bundle identifiers of the installed applications.
  public var apps: [String]
  /// The era of the backup's manifest.
  public var format: BackupFormat

  /// Facts as read from the backup's plists.
  public init(
    deviceName: String? = nil, productType: String? = nil, iosVersion: String? = nil, date: String? = nil,
    isEncrypted: Bool, isFinished: Bool? = nil, apps: [String] = [], format: BackupFormat
  ) {
    self.deviceName = deviceName
    self.productType = productType
    self.iosVersion = iosVersion
    self.date = date
    self.isEncrypted = isEncrypted
    self.isFinished = isFinished
    self.apps = apps
    self.format = format
  }
}

/// What a backup entry is on the phone.
public enum BackupEntryType: String, Sendable {
  case file, folder, symlink
}

/// One file, folder or link of a backup, by its real name on the phone rather than its hash.
public struct BackupEntry: Sendable, Equatable {
  /// The backup domain, e.g. `CameraRollDomain` or `AppDomain-com.example.notes`.
  public var domain: String
  /// The path inside the domain, e.g. `Media/DCIM/100APPLE/IMG_0001.HEIC` (raw bytes, never
  /// absolute and never containing `..`: the reader refuses such rows).
  public var relativePath: RawPath
  /// The SHA-1 hex name the file is stored under (or the mdinfo/mdbackup base name).
  public var fileID: String
  /// File, folder or symbolic link.
  public var type: BackupEntryType
  /// The size of the file's content in bytes (decrypted, without padding).
  public var size: Int64
  /// The Unix mode bits the phone recorded, type bits included.
  public var mode: UInt32
  /// The modification time, nanoseconds since 1970.
  public var modified: Int64
  /// The data-protection class of an encrypted backup's file (1 to 11), when recorded.
  public var protectionClass: Int?
  /// Where a symbolic link points, as recorded (never followed).
  public var linkTarget: RawPath?
  /// The application's bundle identifier for `AppDomain-…` and `AppDomainPlugin-…` domains.
  public var app: String?

  /// An entry as a manifest row describes it; `app` is derived from the domain.
  public init(
    domain: String, relativePath: RawPath, fileID: String, type: BackupEntryType, size: Int64, mode: UInt32,
    modified: Int64, protectionClass: Int? = nil, linkTarget: RawPath? = nil
  ) {
    self.domain = domain
    self.relativePath = relativePath
    self.fileID = fileID
    self.type = type
    self.size = size
    self.mode = mode
    self.modified = modified
    self.protectionClass = protectionClass
    self.linkTarget = linkTarget
    self.app = Self.app(ofDomain: domain)
  }

  /// The catalogued path: `BACKUP/DOMAIN/relativePath`, with the backup folder as given.
  public func cataloguePath(in backup: RawPath) -> RawPath {
    let base = backup.appending(domain)
    return relativePath.bytes.isEmpty ? base : base.appending(relativePath)
  }

  /// The bundle identifier an app domain names (`AppDomain-com.example.notes` gives
  /// `com.example.notes`), and for a shared app-group container the app its group is named
  /// after (`AppDomainGroup-group.net.whatsapp.WhatsApp.shared` gives `net.whatsapp.WhatsApp`,
  /// where WhatsApp keeps its media); nil for system domains.
  public static func app(ofDomain domain: String) -> String? {
    for prefix in ["AppDomain-", "AppDomainPlugin-"] where domain.hasPrefix(prefix) {
      let identifier = String(domain.dropFirst(prefix.count))
      return identifier.isEmpty ? nil : identifier
    }
    let group = "AppDomainGroup-group."
    guard domain.hasPrefix(group) else { return nil }
    var identifier = Substring(domain.dropFirst(group.count))
    if identifier.hasSuffix(".shared") { identifier = identifier.dropLast(".shared".count) }
    return identifier.isEmpty ? nil : String(identifier)
  }
}
