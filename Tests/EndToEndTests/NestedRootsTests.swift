import Foundation
import ShelfTestSupport
import Testing

/// The root model: iPhone backups found anywhere under an indexed folder are catalogued by
/// their real names as roots of their own, listed under the folder's root; roots inside a newly
/// indexed folder keep their entries; nothing leaves the catalogue because roots overlap.
@Suite struct NestedRootsTests {
  /// SampleMedia (a sandbox with its seven sample backups under Backups/) copied into a
  /// scratch folder, with a new catalogue in `store`.
  private struct Sample {
    let scratch: TemporaryDirectory
    let root: String
    let database: String

    init(_ store: CatalogueStoreKind = .sqlite) throws {
      scratch = try TemporaryDirectory()
      root = try scratch.copy(fromRepository: "SampleMedia")
      database = try TestCatalogues.location(store, in: scratch.path)
    }

    func backup(_ era: String) -> String { root + "/Backups/" + era }

    func run(_ arguments: [String], password: String? = SampleBackupCopy.password) throws -> ShelfResult {
      var environment = ["SHELF_TRUST_WINDOW": "0"]
      if let password { environment["SHELF_BACKUP_PASSWORD"] = password }
      return try ShelfProcess.run(["--db", database] + arguments, environment: environment)
    }

    /// Every catalogued entry's path with its root's path.
    func entries() throws -> [String: String] {
      // An empty catalogue lists nothing (status 1).
      let listed = try run(["ls", "--json"])
      let records = try #require(
        try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
      var found: [String: String] = [:]
      for record in records {
        found[record["path"] as? String ?? "?"] = record["root"] as? String ?? "?"
      }
      return found
    }

    /// The `roots --json` records.
    func roots() throws -> [[String: Any]] {
      let listed = try run(["roots", "--json"])
      #expect(listed.status == 0)
      return try #require(
        try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
    }

    /// The catalogue's total of entries, as `stats` counts it.
    func statsCount() throws -> Int {
      let stats = try run(["stats", "--json"])
      let object = try JSONSerialization.jsonObject(with: Data(stats.stdoutBytes)) as? [String: Any]
      return object?["files"] as? Int ?? -1
    }
  }

  /// The real-name paths of every file of the sample backups under `folder` (one per era).
  private static func backupEntries(in folder: String, eras: [String] = SampleBackupCopy.eras) -> Set<String>
  {
    Set(
      SampleBackupCopy.files.filter { eras.contains($0.era) }.map {
        folder + "/" + $0.era + "/" + $0.domain + "/" + $0.path
      })
  }

  /// The plain (non-backup) files of SampleMedia.
  private static func plainFiles(_ root: String) -> Set<String> {
    Set(
      SampleBackupCopy.tree(root).keys.filter { !$0.hasPrefix("Backups/") }.map { root + "/" + $0 })
  }

  @Test(arguments: TestCatalogues.kinds) func aFolderHoldingBackupsCataloguesThemByRealNames(
    store: CatalogueStoreKind
  ) throws {
    let sample = try Sample(store)
    let indexed = try sample.run(["index", sample.root])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    #expect(indexed.stderr.isEmpty)
    let entries = try sample.entries()
    let expected = Self.plainFiles(sample.root).union(Self.backupEntries(in: sample.root + "/Backups"))
    #expect(Set(entries.keys) == expected)
    // No stored blob, manifest or plist of a backup is an entry of its own.
    #expect(
      !entries.keys.contains {
        $0.hasSuffix("/Manifest.db") || $0.hasSuffix("/Info.plist") && $0.contains("/Backups/")
      })
    for era in SampleBackupCopy.eras {
      for (path, root) in entries where path.hasPrefix(sample.backup(era) + "/") {
        #expect(root == sample.backup(era), "\(path)")
      }
    }
    #expect(try sample.statsCount() == expected.count)
    // Each backup is a root of its own, listed under the folder's root with its facts.
    let roots = try sample.roots()
    #expect(roots.map { $0["path"] as? String } == [sample.root])
    let nested = try #require(roots.first?["nested"] as? [[String: Any]])
    #expect(nested.map { $0["path"] as? String } == SampleBackupCopy.eras.sorted().map(sample.backup))
    let first = try #require(nested.first?["backup"] as? [String: Any])
    #expect(first["device"] as? String == "Shelf Test iPhone")
    #expect(first["ios_version"] as? String == "17.5")
    #expect(first["date"] as? String == "2024-05-01T09:30:00Z")
    #expect(first["encrypted"] as? Bool == false)
    #expect((nested[1]["backup"] as? [String: Any])?["encrypted"] as? Bool == true)
    // The text listing indents each backup under its parent, its facts on the line below.
    let text = try sample.run(["roots"]).stdout.split(separator: "\n").map(String.init)
    #expect(text.count == 1 + 1 + 2 * 7)
    #expect(text[1].hasPrefix(sample.root + " "))
    #expect(text[2].hasPrefix("  " + sample.backup("manifest-db") + " "))
    #expect(
      text[3]
        == "    backup of Shelf Test iPhone (iPhone15,2), iOS 17.5, 2024-05-01T09:30:00Z, not encrypted, manifest-db"
    )
    // The summary: the root line, then counts and notes that fit 80 columns.
    let lines = indexed.stdout.split(separator: "\n")
    #expect(
      lines.prefix(3) == [
        "\(sample.root): 47 files", "  47 new, 0 updated, 0 unchanged, 0 moved, 0 removed",
        "  7 backups found, each a root of its own",
      ])
    #expect(lines.filter { !$0.hasPrefix("/") }.allSatisfy { $0.count <= 80 })
    #expect(
      indexed.stdout.contains(
        """
        \(sample.backup("manifest-db")): 5 files
          5 new, 0 updated, 0 unchanged, 0 moved, 0 removed
          1 link not followed
          backup: Shelf Test iPhone (iPhone15,2), iOS 17.5, 2024-05-01T09:30:00Z,
            not encrypted, manifest-db

        """), "\(indexed.stdout)")
    #expect(indexed.stdout.contains("\(sample.backup("mbdb-encrypted")): 5 files\n  5 new, 0 updated"))
  }

  @Test func aBackupBesideOtherFoldersIsANestedRootAndTheRestIsCatalogued() throws {
    let scratch = try TemporaryDirectory()
    let tree = scratch.path + "/TREE"
    let udid = "00008030-001A2B3C4D5E6F70"
    try scratch.makeDirectory("TREE")
    _ = try scratch.copy(fromRepository: "SampleMedia/Backups/manifest-db", as: "TREE/" + udid)
    _ = try scratch.write("TREE/Documents/notes.txt", Array("notes\n".utf8))
    _ = try scratch.write("TREE/readme.txt", Array("readme\n".utf8))
    let database = scratch.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", tree])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    let listed = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    let backupFiles = SampleBackupCopy.files.filter { $0.era == "manifest-db" }.map {
      tree + "/" + udid + "/" + $0.domain + "/" + $0.path
    }
    #expect(Set(listed) == Set(backupFiles + [tree + "/Documents/notes.txt", tree + "/readme.txt"]))
    let roots = try ShelfProcess.run(["--db", database, "roots", "--json"])
    let records = try #require(
      try JSONSerialization.jsonObject(with: Data(roots.stdoutBytes)) as? [[String: Any]])
    #expect(records.map { $0["path"] as? String } == [tree])
    #expect(
      (records.first?["nested"] as? [[String: Any]])?.map { $0["path"] as? String } == [tree + "/" + udid])
  }

  @Test(arguments: TestCatalogues.kinds) func indexingTheParentOfCataloguedRootsKeepsEveryEntry(
    store: CatalogueStoreKind
  ) throws {
    let sample = try Sample(store)
    for era in SampleBackupCopy.eras { #expect(try sample.run(["index", sample.backup(era)]).status == 0) }
    #expect(try sample.run(["index", sample.root + "/Documents"]).status == 0)
    let before = try sample.entries()
    #expect(before.count == 35 + Self.plainFiles(sample.root + "/Documents").count)
    let parent = try sample.run(["index", sample.root])
    #expect(parent.status == 0, "\(parent.stderr)")
    #expect(parent.stderr == "\(sample.root)/Documents: already a root of its own; skipped here\n")
    for line in parent.stdout.split(separator: "\n") where line.hasPrefix("  ") && line.contains(" removed") {
      #expect(line.hasSuffix(" 0 removed"), "\(line)")
    }
    #expect(parent.stdout.contains("\(sample.backup("mdinfo")): 5 files\n  0 new, 0 updated, 5 unchanged"))
    let after = try sample.entries()
    // Every entry is still there, with the root it had; the parent added the rest.
    for (path, root) in before { #expect(after[path] == root, "\(path)") }
    #expect(
      Set(after.keys) == Self.plainFiles(sample.root).union(Self.backupEntries(in: sample.root + "/Backups")))
    #expect(try sample.statsCount() == after.count)
    // Every root once, nothing new, changed or removed.
    let again = try sample.run(["index"])
    #expect(again.status == 0)
    let counts = again.stdout.split(separator: "\n").filter { $0.hasSuffix(" removed") }
    #expect(counts.count == 1 + 7 + 1)
    #expect(
      counts.allSatisfy { $0.hasPrefix("  0 new, 0 updated, ") && $0.hasSuffix(", 0 moved, 0 removed") })
    #expect(try sample.entries() == after)
    // A folder inside a root is rescanned as part of it, and adds no root.
    let inside = try sample.run(["index", sample.root + "/Library"])
    #expect(inside.status == 0)
    #expect(inside.stdout.hasPrefix("\(sample.root)/Library: "))
    #expect(
      inside.stderr == "\(sample.root)/Library: inside the root \(sample.root); rescanned as part of it\n")
    #expect(try sample.roots().map { $0["path"] as? String } == [sample.root, sample.root + "/Documents"])
    #expect(try sample.entries() == after)
  }

  @Test(arguments: TestCatalogues.kinds) func forgettingARootForgetsTheBackupsFoundInIt(
    store: CatalogueStoreKind
  ) throws {
    let sample = try Sample(store)
    #expect(try sample.run(["index", sample.root]).status == 0)
    let forgotten = try sample.run(["forget", sample.root])
    #expect(forgotten.status == 0)
    let expected =
      SampleBackupCopy.eras.sorted().map { "\(sample.backup($0)): forgot the backup and its 5 entries" }
      + ["\(sample.root): forgot the root and its 47 entries"]
    #expect(forgotten.stdout.split(separator: "\n").map(String.init) == expected)
    #expect(try sample.roots().isEmpty)
    #expect(try sample.entries().isEmpty)
  }

  @Test func aFolderThatOnlyLooksLikeABackupIsPlainFilesWithOneWarning() throws {
    let scratch = try TemporaryDirectory()
    let tree = scratch.path + "/tree"
    _ = try scratch.write("tree/stray/Manifest.db", Array("not a database".utf8))
    _ = try scratch.write("tree/stray/photo.txt", Array("photo\n".utf8))
    try scratch.makeDirectory("tree/unfinished")
    _ = try scratch.copy(
      fromRepository: "SampleMedia/Backups/manifest-db/Info.plist", as: "tree/unfinished/Info.plist")
    _ = try scratch.copy(
      fromRepository: "SampleMedia/Backups/manifest-db/Status.plist", as: "tree/unfinished/Status.plist")
    let database = scratch.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", tree])
    #expect(indexed.status == 0)
    #expect(
      indexed.stderr == """
        warning: \(tree)/stray: holds Manifest.db but no Info.plist: not an iPhone backup; catalogued as plain files
        warning: \(tree)/unfinished: holds Info.plist but no manifest (an unfinished backup?): not an iPhone backup; catalogued as plain files

        """)
    let listed = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(
      listed == [
        tree + "/stray/Manifest.db", tree + "/stray/photo.txt", tree + "/unfinished/Info.plist",
        tree + "/unfinished/Status.plist",
      ])
    let roots = try ShelfProcess.run(["--db", database, "roots", "--json"])
    #expect(roots.stdout.components(separatedBy: "\"path\"").count == 2)
  }

  @Test func anEncryptedBackupWithNoPasswordIsLeftOutWithAWarning() throws {
    let sample = try Sample()
    let indexed = try sample.run(["index", sample.root], password: nil)
    #expect(indexed.status == 1)
    let encrypted = ["manifest-db-encrypted", "mbdb-encrypted", "mdinfo-encrypted"]
    #expect(
      indexed.stderr.split(separator: "\n").map(String.init)
        == encrypted.map {
          "warning: \(sample.backup($0)): encrypted backup: a password is needed (give --password-file FILE, set SHELF_BACKUP_PASSWORD, or run on a terminal to be asked)"
        })
    let entries = try sample.entries()
    let plainEras = SampleBackupCopy.eras.filter { !encrypted.contains($0) }
    #expect(
      Set(entries.keys)
        == Self.plainFiles(sample.root).union(
          Self.backupEntries(in: sample.root + "/Backups", eras: plainEras)))
    #expect(!entries.keys.contains { path in encrypted.contains { path.hasPrefix(sample.backup($0) + "/") } })
    // With the password, the next run catalogues them.
    let withPassword = try sample.run(["index", sample.root])
    #expect(withPassword.status == 0)
    #expect(try sample.entries().count == entries.count + 15)
  }
}

/// Backup passwords on a terminal, run under script(1): the password given is tried on each
/// backup; one it does not open is asked for by name, and a wrong answer is asked again, three
/// times in all.
@Suite struct BackupPasswordPromptTests {
  @Test func eachBackupThePasswordDoesNotOpenIsAskedForByNameThreeTimesAtMost() throws {
    let copy = try SampleBackupCopy()
    let terminal = try TerminalSession(
      "env SHELF_BACKUP_PASSWORD=not-the-password \(ShelfProcess.binary) --db \(copy.database) index \(copy.folder)",
      log: copy.scratch.file("typescript"))
    let password = SampleBackupCopy.password
    // manifest-db-encrypted: a wrong answer, then the right one; mbdb-encrypted: the right one;
    // mdinfo-encrypted: three wrong answers.
    for (prompt, typed) in [password + "x", password, password, "a", "b", "c"].enumerated() {
      #expect(terminal.type(typed, after: "Password for the encrypted backup ", count: prompt + 1))
    }
    let status = try terminal.finish()
    let text = terminal.screen
    #expect(status == 1, "\(text)")
    for era in ["manifest-db-encrypted", "mbdb-encrypted", "mdinfo-encrypted"] {
      #expect(text.contains("\(copy.backup(era)): the password given does not open this backup\n"), "\(text)")
    }
    #expect(
      text.components(separatedBy: "Password for the encrypted backup \(copy.backup("mdinfo-encrypted")): ")
        .count == 4)
    #expect(text.components(separatedBy: "Sorry, try again.").count == 1 + 1 + 2)
    #expect(text.contains("\(copy.backup("manifest-db-encrypted")): 5 files\n  5 new, "), "\(text)")
    #expect(text.contains("\(copy.backup("mbdb-encrypted")): 5 files\n  5 new, "), "\(text)")
    #expect(
      text.contains("error: \(copy.backup("mdinfo-encrypted")): wrong password for this encrypted backup\n"))
    #expect(!text.contains(password), "the typed password is not echoed")
    let listed = try copy.run(["ls", "-0"], password: nil).stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(listed.count == 6 * 5)
    #expect(!listed.contains { $0.hasPrefix(copy.backup("mdinfo-encrypted") + "/") })
  }
}
