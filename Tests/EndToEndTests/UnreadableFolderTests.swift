import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Folders a scan cannot look into keep their entries, and folders too deep to name by path are
/// read through their parents' descriptors.
@Suite struct UnreadableFolderTests {
  /// Root reads every folder: the scans run as nobody.
  static let asUser = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

  /// Files just written are trusted at once: a rescan finds them unchanged.
  static let trusted = ["SHELF_TRUST_WINDOW": "0"]

  @Test(arguments: [0o444, 0o000, 0o300] as [mode_t])
  func aFolderThatCannotBeSearchedIsNamedAndItsEntriesKept(mode: mode_t) throws {
    let scratch = try TemporaryDirectory()
    #expect(chmod(scratch.path, 0o777) == 0)
    let root = scratch.path + "/tree"
    _ = try scratch.write("tree/ok.txt", Array("fine\n".utf8))
    _ = try scratch.write("tree/sub/a.txt", Array("alpha\n".utf8))
    _ = try scratch.write("tree/sub/deeper/b.txt", Array("beta\n".utf8))
    let database = scratch.path + "/catalog.sqlite"
    try Self.giveToNobody(scratch.path)
    let first = try ShelfProcess.run(
      ["--db", database, "index", root], environment: Self.trusted, launcher: Self.asUser)
    #expect(first.status == 0, "\(first.stderr)")
    let before = try ShelfProcess.run(["--db", database, "ls", "--jsonl"])
    #expect(before.stdout.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 3)

    #expect(chmod(root + "/sub", mode) == 0)
    defer { chmod(root + "/sub", 0o755) }
    let rescan = try ShelfProcess.run(
      ["--db", database, "-v", "index", root], environment: Self.trusted, launcher: Self.asUser)
    let reason = mode == 0o444 ? "cannot search the folder" : "cannot read the folder"
    #expect(rescan.status == 1)
    #expect(
      rescan.stdout
        == "\(root): 1 file\n  0 new, 0 updated, 1 unchanged, 0 moved, 0 removed\n  1 unreadable\n")
    #expect(
      rescan.stderr
        == "warning: \(root)/sub: \(reason): permission denied; its entries are kept as they were\n")
    // The entries are as they were: the same rows, byte for byte.
    let after = try ShelfProcess.run(["--db", database, "ls", "--jsonl"])
    #expect(after.stdout == before.stdout)
    let names = try ShelfProcess.run(["--db", database, "ls"])
    #expect(names.stdout.contains("sub/a.txt") && names.stdout.contains("sub/deeper/b.txt"))

    #expect(chmod(root + "/sub", 0o755) == 0)
    let again = try ShelfProcess.run(
      ["--db", database, "index", root], environment: Self.trusted, launcher: Self.asUser)
    #expect(again.status == 0)
    #expect(again.stderr == "")
    #expect(again.stdout == "\(root): 3 files\n  0 new, 0 updated, 3 unchanged, 0 moved, 0 removed\n")
  }

  @Test func aFileBelowTwoThousandFoldersIsReadAndItsFoldersShelfignoreKept() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/deep"
    #expect(mkdir(root, 0o755) == 0)
    var folder = open(root, O_RDONLY | O_DIRECTORY)
    #expect(folder >= 0)
    for _ in 0..<2000 {
      #expect(mkdirat(folder, "ddd", 0o755) == 0)
      let next = openat(folder, "ddd", O_RDONLY | O_DIRECTORY)
      close(folder)
      folder = next
    }
    let text = "deep down\nthree lines\nof text\n"
    // The note, and a file its folder's .shelfignore leaves out.
    for (name, content) in [("note.txt", text), ("skip.txt", "left out\n"), (".shelfignore", "skip.txt\n")] {
      let file = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
      #expect(write(file, content, content.utf8.count) == content.utf8.count)
      close(file)
    }
    close(folder)
    defer { Self.removeDeepTree(root) }
    let database = scratch.path + "/catalog.sqlite"
    let path = root + String(repeating: "/ddd", count: 2000) + "/note.txt"
    #expect(path.utf8.count > Int(PATH_MAX))

    let result = try ShelfProcess.run(["--db", database, "index", root])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "")
    #expect(
      result.stdout == "\(root): 2 files\n  2 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  1 excluded\n"
    )
    let listed = try ShelfProcess.run(["--db", database, "ls", "--json", "name:note.txt"])
    #expect(listed.status == 0)
    #expect(listed.stdout.contains("\"lines\":3"), "\(listed.stdout.suffix(600))")
    #expect(!listed.stdout.contains("\"error\""))
  }

  /// Makes the tree the scans' own user's, so that they can write the catalogue beside it.
  static func giveToNobody(_ path: String) throws {
    guard getuid() == 0 else { return }
    let walker = FileManager.default.enumerator(atPath: path)
    #expect(chown(path, 65534, 65534) == 0)
    while let relative = walker?.nextObject() as? String {
      #expect(chown(path + "/" + relative, 65534, 65534) == 0)
    }
  }

  /// Removes the chain of `ddd` folders and the files at its bottom, from descriptors (a path
  /// cannot name them).
  static func removeDeepTree(_ root: String) {
    var folder = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    var depth = 0
    while case let next = openat(folder, "ddd", O_RDONLY | O_DIRECTORY | O_NOFOLLOW), next >= 0 {
      close(folder)
      folder = next
      depth += 1
    }
    for name in ["note.txt", "skip.txt", ".shelfignore"] { unlinkat(folder, name, 0) }
    for _ in 0..<depth {
      let parent = openat(folder, "..", O_RDONLY | O_DIRECTORY)
      close(folder)
      folder = parent
      unlinkat(folder, "ddd", AT_REMOVEDIR)
    }
    close(folder)
  }
}
