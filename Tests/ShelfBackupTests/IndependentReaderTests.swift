import Foundation
import ShelfBackup
import ShelfCore
import ShelfTestSupport
import Testing

/// ShelfBackup against independent readers from PyPI, side by side on the same backups: every
/// file `pyiosbackup` (Manifest.db and Manifest.mbdb, plain and encrypted),
/// `iphone_backup_decrypt` and `mvt-ios decrypt-backup` (encrypted Manifest.db) recover, shelf
/// recovers byte for byte under the same DOMAIN/relativePath, and shelf recovers no file they
/// do not. mvt writes a decrypted backup (Manifest.db and XX/fileID), which the script lays out
/// by the decrypted Manifest.db's domain and relativePath.
@Suite struct IndependentReaderTests {
  /// Extracts a backup with one of the readers into OUT/DOMAIN/relativePath.
  static let extractor = """
    import sys
    import os, shutil, sqlite3, subprocess
    reader, backup, out, password = sys.argv[1:5]
    if reader == "mvt":
        decrypted = out + ".mvt"
        mvt = shutil.which("mvt-ios")
        if mvt is None:
            sys.exit("mvt-ios is not on PATH")
        subprocess.run(
            [mvt, "--disable-update-check", "--disable-indicator-update-check", "decrypt-backup",
             "-p", password, "-d", decrypted, backup], check=True, stdout=subprocess.DEVNULL)
        db = sqlite3.connect(os.path.join(decrypted, "Manifest.db"))
        for file_id, domain, relative in db.execute(
                "SELECT fileID, domain, relativePath FROM Files WHERE flags = 1"):
            stored = os.path.join(decrypted, file_id[:2], file_id)
            if os.path.exists(stored):
                target = os.path.join(out, domain, relative)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(stored, target)
    elif reader == "pyiosbackup":
        from pyiosbackup import Backup
        Backup.from_path(backup, password).unback(out, strict=True)
    else:
        from iphone_backup_decrypt import EncryptedBackup
        encrypted = EncryptedBackup(backup_directory=backup, passphrase=password)
        encrypted.extract_files(
            relative_paths_like="%", output_folder=out, preserve_folders=True, domain_subfolders=True)
    """

  static let hasPyiosbackup = Python.has("pyiosbackup")
  static let hasIphoneBackupDecrypt = Python.has("iphone_backup_decrypt")
  static let hasMVT = Python.has("mvt.ios.decrypt")

  @Test(
    .enabled(if: hasPyiosbackup, "needs PyPI pyiosbackup (make setup installs it)"),
    arguments: ["manifest-db", "manifest-db-encrypted", "mbdb", "mbdb-encrypted"])
  func pyiosbackupRecoversWhatShelfRecovers(_ era: String) throws {
    try compare(era, reader: "pyiosbackup")
  }

  @Test(.enabled(if: hasIphoneBackupDecrypt, "needs PyPI iphone_backup_decrypt (make setup installs it)"))
  func iphoneBackupDecryptRecoversWhatShelfRecovers() throws {
    try compare("manifest-db-encrypted", reader: "iphone_backup_decrypt")
  }

  @Test(.enabled(if: hasMVT, "needs PyPI mvt (make setup installs it)"))
  func mvtRecoversWhatShelfRecovers() throws {
    try compare("manifest-db-encrypted", reader: "mvt")
  }

  private func compare(_ era: String, reader: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    let out = scratch.file("out")
    let password = era.hasSuffix("encrypted") ? SampleBackups.password : ""
    let result = try Python.run(["-c", Self.extractor, reader, folder, out, password])
    try #require(result.status == 0, "\(reader) failed: \(result.stderr)")

    var theirs: [String: [UInt8]] = [:]
    let enumerator = try #require(FileManager.default.enumerator(atPath: out))
    while let relative = enumerator.nextObject() as? String {
      let full = out + "/" + relative
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
        theirs[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: full)))
      }
    }
    #expect(theirs.count == 5, "\(reader) recovered \(theirs.keys.sorted())")

    let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
    let (entries, problems) = try backup.entries()
    #expect(problems.isEmpty)
    var ours: [String: [UInt8]] = [:]
    for entry in entries where entry.type == .file {
      let relative = RawPath(entry.domain).appending(entry.relativePath).escaped
      ours[relative] = try backup.contents(of: entry)
    }
    #expect(Set(ours.keys) == Set(theirs.keys))
    for (relative, bytes) in theirs {
      #expect(ours[relative] == bytes, "\(relative) differs from \(reader)'s")
    }
  }
}
