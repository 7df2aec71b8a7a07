import ShelfBackup
import ShelfCore

/// The mdinfo and mdbackup plists of iTunes 7–8 backups (`LegacyManifest`): the file read, the
/// name and encryption flag, the nested `Metadata` plist, and an mdbackup's `Data`.
enum LegacyManifestTarget: FuzzTarget {
  static let name = "legacy-manifest"
  static func run(_ input: [UInt8]) {
    // The backup reader refuses symbolic links, so the input is a named file here.
    let path = FuzzInput.namedFile(input)
    guard let plist = try? LegacyManifest.readPlist(path, limit: 1 << 20) else { return }
    _ = LegacyManifest.isEncrypted(plist)
    _ = LegacyManifest.name(from: plist)
    if case .data(let nested)? = plist["Metadata"], let parsed = try? PropertyList.parse(nested) {
      _ = LegacyManifest.name(from: parsed.root)
    }
    _ = try? LegacyManifest.mdbackupData(path)
  }
}
