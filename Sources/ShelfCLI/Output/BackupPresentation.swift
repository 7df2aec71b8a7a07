import ShelfCatalog
import ShelfCore

/// How a backup root is shown in `index`, `roots` and `stats`: the device, its iOS version,
/// the backup's date, and whether it is encrypted.
enum BackupPresentation {
  /// `iPhone of Ann (iPhone12,1), iOS 17.4, 2024-05-01T12:00:00+02:00, encrypted, manifest-db`.
  static func describe(_ backup: BackupRootFacts) -> String {
    var parts: [String] = []
    let device = backup.deviceName ?? "unknown device"
    parts.append(device + (backup.productType.map { " (\($0))" } ?? ""))
    if let version = backup.iosVersion { parts.append("iOS \(version)") }
    if let date = date(backup) { parts.append(date) }
    parts.append(backup.isEncrypted ? "encrypted" : "not encrypted")
    parts.append(backup.format.rawValue)
    return parts.joined(separator: ", ")
  }

  /// The `backup` object of `roots --json` and `stats --json`.
  static func json(_ backup: BackupRootFacts) -> JSONValue {
    func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    return .object([
      ("device", string(backup.deviceName)), ("product_type", string(backup.productType)),
      ("ios_version", string(backup.iosVersion)), ("date", string(date(backup))),
      ("encrypted", .bool(backup.isEncrypted)), ("format", .string(backup.format.rawValue)),
    ])
  }

  /// When the backup was made, in RFC 3339 in the local zone (the catalogue keeps it in UTC).
  static func date(_ backup: BackupRootFacts) -> String? {
    backup.date.map { Timestamp.normalized($0, toLocal: true) }
  }
}
