import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The per-file manifests of iTunes 7 to 9, which have no central manifest: `ID.mdinfo` (a
/// plist whose `Metadata` is a nested plist with `Domain` and `Path`) beside `ID.mddata` (the
/// content), and before that `ID.mdbackup` (one plist with `Domain`, `Path` and the `Data`).
/// An mdinfo with `IsEncrypted` (iTunes 8.2 to 9) has its Metadata and its mddata encrypted as
/// `LegacyEncryption` describes.
package enum LegacyManifest {
  /// The largest mdinfo plist read.
  static let mdinfoLimit: Int64 = 1 << 20
  /// The largest mdbackup plist read (its data is held in memory to be parsed).
  static let mdbackupLimit: Int64 = 1 << 30

  /// The base names of the folder's files ending in `.suffix`, sorted.
  static func names(in folder: RawPath, suffix: String) -> [String] {
    guard let directory = folder.withCString({ opendir($0) }) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    let ending = Array(("." + suffix).utf8)
    while let item = readdir(directory) {
      let name = Directories.entryName(item)
      guard name.count > ending.count, name.suffix(ending.count).elementsEqual(ending) else { continue }
      let base = Array(name.dropLast(ending.count))
      guard !base.contains(UInt8(ascii: "/")), let text = String(validating: base, as: UTF8.self) else {
        continue
      }
      names.append(text)
    }
    return names.sorted()
  }

  /// Domain and path from a plist dictionary (iTunes 7 wrote no domain: its paths are in the
  /// home folder).
  package static func name(from plist: PlistValue) -> (domain: String, path: RawPath)? {
    guard let path = plist["Path"]?.stringValue else { return nil }
    return (plist["Domain"]?.stringValue ?? "HomeDomain", RawPath(path))
  }

  /// True when an mdinfo plist says its file is encrypted.
  package static func isEncrypted(_ plist: PlistValue) -> Bool {
    switch plist["IsEncrypted"] {
    case .boolean(let flag)?: flag
    case .integer(let value)?: value != 0
    default: false
    }
  }

  /// True when the file's mdinfo says it is encrypted.
  static func isEncrypted(folder: RawPath, fileID: String) throws(BackupError) -> Bool {
    isEncrypted(try readPlist(folder.appending(fileID + ".mdinfo"), limit: mdinfoLimit))
  }

  /// The records of an mdinfo-era backup; `authKey` decrypts the encrypted ones (their size is
  /// read from the last block of their mddata).
  static func mdinfoRecords(folder: RawPath, authKey: SecretKey?) -> (
    records: [ManifestRecord], problems: [BackupError]
  ) {
    var records: [ManifestRecord] = []
    var problems: [BackupError] = []
    for fileID in names(in: folder, suffix: "mdinfo") {
      let infoPath = folder.appending(fileID + ".mdinfo")
      do throws(BackupError) {
        let plist = try readPlist(infoPath, limit: mdinfoLimit)
        let encrypted = isEncrypted(plist)
        if encrypted && authKey == nil {
          throw BackupError(
            path: infoPath, reason: .corruptManifest("encrypted mdinfo, but Manifest.plist has no AuthData"))
        }
        var metadata = plist
        if case .data(var nested)? = plist["Metadata"] {
          if encrypted, let authKey {
            do throws(BackupError.Reason) {
              nested = try LegacyEncryption.decrypt(blob: nested, authKey: authKey)
            } catch {
              throw BackupError(path: infoPath, reason: error)
            }
          }
          guard let parsed = try? PropertyList.parse(nested) else {
            throw BackupError(
              path: infoPath, reason: .corruptManifest("mdinfo Metadata is not a property list"))
          }
          metadata = parsed.root
        }
        guard let name = name(from: metadata) else {
          throw BackupError(path: infoPath, reason: .corruptManifest("mdinfo has no Path"))
        }
        let dataPath = folder.appending(fileID + ".mddata")
        let dataStatus = try? FileStatus.lstat(dataPath)
        var size = dataStatus?.size ?? 0
        if encrypted, let authKey, dataStatus != nil {
          do {
            size = try LegacyEncryption.plainSize(
              of: try RegularFile(path: dataPath, followLinks: false), authKey: authKey)
          } catch let reason as BackupError.Reason {
            throw BackupError(path: dataPath, reason: reason)
          } catch {
            throw BackupError(path: dataPath, reason: .io(String(describing: error)))
          }
        }
        let entry = BackupEntry(
          domain: name.domain, relativePath: name.path, fileID: fileID, type: .file,
          size: size,
          mode: 0o100644, modified: dataStatus?.mtimeNanoseconds ?? 0)
        records.append(try checked(entry, folder: folder))
      } catch {
        problems.append(error)
      }
    }
    return (records, problems)
  }

  /// The records of an mdbackup-era backup (each file's plist is parsed for its name).
  static func mdbackupRecords(folder: RawPath) -> (records: [ManifestRecord], problems: [BackupError]) {
    var records: [ManifestRecord] = []
    var problems: [BackupError] = []
    for fileID in names(in: folder, suffix: "mdbackup") {
      let path = folder.appending(fileID + ".mdbackup")
      do throws(BackupError) {
        let (plist, status) = try readPlistWithStatus(path, limit: mdbackupLimit)
        guard let name = name(from: plist), case .data(let data)? = plist["Data"] else {
          throw BackupError(path: path, reason: .corruptManifest("mdbackup has no Path or no Data"))
        }
        let entry = BackupEntry(
          domain: name.domain, relativePath: name.path, fileID: fileID, type: .file, size: Int64(data.count),
          mode: 0o100644, modified: status.mtimeNanoseconds)
        records.append(try checked(entry, folder: folder))
      } catch {
        problems.append(error)
      }
    }
    return (records, problems)
  }

  /// The data an mdbackup file holds.
  package static func mdbackupData(_ path: RawPath) throws(BackupError) -> [UInt8] {
    let (plist, _) = try readPlistWithStatus(path, limit: mdbackupLimit)
    guard case .data(let data)? = plist["Data"] else {
      throw BackupError(path: path, reason: .corruptManifest("mdbackup has no Data"))
    }
    return data
  }

  private static func checked(_ entry: BackupEntry, folder: RawPath) throws(BackupError) -> ManifestRecord {
    guard ManifestNames.isSafeDomain(entry.domain), ManifestNames.isSafeRelativePath(entry.relativePath)
    else {
      throw BackupError(
        path: folder, reason: .unsafePath(RawPath(entry.domain).appending(entry.relativePath)))
    }
    return ManifestRecord(entry: entry, fileKey: nil)
  }

  package static func readPlist(_ path: RawPath, limit: Int64) throws(BackupError) -> PlistValue {
    try readPlistWithStatus(path, limit: limit).0
  }

  /// Reads and parses a plist of the backup, never through a symbolic link.
  static func readPlistWithStatus(_ path: RawPath, limit: Int64) throws(BackupError) -> (
    PlistValue, FileStatus
  ) {
    let file: RegularFile
    let bytes: [UInt8]
    do {
      file = try RegularFile(path: path, followLinks: false)
      bytes = try file.readAll(limit: limit)
    } catch {
      let reason: BackupError.Reason =
        error.isNoSuchFile
        ? .missingStoredFile(name: path.lastComponent.escaped)
        : error.failure == .badInput ? .corruptManifest(error.reason) : .io(error.reason)
      throw BackupError(path: path, reason: reason)
    }
    do {
      return (try PropertyList.parse(bytes).root, file.status)
    } catch {
      throw BackupError(path: path, reason: .corruptManifest("not a property list: \(error)"))
    }
  }
}
