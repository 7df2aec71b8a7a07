import ShelfBackup

/// Manifest.db's `file` blobs: NSKeyedArchiver `MBFile` plists (`ArchivedFileRecord`).
enum ManifestRecordTarget: FuzzTarget {
  static let name = "manifest-record"
  static func run(_ input: [UInt8]) {
    _ = try? ArchivedFileRecord(input)
  }
}
