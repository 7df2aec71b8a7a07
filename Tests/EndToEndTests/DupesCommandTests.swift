import Foundation
import ShelfTestSupport
import Testing

/// `shelf dupes` on real files (Debian's licence texts and SampleMedia's backups), checked
/// against jdupes on the same tree and by inode and content.
@Suite struct DupesCommandTests {
  /// A tree of real texts: three copies of the GPL-3 (one with a second hard link), two of a
  /// short file, the GPL-3 with one byte changed in the middle (same size, head and tail: only
  /// the whole hash tells it apart), the GPL-2, two same-sized cuts of different texts, and two
  /// empty files.
  private struct Tree {
    let scratch: TemporaryDirectory
    let database: String
    var root: String { scratch.path + "/tree" }

    init(_ store: CatalogueStoreKind = .sqlite) throws {
      scratch = try TemporaryDirectory()
      database = try TestCatalogues.location(store, in: scratch.path)
      let gpl3 = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-3")))
      let gpl2 = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-2")))
      let apache = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/Apache-2.0")))
      _ = try scratch.write("tree/a/gpl3", gpl3)
      _ = try scratch.write("tree/b/gpl3 copy", gpl3)
      _ = try scratch.write("tree/b/c/gpl3", gpl3)
      #expect(link(root + "/b/gpl3 copy", root + "/b/gpl3 link") == 0)
      var changed = gpl3
      changed[gpl3.count / 2] ^= 0x20
      _ = try scratch.write("tree/a/gpl3 changed", changed)
      _ = try scratch.write("tree/a/gpl2", gpl2)
      _ = try scratch.write("tree/a/cut-gpl2", Array(gpl2.prefix(10_000)))
      _ = try scratch.write("tree/b/cut-apache", Array(apache.prefix(10_000)))
      _ = try scratch.write("tree/a/hello", Array("hello\n".utf8))
      _ = try scratch.write("tree/b/hello", Array("hello\n".utf8))
      _ = try scratch.write("tree/a/empty", [])
      _ = try scratch.write("tree/b/empty", [])
    }

    func run(_ arguments: [String]) throws -> ShelfResult {
      try ShelfProcess.run(["--db", database] + arguments)
    }

    func groups(_ arguments: [String] = []) throws -> [[String: Any]] {
      let result = try run(["dupes", "--json"] + arguments)
      return try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]])
    }
  }

  /// The paths of each group, as sets.
  private static func pathSets(_ groups: [[String: Any]]) -> Set<Set<String>> {
    Set(groups.map { Set((($0["files"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }) })
  }

  /// Device and inode of a path: the paths of one inode are one file.
  private static func inode(_ path: String) -> String {
    var status = stat()
    _ = lstat(path, &status)
    return "\(status.st_dev):\(status.st_ino)"
  }

  @Test(arguments: TestCatalogues.kinds) func groupsAreWhatJdupesFindsWithHardLinksAsOneFile(
    store: CatalogueStoreKind
  ) throws {
    try #require(ExternalTool.isInstalled(["jdupes"]), "jdupes is not installed (scripts/setup.sh)")
    let tree = try Tree(store)
    #expect(try tree.run(["index", tree.root]).status == 0)
    let result = try tree.run(["dupes", "--json"])
    #expect(result.status == 0)
    let groups = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]])

    // jdupes prints groups separated by blank lines; the names of one inode count once.
    let jdupes = try ExternalTool.run(["jdupes", "-r", "-q", tree.root])
    #expect(jdupes.status == 0)
    let theirs = String(decoding: jdupes.stdout, as: UTF8.self).components(separatedBy: "\n\n").map {
      Set($0.split(separator: "\n").map { Self.inode(String($0)) })
    }.filter { $0.count > 1 }
    let ours = groups.map { group in
      Set((group["files"] as? [[String: Any]] ?? []).compactMap { ($0["path"] as? String).map(Self.inode) })
    }
    #expect(Set(ours) == Set(theirs))
    #expect(
      Self.pathSets(groups) == [
        [tree.root + "/a/gpl3", tree.root + "/b/gpl3 copy", tree.root + "/b/c/gpl3"],
        [tree.root + "/a/hello", tree.root + "/b/hello"],
      ])

    // The largest group first, its hash as xxhsum -H2 prints it, the oldest file kept (all
    // have the same time here: then the shortest path), the hard-linked file listed once.
    let first = try #require(groups.first)
    #expect(first["size"] as? Int == 35_149)
    #expect(first["hash"] as? String == "ae6ea5d955361e9dd7d91f1432616dcc")
    let files = try #require(first["files"] as? [[String: Any]])
    #expect(files.map { $0["keep"] as? Bool } == [true, false, false])
    #expect(files.first?["path"] as? String == tree.root + "/a/gpl3")
    #expect(files.first { ($0["path"] as? String)?.hasSuffix("gpl3 copy") == true }?["links"] as? Int == 2)
    #expect(files.allSatisfy { $0["root"] as? String == tree.root })

    // -0 prints the members an action would touch; --jsonl a group per line.
    let null = try tree.run(["dupes", "-0"])
    #expect(
      Set(null.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }) == [
        tree.root + "/b/gpl3 copy", tree.root + "/b/c/gpl3", tree.root + "/b/hello",
      ])
    #expect(try tree.run(["dupes", "--jsonl"]).stdout.split(separator: "\n").count == 2)

    // Zero-length files only with --empty; --min-size leaves out the small group.
    #expect(try tree.groups(["--empty"]).count == 3)
    #expect(Self.pathSets(try tree.groups(["--min-size", "1k"])).count == 1)
    // No group: exit status 1, as ls.
    let none = try tree.run(["dupes", "name:gpl2"])
    #expect(none.status == 1)
    #expect(none.stdout == "[]\n" || none.stdout.isEmpty)
  }

  @Test func aSecondSearchOfAnUnchangedTreeReadsNoContentAndAChangedFileIsHashedAgain() throws {
    let tree = try Tree()
    #expect(try tree.run(["index", tree.root]).status == 0)
    let first = try tree.run(["-v", "dupes"])
    #expect(first.status == 0)
    // Four GPL-3 files sampled, then read whole; two cuts sampled; two small files read whole.
    #expect(first.stderr.contains("read 12 files"))
    let second = try tree.run(["-v", "dupes"])
    #expect(second.stderr.contains("read 0 files (0 B) to compare contents"))
    #expect(second.stdout == first.stdout)

    // A copy changed in place (same size) leaves its group; a gone one is dropped; neither
    // needs a new index.
    var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: tree.root + "/b/c/gpl3")))
    bytes[100] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: tree.root + "/b/c/gpl3"))
    #expect(unlink(tree.root + "/b/hello") == 0)
    let after = try tree.groups()
    #expect(Self.pathSets(after) == [[tree.root + "/a/gpl3", tree.root + "/b/gpl3 copy"]])
  }

  @Test func referenceFoldersAreAlwaysKeptAndGroupsInsideThemHidden() throws {
    let tree = try Tree()
    #expect(try tree.run(["index", tree.root]).status == 0)
    let groups = try tree.groups(["--reference", tree.root + "/b"])
    let gpl = try #require(groups.first { ($0["size"] as? Int) == 35_149 })
    let files = try #require(gpl["files"] as? [[String: Any]])
    let kept = Set(files.filter { $0["keep"] as? Bool == true }.compactMap { $0["path"] as? String })
    #expect(kept == [tree.root + "/b/gpl3 copy", tree.root + "/b/c/gpl3"])
    // The two hello files: one in the reference folder, so shown, the other not kept.
    let hello = try #require(groups.first { ($0["size"] as? Int) == 6 })
    #expect(
      (hello["files"] as? [[String: Any]])?.first { $0["keep"] as? Bool == false }?["path"] as? String
        == tree.root + "/a/hello")
    // Everything under the reference: nothing shown.
    #expect(try tree.groups(["--reference", tree.root]).isEmpty)
    // --keep newest picks by modification time.
    let older = tree.root + "/b/c/gpl3"
    var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, older, &times, 0) == 0)
    let newest = try tree.groups(["--keep", "newest"]).first { ($0["size"] as? Int) == 35_149 }
    #expect(
      (newest?["files"] as? [[String: Any]])?.first?["path"] as? String != older)
    let oldest = try tree.groups(["--keep", "oldest"]).first { ($0["size"] as? Int) == 35_149 }
    #expect((oldest?["files"] as? [[String: Any]])?.first?["path"] as? String == older)
  }

  @Test func backupEntriesAreComparedByDecryptedContentAndAlwaysKept() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/catalog.sqlite"
    let media = ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia").path
    let password = ["SHELF_BACKUP_PASSWORD": SampleBackupCopy.password]
    #expect(try ShelfProcess.run(["--db", database, "index", media], environment: password).status == 0)
    let result = try ShelfProcess.run(
      ["--db", database, "dupes", "--json", "ext:png"], environment: password)
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let groups = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]])
    // The camera-roll photo of each backup era, plain and encrypted, and the PNG in
    // Documents it was made from: one content.
    let photo = try #require(
      groups.first { group in
        (group["files"] as? [[String: Any]])?.contains {
          ($0["path"] as? String)?.hasSuffix("IMG_0001.PNG") == true
        }
          == true
      })
    let paths = try #require((photo["files"] as? [[String: Any]])?.compactMap { $0["path"] as? String })
    #expect(paths.contains(media + "/Documents/gradient-rgba.png"))
    #expect(paths.filter { $0.contains("-encrypted/") }.count == 3)
    #expect(paths.filter { $0.contains("/Backups/") && !$0.contains("-encrypted/") }.count == 4)
    #expect((photo["files"] as? [[String: Any]])?.allSatisfy { $0["keep"] as? Bool == true } == true)
    // Nothing for an action to touch: a backup entry is never one.
    let null = try ShelfProcess.run(["--db", database, "dupes", "-0", "ext:png"], environment: password)
    #expect(null.status == 0 && null.stdoutBytes.isEmpty)

    // Without the password: each encrypted backup skipped with one warning, the rest compared.
    let locked = try ShelfProcess.run(
      ["--db", database, "dupes", "--json", "ext:png"], environment: ["SHELF_BACKUP_PASSWORD": ""])
    #expect(locked.status == 0)
    #expect(locked.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.count == 3)
    #expect(!locked.stdout.contains("-encrypted/"))
  }

  @Test(arguments: TestCatalogues.kinds) func copiesAndCopyInAnswerEveryCommandsQuery(
    store: CatalogueStoreKind
  )
    throws
  {
    let scratch = try TemporaryDirectory()
    let database = try TestCatalogues.location(store, in: scratch.path)
    let gpl3 = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-3")))
    let gpl2 = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-2")))
    let apache = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/Apache-2.0")))
    let home = scratch.path + "/home"
    _ = try scratch.write("home/Pictures/kept", gpl3)
    _ = try scratch.write("home/Inbox/copy of kept", gpl3)
    _ = try scratch.write("home/Inbox/twin 1", gpl2)
    _ = try scratch.write("home/Inbox/twin 2", gpl2)
    _ = try scratch.write("home/Inbox/unique", apache)
    func run(_ arguments: [String]) throws -> ShelfResult {
      try ShelfProcess.run(["--db", database] + arguments, environment: ["HOME": home])
    }
    func listed(_ terms: [String]) throws -> Set<String> {
      let result = try run(["ls", "-0"] + terms)
      return Set(result.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
    }
    #expect(try run(["index", home]).status == 0)
    #expect(
      try listed(["copies>0"]) == [
        home + "/Pictures/kept", home + "/Inbox/copy of kept", home + "/Inbox/twin 1", home + "/Inbox/twin 2",
      ])
    #expect(try listed(["copies:0"]) == [home + "/Inbox/unique"])
    #expect(try listed(["copy-in:~/Pictures"]) == [home + "/Inbox/copy of kept"])
    // A copy of itself is not a copy: the file in Pictures has none there.
    #expect(
      try listed(["root:*", "-copy-in:~/Pictures"]) == [
        home + "/Pictures/kept", home + "/Inbox/twin 1", home + "/Inbox/twin 2", home + "/Inbox/unique",
      ])
    #expect(try run(["ls", "copy-in>3"]).status == 64)

    // extract only what has no copy in Pictures yet; stats counts through the same fields.
    let recovered = scratch.path + "/recovered"
    let extract = try run(["extract", "--flat", "path:*/Inbox/*", "-copy-in:~/Pictures", "-o", recovered])
    #expect(extract.status == 0)
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: recovered)) == ["twin 1", "twin 2", "unique"])
    let stats = try run(["stats", "--json", "copies:1"])
    let totals = try #require(
      try JSONSerialization.jsonObject(with: Data(stats.stdoutBytes)) as? [String: Any])
    #expect(totals["files"] as? Int == 4)
  }

  /// Every file of `root` (recursively) by path: its device and inode, and its bytes.
  private static func snapshot(_ root: String) throws -> [String: (String, Data)] {
    var files: [String: (String, Data)] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      let path = root + "/" + relative
      var status = stat()
      guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
      files[path] = (inode(path), try Data(contentsOf: URL(fileURLWithPath: path)))
    }
    return files
  }

  @Test func actionsReplaceOnlyWhatIsNotKeptAndTheCatalogueFollows() throws {
    let tree = try Tree()
    #expect(try tree.run(["index", tree.root]).status == 0)
    let before = try Self.snapshot(tree.root)

    // Listing, -0, --json and --dry-run change nothing.
    _ = try tree.run(["dupes"])
    let dry = try tree.run(["dupes", "--link", "hard", "--dry-run"])
    #expect(dry.status == 0)
    #expect(
      dry.stdout.split(separator: "\n").sorted() == [
        "would link \(tree.root)/b/c/gpl3 -> \(tree.root)/a/gpl3",
        "would link \(tree.root)/b/gpl3 copy -> \(tree.root)/a/gpl3",
        "would link \(tree.root)/b/gpl3 link -> \(tree.root)/a/gpl3",
        "would link \(tree.root)/b/hello -> \(tree.root)/a/hello",
      ])
    let unchanged = try Self.snapshot(tree.root)
    #expect(unchanged.mapValues(\.0) == before.mapValues(\.0))
    #expect(try tree.run(["dupes", "--json", "--trash"]).status == 64)

    // Reflinks: ext4 and tmpfs have none, so each file fails with its own error and stays.
    let reflink = try tree.run(["dupes", "--link", "reflink", "--reference", tree.root + "/a"])
    if reflink.status != 0 {
      #expect(reflink.status == 73)
      #expect(reflink.stderr.contains("reflinks are not supported"))
      #expect(try Self.snapshot(tree.root).mapValues(\.0) == before.mapValues(\.0))
    }

    // Hard links: every name of each copy not kept now is the kept file; contents unchanged;
    // the files outside any group untouched.
    let linked = try tree.run(["dupes", "--link", "hard"])
    #expect(linked.status == 0)
    let after = try Self.snapshot(tree.root)
    #expect(after.mapValues(\.1) == before.mapValues(\.1))
    let gpl3 = after[tree.root + "/a/gpl3"]!.0
    for name in ["/b/c/gpl3", "/b/gpl3 copy", "/b/gpl3 link"] { #expect(after[tree.root + name]?.0 == gpl3) }
    #expect(after[tree.root + "/b/hello"]?.0 == after[tree.root + "/a/hello"]?.0)
    for name in ["/a/gpl3 changed", "/a/gpl2", "/a/cut-gpl2", "/b/cut-apache", "/a/empty", "/b/empty"] {
      #expect(after[tree.root + name]?.0 == before[tree.root + name]?.0)
    }
    // No group left: the names of one inode are one file.
    #expect(try tree.run(["dupes"]).status == 1)
  }

  @Test func theTrashTakesTheCopiesOutsideTheReferenceAndTheCatalogueForgetsThem() throws {
    let tree = try Tree()
    let dataHome = tree.scratch.path + "/data"
    #expect(try tree.run(["index", tree.root]).status == 0)
    let result = try ShelfProcess.run(
      ["--db", tree.database, "dupes", "--trash", "--reference", tree.root + "/b"],
      environment: ["XDG_DATA_HOME": dataHome])
    #expect(result.status == 0)
    // The reference folder's files stay; the copies outside it (a/gpl3, a/hello) are trashed
    // with their .trashinfo, and leave the catalogue.
    #expect(access(tree.root + "/a/gpl3", F_OK) != 0 && access(tree.root + "/a/hello", F_OK) != 0)
    for name in ["/b/gpl3 copy", "/b/gpl3 link", "/b/c/gpl3", "/b/hello"] {
      #expect(access(tree.root + name, F_OK) == 0)
    }
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: dataHome + "/Trash/files")) == [
        "gpl3", "hello",
      ])
    let info = try String(contentsOfFile: dataHome + "/Trash/info/gpl3.trashinfo", encoding: .utf8)
    #expect(info.hasPrefix("[Trash Info]\nPath=\(tree.root)/a/gpl3\nDeletionDate="))
    let listed = try tree.run(["ls", "-0"]).stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(!listed.contains(tree.root + "/a/gpl3") && listed.contains(tree.root + "/b/c/gpl3"))
  }

  @Test func similarGroupsResizedRecompressedAndConvertedPhotosAndReencodedMusic() throws {
    let photos = ["Aqua", "Dune", "Garden", "Blinds", "LadyBird"].map {
      "/usr/share/backgrounds/mate/nature/\($0).jpg"
    }
    let music = "/usr/share/games/xmoto/Textures/Musics/batcave.ogg"
    try #require(
      photos.allSatisfy { FileManager.default.fileExists(atPath: $0) }
        && FileManager.default.fileExists(atPath: music)
        && ExternalTool.isInstalled(["convert", "ffmpeg", "findimagedupes"]),
      "needs mate-backgrounds, xmoto-data, imagemagick, ffmpeg and findimagedupes (scripts/setup.sh)")
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/media"
    try scratch.makeDirectory("media/photos")
    try scratch.makeDirectory("media/music")
    var expected: Set<Set<String>> = []
    for photo in photos {
      let name = URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent
      let base = root + "/photos/" + name
      // The original as a PNG, then ImageMagick's copies: half size, JPEG quality 60, and the
      // PNG converted to JPEG.
      try ExternalTool.make(["convert", photo, "-resize", "1280x1280>", base + ".png"])
      try ExternalTool.make(["convert", base + ".png", "-resize", "50%", base + "-half.png"])
      try ExternalTool.make(["convert", base + ".png", "-quality", "60", base + "-q60.jpg"])
      try ExternalTool.make(["convert", base + ".png", base + "-converted.jpg"])
      expected.insert([base + ".png", base + "-half.png", base + "-q60.jpg", base + "-converted.jpg"])
    }
    let track = root + "/music/batcave"
    try ExternalTool.ffmpeg(["-i", music, track + ".flac"])
    try ExternalTool.ffmpeg(["-i", track + ".flac", "-b:a", "128k", track + ".mp3"])
    try ExternalTool.ffmpeg(["-i", track + ".flac", "-c:a", "libopus", "-b:a", "48k", track + ".opus"])
    expected.insert([track + ".flac", track + ".mp3", track + ".opus"])

    let database = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    let result = try ShelfProcess.run(["--db", database, "dupes", "--similar", "--json"])
    #expect(result.status == 0)
    let groups = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]])
    #expect(Self.pathSets(groups) == expected)
    // The best of each group: the full-size PNG of a photo, the FLAC of the track.
    for group in groups {
      let files = group["files"] as? [[String: Any]] ?? []
      let best = files.filter { $0["best"] as? Bool == true }.compactMap { $0["path"] as? String }
      #expect(best.count == 1)
      #expect(
        best.first.map { $0.hasSuffix(".flac") || ($0.hasSuffix(".png") && !$0.hasSuffix("-half.png")) }
          == true)
      #expect(group["hash"] == nil)
      if group["kind"] as? String == "image" { #expect((group["distance"] as? Int ?? 99) <= 6) }
    }

    // findimagedupes, run beside it, finds the same groups of pictures.
    let theirs = try ExternalTool.run(["findimagedupes", "-R", root + "/photos"])
    let theirGroups = Set(
      String(decoding: theirs.stdout, as: UTF8.self).split(separator: "\n").map {
        Set($0.split(separator: " ").map(String.init))
      })
    #expect(theirGroups == expected.filter { $0.contains { $0.hasSuffix(".png") } })

    // A picture that crashes its decoder costs that picture only.
    let crashed = try ShelfProcess.run(
      ["--db", database, "dupes", "--similar", "--json"],
      environment: ["SHELF_WORKER_FAULT": "crash", "SHELF_WORKER_FAULT_FILE": "Dune-q60.jpg"])
    #expect(crashed.status == 0)
    #expect(crashed.stderr.contains("Dune-q60.jpg: extractor crashed"))
    let after = try #require(
      try JSONSerialization.jsonObject(with: Data(crashed.stdoutBytes)) as? [[String: Any]])
    #expect(Self.pathSets(after).count == expected.count)
  }

  @Test func whileAnotherShelfWritesTheHashesAreUsedUnstoredAndAnActionWaitsThenExits75() throws {
    let tree = try Tree()
    #expect(try tree.run(["index", tree.root]).status == 0)
    // A slow index of another root holds the writer lock.
    let other = tree.scratch.path + "/other"
    for index in 0..<200 { _ = try tree.scratch.write("other/n\(index).txt", Array("n \(index)\n".utf8)) }
    let writer = try BackgroundShelf(
      ["--db", tree.database, "index", other],
      environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      writer.kill(SIGKILL)
      _ = writer.wait()
    }
    #expect(try ObservableWait.until { try tree.run(["ls", "-0", "root:" + other]).stdoutBytes.contains(0) })

    // The reader never waits: the groups come, the hashes are not kept (one warning), so the
    // next search reads the contents again.
    let first = try tree.run(["-v", "dupes", "root:" + tree.root])
    #expect(first.status == 0)
    #expect(first.stdout.contains("xxh128 ae6ea5d955361e9dd7d91f1432616dcc"))
    #expect(
      first.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: content hashes not kept") }.count
        == 1)
    #expect(first.stderr.contains("catalogue is busy"))
    let second = try tree.run(["-v", "dupes", "root:" + tree.root])
    #expect(second.stderr.contains("read 12 files"))

    // An action needs the lock: it waits SHELF_LOCK_WAIT seconds, then exits 75, nothing touched.
    let before = try Self.snapshot(tree.root)
    let action = try ShelfProcess.run(
      ["--db", tree.database, "dupes", "--link", "hard", "root:" + tree.root],
      environment: ["SHELF_LOCK_WAIT": "0.3"])
    #expect(action.status == 75)
    #expect(try Self.snapshot(tree.root).mapValues(\.0) == before.mapValues(\.0))
  }
}
