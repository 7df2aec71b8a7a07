import ShelfCore

/// `Manifest.mbdb` (iOS 4 to 9): `mbdb\x05\x00`, then big-endian records: domain, path, link
/// target, data hash, encryption key (u16-length strings, 0xFFFF for none), mode (u16), inode
/// (u64), uid, gid, mtime, atime, ctime (u32), size (u64), protection class (u8), and a count
/// of name/value properties. The fileID is the SHA-1 of `domain-path`.
package enum MBDBManifest {
  /// The largest Manifest.mbdb read (a phone with a million files has one of about 200 MB).
  static let sizeLimit: Int64 = 1 << 30

  /// Every record; a record cut off by the end of the file ends the list with a problem. A
  /// file without the `mbdb\x05\x00` header is no manifest at all, and is thrown.
  package static func records(_ bytes: [UInt8], folder: RawPath, manifestPath: RawPath) throws(BackupError)
    -> (
      records: [ManifestRecord], problems: [BackupError]
    )
  {
    var records: [ManifestRecord] = []
    var problems: [BackupError] = []
    guard bytes.starts(with: Array("mbdb".utf8) + [5, 0]) else {
      throw BackupError(path: manifestPath, reason: .corruptManifest("Manifest.mbdb has no mbdb header"))
    }
    var reader = Reader(bytes: bytes, offset: 6)
    while reader.offset < bytes.count {
      guard let raw = reader.record() else {
        let reason = BackupError.Reason.corruptManifest(
          "Manifest.mbdb is truncated after \(records.count + problems.count) records")
        problems.append(BackupError(path: manifestPath, reason: reason))
        break
      }
      let domain = String(decoding: raw.domain, as: UTF8.self)
      let relativePath = RawPath(bytes: raw.path)
      let fileID = BackupCrypto.sha1Hex(raw.domain + [UInt8(ascii: "-")] + raw.path)
      guard let type = ManifestNames.type(ofMode: UInt32(raw.mode)) else {
        problems.append(
          BackupError(
            path: folder.appending(domain).appending(relativePath),
            reason: .corruptManifest("manifest record has unknown mode \(String(raw.mode, radix: 8))")))
        continue
      }
      guard ManifestNames.isSafeDomain(domain), ManifestNames.isSafeRelativePath(relativePath) else {
        problems.append(
          BackupError(path: folder, reason: .unsafePath(RawPath(domain).appending(relativePath))))
        continue
      }
      // A size of 2^63 or more is no file's: as a bit pattern it would be negative.
      guard type != .file || raw.size <= UInt64(Int64.max) else {
        problems.append(
          BackupError(
            path: folder.appending(domain).appending(relativePath),
            reason: .corruptManifest("manifest record has a bad size \(raw.size)")))
        continue
      }
      var entry = BackupEntry(
        domain: domain, relativePath: relativePath, fileID: fileID, type: type,
        size: type == .file ? Int64(raw.size) : 0, mode: UInt32(raw.mode),
        modified: Int64(raw.mtime) * 1_000_000_000,
        protectionClass: raw.protectionClass == 0 ? nil : Int(raw.protectionClass))
      if type == .symlink { entry.linkTarget = RawPath(bytes: raw.linkTarget ?? []) }
      var fileKey: WrappedFileKey?
      if type == .file, let key = raw.encryptionKey, !key.isEmpty {
        guard let parsed = WrappedFileKey(key) else {
          problems.append(
            BackupError(
              path: entry.cataloguePath(in: folder),
              reason: .corruptManifest("manifest record has a bad encryption key")))
          continue
        }
        fileKey = parsed
      }
      records.append(ManifestRecord(entry: entry, fileKey: fileKey))
    }
    return (records, problems)
  }

  struct RawRecord {
    var domain: [UInt8]
    var path: [UInt8]
    var linkTarget: [UInt8]?
    var encryptionKey: [UInt8]?
    var mode: UInt16
    var mtime: UInt32
    var size: UInt64
    var protectionClass: UInt8
  }

  /// Reads big-endian fields, failing (nil) instead of running past the end.
  struct Reader {
    let bytes: [UInt8]
    var offset: Int

    mutating func integer(_ size: Int) -> UInt64? {
      guard size <= bytes.count - offset else { return nil }
      var value: UInt64 = 0
      for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
      offset += size
      return value
    }

    /// A u16-length string; `.some(nil)` for the 0xFFFF "none" marker.
    mutating func string() -> [UInt8]?? {
      guard let length = integer(2) else { return nil }
      if length == 0xFFFF { return .some(nil) }
      guard Int(length) <= bytes.count - offset else { return nil }
      defer { offset += Int(length) }
      return .some(Array(bytes[offset..<offset + Int(length)]))
    }

    mutating func record() -> RawRecord? {
      guard let domain = string(), let path = string(), let linkTarget = string(), string() != nil,
        let encryptionKey = string(), let mode = integer(2), integer(8) != nil, integer(4) != nil,
        integer(4) != nil, let mtime = integer(4), integer(4) != nil, integer(4) != nil,
        let size = integer(8),
        let protectionClass = integer(1), let propertyCount = integer(1)
      else { return nil }
      for _ in 0..<propertyCount {
        guard string() != nil, string() != nil else { return nil }
      }
      return RawRecord(
        domain: domain ?? [], path: path ?? [], linkTarget: linkTarget, encryptionKey: encryptionKey,
        mode: UInt16(mode), mtime: UInt32(mtime), size: size, protectionClass: UInt8(protectionClass))
    }
  }
}
