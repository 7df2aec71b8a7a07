import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An iPhone backup folder of any era, opened read-only: its facts, its entries by real name,
/// and each file's content, decrypted when the backup is encrypted. Nothing in the backup
/// folder is ever written (Manifest.db is opened immutable, or decrypted in memory).
public final class Backup: Sendable {
  /// The backup folder as given.
  public let folder: RawPath
  /// The device, iOS version, date and state the backup records.
  public let info: BackupInfo
  private let source: Source
  /// The unwrapped protection-class keys of an encrypted backup (wiped when released).
  private let classKeys: [Int64: SecretKey]
  /// The auth key of an encrypted mdinfo-era backup (iPhone OS 3), which has no keybag.
  private let legacyAuthKey: SecretKey?
  /// Why Manifest.db could only be read in part (it is truncated), reported with the entries.
  private let salvageProblem: BackupError?
  /// Manifest.db's records by fileID, kept from the last listing: reading an entry then needs
  /// no query (and no property-list parse) of its own.
  private let listedRecords = Mutex<[String: ManifestRecord]>([:])

  private enum Source: Sendable {
    case database(LockedDatabase)
    case mbdb([ManifestRecord], [BackupError], [String: Int])
    case mdinfo
    case mdbackup
  }

  /// The size of the chunks read from stored files.
  static let chunkSize = 1 << 20

  /// True when `folder` holds a backup of any era: Info.plist and a manifest (Manifest.db,
  /// Manifest.mbdb, or `*.mdinfo` / `*.mdbackup` files).
  public static func isBackup(_ folder: RawPath) -> Bool { format(of: folder) != nil }

  /// What the names of a folder's files say about it: a backup (Info.plist and a manifest of
  /// any era), a folder that only looks like one (a stray Manifest.db, an unfinished backup
  /// with Info.plist and Status.plist but no manifest), or neither. The one definition both
  /// `isBackup` and a tree walk (which has the names at hand, and must tell a backup without
  /// reading its hundreds of subfolders) use. An app bundle's Info.plist alone is neither.
  public static func recognise(fileNames: some Sequence<[UInt8]>) -> BackupRecognition {
    var recogniser = BackupNameRecogniser()
    for name in fileNames { name.withUnsafeBytes { recogniser.note($0) } }
    return recogniser.recognition
  }

  /// The era of the backup in `folder` (see `recognise`), nil when it holds none. Only regular
  /// files count: a folder or link named Manifest.db makes no backup.
  private static func format(of folder: RawPath) -> BackupFormat? {
    guard let directory = folder.withCString({ opendir($0) }) else { return nil }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while let item = readdir(directory) {
      let name = Directories.entryName(item)
      let type = item.pointee.d_type
      if type == UInt8(DT_REG)
        || (type == UInt8(DT_UNKNOWN) && isRegular(folder.appending(RawPath(bytes: name))))
      {
        names.append(name)
      }
    }
    guard case .backup(let format) = recognise(fileNames: names) else { return nil }
    return format
  }

  private static func isRegular(_ path: RawPath) -> Bool {
    (try? FileStatus.lstat(path))?.type == .regular
  }

  /// Opens the backup. An encrypted backup needs `password`: the keybag is unlocked here, and a
  /// wrong password is reported (`.wrongPassword`) before any stored file is read.
  public init(folder: RawPath, password: BackupPassword?) throws(BackupError) {
    self.folder = folder
    guard let format = Self.format(of: folder) else {
      throw BackupError(path: folder, reason: .notABackup)
    }
    let infoPlist = try Self.plist(folder.appending("Info.plist"), required: true) ?? .null
    let manifestPlist = try Self.plist(folder.appending("Manifest.plist"), required: false) ?? .null
    let statusPlist = try Self.plist(folder.appending("Status.plist"), required: false)
    let isEncrypted =
      (format == .manifestDB || format == .mbdb || format == .mdinfo)
      && manifestPlist["IsEncrypted"] == .boolean(true)
    info = Self.info(
      format: format, info: infoPlist, manifest: manifestPlist, status: statusPlist, isEncrypted: isEncrypted)

    var classKeys: [Int64: SecretKey] = [:]
    var legacyAuthKey: SecretKey?
    var salvageProblem: BackupError?
    if isEncrypted, format == .mdinfo {
      guard let password else { throw BackupError(path: folder, reason: .passwordRequired) }
      guard case .data(let authData)? = manifestPlist["AuthData"] else {
        throw BackupError(path: folder, reason: .corruptKeybag("Manifest.plist has no AuthData"))
      }
      do throws(BackupError.Reason) {
        legacyAuthKey = try LegacyEncryption.authKey(authData: authData, password: password)
      } catch {
        throw BackupError(path: folder, reason: error)
      }
    } else if isEncrypted {
      guard let password else { throw BackupError(path: folder, reason: .passwordRequired) }
      guard case .data(let keybagBytes)? = manifestPlist["BackupKeyBag"] else {
        throw BackupError(path: folder, reason: .corruptKeybag("Manifest.plist has no BackupKeyBag"))
      }
      do throws(BackupError.Reason) {
        classKeys = try Keybag(keybagBytes).unlock(with: password)
      } catch {
        throw BackupError(path: folder, reason: error)
      }
    }
    self.classKeys = classKeys
    self.legacyAuthKey = legacyAuthKey

    switch format {
    case .manifestDB:
      let path = folder.appending("Manifest.db")
      if isEncrypted, case .data(let manifestKey)? = manifestPlist["ManifestKey"] {
        guard let wrapped = WrappedFileKey(manifestKey) else {
          throw BackupError(path: folder, reason: .corruptKeybag("ManifestKey is not a wrapped key"))
        }
        let bytes = try Self.decrypt(path: path, key: wrapped, classKeys: classKeys, expectedSize: nil)
        source = .database(LockedDatabase(try ManifestDatabase(bytes: bytes, path: path)))
      } else {
        do {
          source = .database(LockedDatabase(try ManifestDatabase(file: path)))
        } catch {
          // A truncated Manifest.db: read what is left of it, and say it was cut short.
          guard let salvaged = ManifestDatabase(salvaging: path) else { throw error }
          source = .database(LockedDatabase(salvaged))
          salvageProblem = error
        }
      }
    case .mbdb:
      let path = folder.appending("Manifest.mbdb")
      let bytes: [UInt8]
      do {
        bytes = try RegularFile(path: path, followLinks: false).readAll(limit: MBDBManifest.sizeLimit)
      } catch {
        throw BackupError(path: path, reason: .io(error.reason))
      }
      let (records, problems) = try MBDBManifest.records(bytes, folder: folder, manifestPath: path)
      var index: [String: Int] = [:]
      for (position, record) in records.enumerated() { index[record.entry.fileID] = position }
      source = .mbdb(records, problems, index)
    case .mdinfo: source = .mdinfo
    case .mdbackup: source = .mdbackup
    }
    self.salvageProblem = salvageProblem
  }

  /// True when the backup was made with a password (its files are decrypted on reading).
  public var isEncrypted: Bool { info.isEncrypted }

  /// Every entry (files, folders, links). Problems with single rows (an unsafe path, a damaged
  /// record, a manifest that breaks off) are returned beside the entries rather than thrown, so
  /// the rest of the backup stays readable; an unfinished backup is the first problem.
  public func entries() throws -> (entries: [BackupEntry], problems: [BackupError]) {
    var (records, problems) = allRecords()
    // One line per problem: the scan's own "breaks off" problem, else why the file was salvaged.
    if let salvageProblem, !problems.contains(where: { $0.path == salvageProblem.path }) {
      problems.insert(salvageProblem, at: 0)
    }
    if info.isFinished == false { problems.insert(BackupError(path: folder, reason: .unfinished), at: 0) }
    let entries = records.map(\.entry)
    records.removeAll()
    return (entries, problems)
  }

  private func allRecords() -> (records: [ManifestRecord], problems: [BackupError]) {
    switch source {
    case .database(let database):
      let listed = database.mutex.withLock { $0.records(folder: folder) }
      var byID: [String: ManifestRecord] = [:]
      byID.reserveCapacity(listed.records.count)
      for record in listed.records { byID[record.entry.fileID] = record }
      listedRecords.withLock { $0 = byID }
      return listed
    case .mbdb(let records, let problems, _): return (records, problems)
    case .mdinfo: return LegacyManifest.mdinfoRecords(folder: folder, authKey: legacyAuthKey)
    case .mdbackup: return LegacyManifest.mdbackupRecords(folder: folder)
    }
  }

  /// The manifest's own record of an entry's fileID: its size and key come from the backup,
  /// not from the caller.
  private func record(of entry: BackupEntry) throws(BackupError) -> ManifestRecord {
    // The path names the entry in errors only: made when one is thrown, not for every file.
    var path: RawPath { entry.cataloguePath(in: folder) }
    switch source {
    case .database(let database):
      let fileID = Self.lowercased(entry.fileID)
      // The table is taken under the lock (a reference) and searched outside it: the workers of
      // an extraction each look up every file they copy.
      if let listed = listedRecords.withLock({ $0 })[fileID] { return listed }
      let found = try database.mutex.withLock { (database) throws(BackupError) -> ManifestRecord? in
        try database.record(fileID: fileID, folder: folder)
      }
      guard let found else {
        throw BackupError(path: path, reason: .corruptManifest("not in the backup's manifest"))
      }
      return found
    case .mbdb(let records, _, let index):
      guard let position = index[Self.lowercased(entry.fileID)] else {
        throw BackupError(path: path, reason: .corruptManifest("not in the backup's manifest"))
      }
      return records[position]
    case .mdinfo, .mdbackup:
      guard !entry.fileID.utf8.contains(UInt8(ascii: "/")), !entry.fileID.isEmpty, entry.fileID != "..",
        entry.fileID != "."
      else { throw BackupError(path: path, reason: .corruptManifest("bad file name \(entry.fileID)")) }
      return ManifestRecord(entry: entry, fileKey: nil)
    }
  }

  /// The decrypted content of a file entry, in memory (the caller bounds the size).
  public func contents(of entry: BackupEntry) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(max(0, min(entry.size, 1 << 30))))
    try read(entry) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// Where an entry's content is and how it is stored.
  fileprivate enum StoredContent {
    /// An empty file with no stored copy.
    case empty
    /// The stored file holds the content as it is (checked against the manifest's size).
    case plain(RegularFile)
    /// The stored file is encrypted with its own wrapped key (iOS 4 and later).
    case encrypted(RegularFile, WrappedFileKey, expectedSize: Int64)
    /// An iPhone OS 3 mddata blob, encrypted with the key in its header.
    case blob(RawPath, authKey: SecretKey)
    /// An iTunes 7–8 mdbackup plist, content inside.
    case mdbackup(RawPath)
  }

  /// A fileID in lower case, as the manifests' records are keyed; the listing's own entries
  /// are lower case already and need no new string.
  private static func lowercased(_ fileID: String) -> String {
    fileID.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? fileID.lowercased() : fileID
  }

  /// Finds an entry's stored content from the manifest's own record of it.
  private func storedContent(of entry: BackupEntry) throws -> StoredContent {
    var path: RawPath { entry.cataloguePath(in: folder) }
    guard entry.type == .file else { throw BackupError(path: path, reason: .notAFile(entry.type)) }
    let record = try record(of: entry)
    guard record.entry.type == .file else {
      throw BackupError(path: path, reason: .notAFile(record.entry.type))
    }
    let expected = record.entry.size
    let stored: RawPath
    switch info.format {
    case .manifestDB:
      // FOLDER/ab/abcdef…, made in one buffer.
      let fileID = record.entry.fileID.utf8
      var bytes = folder.bytes
      bytes.reserveCapacity(bytes.count + fileID.count + 4)
      if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
      bytes += fileID.prefix(2)
      bytes.append(UInt8(ascii: "/"))
      bytes += fileID
      stored = RawPath(bytes: bytes)
    case .mbdb: stored = folder.appending(record.entry.fileID)
    case .mdinfo:
      stored = folder.appending(record.entry.fileID + ".mddata")
      if let legacyAuthKey, try LegacyManifest.isEncrypted(folder: folder, fileID: record.entry.fileID) {
        return .blob(stored, authKey: legacyAuthKey)
      }
    case .mdbackup: return .mdbackup(folder.appending(record.entry.fileID + ".mdbackup"))
    }
    let file: RegularFile
    do {
      file = try RegularFile(path: stored, followLinks: false)
    } catch {
      if error.isNoSuchFile {
        // An empty file of a manifest era may have no stored copy at all.
        if expected == 0 && record.fileKey == nil && info.format != .mdinfo { return .empty }
        throw BackupError(path: path, reason: .missingStoredFile(name: stored.lastComponent.escaped))
      }
      throw BackupError(path: path, reason: .io("\(stored.escaped): \(error.reason)"))
    }
    if let fileKey = record.fileKey, isEncrypted { return .encrypted(file, fileKey, expectedSize: expected) }
    if info.format != .mdinfo && file.status.size != expected {
      throw BackupError(path: path, reason: .sizeMismatch(expected: expected, actual: file.status.size))
    }
    return .plain(file)
  }

  /// Finds a file entry's content through the manifest's own record of it and opens its
  /// stored file, once: a reader that needs the size first, then the bytes (`shelf extract`),
  /// opens and looks up nothing twice. Throws as `read(_:into:)` does.
  public func open(_ entry: BackupEntry) throws -> BackupContent {
    BackupContent(backup: self, entry: entry, stored: try storedContent(of: entry))
  }

  /// The stored file of an entry whose content is stored as it is (a plain backup of the
  /// manifest eras or iTunes 8.1–9), opened for reading in place and checked against the
  /// manifest's size, so readers need no copy of it; nil when the content must be decrypted or
  /// unpacked first (read it with `read(_:into:)`). Throws as `read(_:into:)` does.
  public func plainStoredFile(of entry: BackupEntry) throws -> RegularFile? {
    try open(entry).plainFile
  }

  /// Streams the decrypted content of a file entry to `sink`, a chunk at a time. The size is
  /// checked against the manifest (before reading for plain files, at the end for encrypted
  /// ones, whose padding is checked too): on a throw, what the sink got must be discarded.
  public func read(_ entry: BackupEntry, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    try open(entry).read(into: sink)
  }

  /// Streams stored content to `sink` (see `read(_:into:)`); `path` names it in errors.
  fileprivate func read(
    _ stored: StoredContent, reportAs path: RawPath, into sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    switch stored {
    case .empty: return
    case .blob(let stored, let authKey):
      try Self.decryptBlob(stored, authKey: authKey, reportAs: path, into: sink)
    case .mdbackup(let stored):
      let data: [UInt8]
      do {
        data = try LegacyManifest.mdbackupData(stored)
      } catch {
        throw BackupError(path: path, reason: error.reason)
      }
      try data.withUnsafeBytes { try sink($0) }
    case .encrypted(let file, let fileKey, let expected):
      try Self.decrypt(
        file, key: fileKey, classKeys: classKeys, expectedSize: expected, reportAs: path, into: sink)
    case .plain(let file):
      var offset: Int64 = 0
      while offset < file.status.size {
        let chunk: [UInt8]
        do {
          chunk = try file.read(count: Int(min(Int64(Self.chunkSize), file.status.size - offset)), at: offset)
        } catch {
          throw BackupError(path: path, reason: .io(error.reason))
        }
        if chunk.isEmpty { break }
        try chunk.withUnsafeBytes { try sink($0) }
        offset += Int64(chunk.count)
      }
    }
  }

  // MARK: Decryption

  /// Decrypts a whole stored file into memory (the encrypted Manifest.db).
  private static func decrypt(
    path: RawPath, key: WrappedFileKey, classKeys: [Int64: SecretKey], expectedSize: Int64?
  ) throws(BackupError) -> [UInt8] {
    let file: RegularFile
    do {
      file = try RegularFile(path: path, followLinks: false)
    } catch {
      throw BackupError(path: path, reason: .io(error.reason))
    }
    var bytes: [UInt8] = []
    do {
      try decrypt(file, key: key, classKeys: classKeys, expectedSize: expectedSize, reportAs: path) {
        bytes.append(contentsOf: $0)
      }
    } catch let error as BackupError {
      throw error
    } catch {
      throw BackupError(path: path, reason: .io(String(describing: error)))
    }
    return bytes
  }

  /// Decrypts an encrypted mddata (iPhone OS 3) chunk by chunk with the key in its header.
  private static func decryptBlob(
    _ stored: RawPath, authKey: SecretKey, reportAs path: RawPath,
    into sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let file: RegularFile
    let header: [UInt8]
    do {
      file = try RegularFile(path: stored, followLinks: false)
      header = try file.read(count: LegacyEncryption.headerSize, at: 0)
    } catch {
      if error.isNoSuchFile {
        throw BackupError(path: path, reason: .missingStoredFile(name: stored.lastComponent.escaped))
      }
      throw BackupError(path: path, reason: .io("\(stored.escaped): \(error.reason)"))
    }
    let blobKey: LegacyEncryption.BlobKey
    do throws(BackupError.Reason) {
      blobKey = try LegacyEncryption.BlobKey(header: header, authKey: authKey)
    } catch {
      throw BackupError(path: path, reason: error)
    }
    try decryptContent(
      file, key: blobKey.key, iv: blobKey.iv, from: Int64(LegacyEncryption.headerSize), expectedSize: nil,
      reportAs: path, into: sink)
  }

  /// Unwraps the file's key with its class key and decrypts the stored file chunk by chunk.
  private static func decrypt(
    _ file: RegularFile, key: WrappedFileKey, classKeys: [Int64: SecretKey], expectedSize: Int64?,
    reportAs path: RawPath, into sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    guard let classKey = classKeys[key.protectionClass] else {
      throw BackupError(
        path: path, reason: .badCiphertext("no key for protection class \(key.protectionClass) in the keybag")
      )
    }
    guard let fileKey = BackupCrypto.unwrap(key.wrapped, with: classKey) else {
      throw BackupError(path: path, reason: .badCiphertext("the file's key does not unwrap (damaged key)"))
    }
    try decryptContent(
      file, key: fileKey, iv: [UInt8](repeating: 0, count: 16), from: 0, expectedSize: expectedSize,
      reportAs: path, into: sink)
  }

  /// Decrypts the stored file from byte `start` on, chunk by chunk, checking its length, its
  /// padding and (when known) its size.
  private static func decryptContent(
    _ file: RegularFile, key: SecretKey, iv: [UInt8], from start: Int64, expectedSize: Int64?,
    reportAs path: RawPath, into sink: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let size = file.status.size - start
    guard size > 0, size % 16 == 0 else {
      throw BackupError(
        path: path,
        reason: .badCiphertext("encrypted content is \(size) bytes, not a positive multiple of 16"))
    }
    if let expectedSize, size != (expectedSize / 16 + 1) * 16 {
      throw BackupError(
        path: path,
        reason: .badCiphertext("encrypted content is \(size) bytes, wrong for the manifest's \(expectedSize)")
      )
    }
    guard let decryptor = CBCDecryptor(key: key, iv: iv) else {
      throw BackupError(path: path, reason: .badCiphertext("OpenSSL refused the file's key"))
    }
    var plain: [UInt8] = []
    defer { SecretBytes.wipe(&plain) }
    var offset: Int64 = 0
    var total: Int64 = 0
    while offset < size {
      let chunk: [UInt8]
      do {
        chunk = try file.read(count: Int(min(Int64(chunkSize), size - offset)), at: start + offset)
      } catch {
        throw BackupError(path: path, reason: .io(error.reason))
      }
      if chunk.isEmpty { break }
      offset += Int64(chunk.count)
      guard var produced = chunk.withUnsafeBytes({ decryptor.update($0, into: &plain) }) else {
        throw BackupError(path: path, reason: .badCiphertext("decryption failed"))
      }
      if offset == size {
        // The last block, its padding checked and removed, joins the last chunk: a file that
        // fits in one chunk reaches the sink in one piece, after every check.
        guard let last = decryptor.finish(into: &plain, at: produced) else {
          throw BackupError(
            path: path, reason: .badCiphertext("bad padding after decryption (damaged file or key)"))
        }
        produced += last
        if let expectedSize, total + Int64(produced) != expectedSize {
          throw BackupError(
            path: path, reason: .sizeMismatch(expected: expectedSize, actual: total + Int64(produced)))
        }
      }
      total += Int64(produced)
      try plain.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0.prefix(produced))) }
    }
    guard offset == size else {
      throw BackupError(path: path, reason: .io("stored file shrank while being read"))
    }
  }

  // MARK: Property lists

  /// Parses one of the backup's own plists; nil when it is absent and not required.
  private static func plist(_ path: RawPath, required: Bool) throws(BackupError) -> PlistValue? {
    if !required && (try? FileStatus.lstat(path)) == nil { return nil }
    do {
      return try LegacyManifest.readPlist(path, limit: PropertyList.sizeLimit)
    } catch {
      throw BackupError(path: path, reason: .badPropertyList(error.explanation))
    }
  }

  private static func info(
    format: BackupFormat, info: PlistValue, manifest: PlistValue, status: PlistValue?, isEncrypted: Bool
  ) -> BackupInfo {
    let lockdown = manifest["Lockdown"]
    var apps: [String] = []
    if case .array(let installed)? = info["Installed Applications"] {
      apps = installed.compactMap(\.stringValue)
    }
    if case .dictionary(let pairs)? = manifest["Applications"] {
      for (identifier, _) in pairs where !apps.contains(identifier) { apps.append(identifier) }
    }
    var finished: Bool?
    if let status {
      finished = status["SnapshotState"]?.stringValue.map { $0 == "finished" } ?? true
    }
    return BackupInfo(
      deviceName: info["Device Name"]?.stringValue ?? lockdown?["DeviceName"]?.stringValue,
      productType: info["Product Type"]?.stringValue ?? lockdown?["ProductType"]?.stringValue,
      iosVersion: info["Product Version"]?.stringValue ?? lockdown?["ProductVersion"]?.stringValue,
      date: isoDate(status?["Date"]) ?? isoDate(info["Last Backup Date"]) ?? isoDate(manifest["Date"]),
      isEncrypted: isEncrypted, isFinished: finished, apps: apps, format: format)
  }

  /// A plist date as ISO-8601 UTC (`2024-05-01T10:00:00Z`).
  static func isoDate(_ value: PlistValue?) -> String? {
    switch value {
    case .dateText(let text)?: return text
    case .date(let seconds)?:
      var time = time_t(seconds.rounded(.down) + 978_307_200)
      var parts = tm()
      guard gmtime_r(&time, &parts) != nil else { return nil }
      func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
      return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    default: return nil
    }
  }
}

/// A file entry's content, found in the backup's manifest and opened once (`Backup.open(_:)`):
/// its size before reading, the stored file itself when it holds the content as it is, and its
/// bytes, decrypted when the backup is encrypted.
public struct BackupContent {
  fileprivate let backup: Backup
  fileprivate let entry: BackupEntry
  fileprivate let stored: Backup.StoredContent

  /// The entry's catalogued path (what errors name), made only when needed.
  private var path: RawPath { entry.cataloguePath(in: backup.folder) }

  /// The stored file when it holds the content as it is (a plain backup), checked against the
  /// manifest's size: read it in place, or copy it inside the kernel.
  public var plainFile: RegularFile? {
    if case .plain(let file) = stored { return file }
    return nil
  }

  /// The content's size when the manifest or the stored file gives it before reading (plain
  /// and iOS 4-and-later encrypted files); nil for the iPhone OS 3 and iTunes 7–8 formats.
  public var size: Int64? {
    switch stored {
    case .empty: 0
    case .plain(let file): file.status.size
    case .encrypted(_, _, let expectedSize): expectedSize
    case .blob, .mdbackup: nil
    }
  }

  /// The status of the file the content is stored in (nil for an empty entry with none): what
  /// tells a changed entry from an unchanged one without reading it, as content hashes are kept.
  public var storedStatus: FileStatus? {
    switch stored {
    case .empty: nil
    case .plain(let file), .encrypted(let file, _, _): file.status
    case .blob(let path, _), .mdbackup(let path): try? FileStatus.lstat(path)
    }
  }

  /// Streams the content to `sink`, as `Backup.read(_:into:)` does.
  public func read(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    try backup.read(stored, reportAs: path, into: sink)
  }
}

/// The Manifest.db connection behind a lock, so that one open backup can serve several
/// threads (the connection itself is used by one at a time).
private final class LockedDatabase: Sendable {
  let mutex: Mutex<ManifestDatabase>

  init(_ database: sending ManifestDatabase) { mutex = Mutex(database) }
}

/// `Backup.recognise(fileNames:)` one name at a time, for a walk that has the names where
/// `getdents64` left them and copies none of them.
public struct BackupNameRecogniser {
  private var info = false
  private var manifest: BackupFormat?
  private var legacy: BackupFormat?
  private var companion = false

  public init() {}

  /// Notes the name of one of the folder's regular files.
  public mutating func note(_ name: UnsafeRawBufferPointer) {
    // Called for every file a walk meets: most names end at the first byte compared.
    if name.elementsEqual(Marker.info) {
      info = true
    } else if name.elementsEqual(Marker.manifestDB) {
      manifest = .manifestDB
    } else if name.elementsEqual(Marker.manifestMBDB) {
      if manifest == nil { manifest = .mbdb }
    } else if name.elementsEqual(Marker.manifestPlist) || name.elementsEqual(Marker.statusPlist) {
      companion = true
    } else if legacy != .mdinfo && name.count > 7 && name.suffix(7).elementsEqual(Marker.mdinfo) {
      legacy = .mdinfo
    } else if legacy == nil && name.count > 9 && name.suffix(9).elementsEqual(Marker.mdbackup) {
      legacy = .mdbackup
    }
  }

  /// What the names noted so far say.
  public var recognition: BackupRecognition {
    if info, let format = manifest ?? legacy { return .backup(format) }
    if let manifest {
      let name = manifest == .manifestDB ? "Manifest.db" : "Manifest.mbdb"
      return .lookalike("holds \(name) but no Info.plist")
    }
    if info && companion { return .lookalike("holds Info.plist but no manifest (an unfinished backup?)") }
    return .none
  }

  /// The names looked for, made once.
  private enum Marker {
    static let info = Array("Info.plist".utf8)
    static let manifestDB = Array("Manifest.db".utf8)
    static let manifestMBDB = Array("Manifest.mbdb".utf8)
    static let manifestPlist = Array("Manifest.plist".utf8)
    static let statusPlist = Array("Status.plist".utf8)
    static let mdinfo = Array(".mdinfo".utf8)
    static let mdbackup = Array(".mdbackup".utf8)
  }
}

/// What a folder's file names say about it (see `Backup.recognise(fileNames:)`).
public enum BackupRecognition: Sendable, Equatable {
  /// An iPhone backup of this era.
  case backup(BackupFormat)
  /// Backup files without what makes a backup: the reason, to warn with.
  case lookalike(String)
  case none
}
