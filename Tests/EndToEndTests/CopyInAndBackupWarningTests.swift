import Foundation
import ShelfTestSupport
import Testing

/// `copy-in:` refuses a folder that does not exist rather than matching everything, and an
/// encrypted backup without its password is told about once per run (issue 44, item 15).
@Suite struct CopyInAndBackupWarningTests {
  @Test(arguments: TestCatalogues.kinds) func aMissingCopyInFolderIsAUsageErrorNamingIt(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let database = try TestCatalogues.location(store, in: scratch.path)
    _ = try scratch.write("media/a.txt", Array("same\n".utf8))
    _ = try scratch.write("media/b.txt", Array("same\n".utf8))
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/media"]).status == 0)

    for command in ["ls", "stats", "extract", "dupes"] {
      var arguments = ["--db", database, command]
      if command == "extract" { arguments += ["-o", scratch.path + "/out"] }
      let missing = try ShelfProcess.run(arguments + ["-copy-in:" + scratch.path + "/Picturs"])
      #expect(missing.status == 64, "\(command)")
      #expect(
        missing.stderr
          == "error: copy-in:\(scratch.path)/Picturs: no such folder, on disk or in the catalogue\n",
        "\(command)")
      #expect(missing.stdout.isEmpty, "\(command)")
    }
    // ~/ is $HOME, as the shell would have expanded it.
    let home = try ShelfProcess.run(
      ["--db", database, "ls", "-copy-in:~/Picturs"], environment: ["HOME": scratch.path])
    #expect(home.status == 64)
    #expect(
      home.stderr == "error: copy-in:\(scratch.path)/Picturs: no such folder, on disk or in the catalogue\n")
    let file = try ShelfProcess.run(["--db", database, "ls", "copy-in:" + scratch.path + "/media/a.txt"])
    #expect(file.status == 64)
    #expect(file.stderr == "error: copy-in:\(scratch.path)/media/a.txt: not a folder\n")
    // A folder that exists answers as before.
    let found = try ShelfProcess.run(["--db", database, "ls", "--null", "copy-in:" + scratch.path + "/media"])
    #expect(found.status == 0)
    #expect(found.stdout == "\(scratch.path)/media/a.txt\0\(scratch.path)/media/b.txt\0")
  }

  @Test(arguments: TestCatalogues.kinds) func aFolderOfBackupEntriesExistsOnlyInTheCatalogueAndCounts(
    store: CatalogueStoreKind
  ) throws {
    let copy = try SampleBackupCopy(store)
    let backup = copy.backup("manifest-db")
    #expect(try copy.run(["index", backup]).status == 0)
    let result = try copy.run(["ls", "kind:image", "-copy-in:" + backup + "/CameraRollDomain"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
  }

  @Test func anEncryptedBackupWithoutItsPasswordIsToldOnce() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("mbdb-encrypted")
    let indexed = try copy.run(["index", backup])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    let told = "\(backup): encrypted backup: a password is needed"

    // dupes --similar reads three of its files: the backup is one warning.
    let similar = try copy.run(["dupes", "--similar"], password: nil)
    #expect(similar.stderr == "warning: \(told); skipped\n")
    // play asks for two of its recordings: the backup is one error.
    let played = try copy.run(["play", "-D", "null", "--no-interactive", "root:\(backup)"], password: nil)
    #expect(played.status == 77)
    let lines = played.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(played.stderr)")
    #expect(lines.first?.hasPrefix("error: \(told) (") == true, "\(played.stderr)")
  }

  /// Named as a root and then found again in the folder named after it, a backup that needs a
  /// password it was not given is reported once, and its password asked for once.
  @Test func aBackupNamedAndFoundAgainInOneRunIsToldOnce() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("mbdb-encrypted")
    let result = try copy.run(["index", backup, copy.folder], password: nil)
    #expect(result.status == 1)
    let told = result.stderr.split(separator: "\n").filter { $0.contains(backup + ":") }
    #expect(
      told == [
        "error: \(backup): encrypted backup: a password is needed (give --password-file FILE, set SHELF_BACKUP_PASSWORD, or run on a terminal to be asked)"
      ],
      "\(result.stderr)")
    // Named twice, the same.
    let twice = try copy.run(["index", backup, backup], password: nil)
    #expect(twice.stderr.split(separator: "\n").count == 1, "\(twice.stderr)")
  }
}
