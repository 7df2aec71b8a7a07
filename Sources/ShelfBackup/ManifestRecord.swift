import ShelfCore

/// One manifest row as every era's reader produces it: the public entry plus what reading its
/// content needs (where it is stored and its wrapped key).
package struct ManifestRecord: Sendable {
  var entry: BackupEntry
  /// The file's wrapped key in an encrypted backup.
  var fileKey: WrappedFileKey?
}

/// The `MBFile` record of a Manifest.db row: an NSKeyedArchiver binary plist whose
/// `$top.root` object holds Size, Mode, LastModified, ProtectionClass, and references to
/// RelativePath, Target and EncryptionKey objects.
package struct ArchivedFileRecord {
  var size: Int64
  var mode: UInt32
  var lastModified: Int64
  var protectionClass: Int?
  var target: RawPath?
  var encryptionKey: [UInt8]?

  package init(_ bytes: [UInt8]) throws(BackupError.Reason) {
    let plist: PropertyList
    do {
      plist = try PropertyList.parse(bytes)
    } catch {
      throw .corruptManifest("file record is not a property list: \(error)")
    }
    guard case .array(let objects)? = plist.root["$objects"],
      case .uid(let rootIndex)? = plist.root["$top"]?["root"],
      rootIndex < objects.count
    else { throw .corruptManifest("file record is not a keyed archive") }
    let root = objects[Int(rootIndex)]
    guard case .dictionary = root else { throw .corruptManifest("file record's root is not an object") }
    func resolve(_ value: PlistValue?) -> PlistValue? {
      if case .uid(let index)? = value { return index < objects.count ? objects[Int(index)] : nil }
      return value
    }
    func integer(_ key: String) -> Int64? {
      if case .integer(let value)? = resolve(root[key]) { return value }
      return nil
    }
    size = max(integer("Size") ?? 0, 0)
    mode = UInt32(truncatingIfNeeded: integer("Mode") ?? 0)
    lastModified = integer("LastModified") ?? 0
    protectionClass = integer("ProtectionClass").map { Int($0) }
    if case .string(let target)? = resolve(root["Target"]) { self.target = RawPath(target) }
    switch resolve(root["EncryptionKey"]) {
    case .data(let key)?: encryptionKey = key
    case let object?:
      if case .data(let key)? = resolve(object["NS.data"]) { encryptionKey = key }
    case nil: break
    }
  }
}

/// Checks of manifest names, so that no row can lead a reader or an extraction outside the
/// backup or the output folder.
enum ManifestNames {
  /// True for a relative path without NUL, without a leading `/` and without `..` components.
  static func isSafeRelativePath(_ path: RawPath) -> Bool {
    let bytes = path.bytes
    if bytes.contains(0) || bytes.first == UInt8(ascii: "/") { return false }
    return !bytes.split(separator: UInt8(ascii: "/")).contains { $0.elementsEqual([0x2E, 0x2E]) }
  }

  /// True for a domain usable as one folder name.
  static func isSafeDomain(_ domain: String) -> Bool {
    !domain.isEmpty && domain != "." && domain != ".." && !domain.utf8.contains(UInt8(ascii: "/"))
      && !domain.utf8.contains(0)
  }

  /// True for a 40-digit lowercase or uppercase SHA-1 hex name.
  static func isFileID(_ name: String) -> Bool {
    name.utf8.count == 40 && name.utf8.allSatisfy { isHexDigit($0) }
  }

  static func isHexDigit(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
  }

  /// The entry type from Unix mode bits.
  static func type(ofMode mode: UInt32) -> BackupEntryType? {
    switch mode & 0o170000 {
    case 0o100000: .file
    case 0o040000: .folder
    case 0o120000: .symlink
    default: nil
    }
  }
}
