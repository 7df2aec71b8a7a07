import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

#if canImport(Glibc)
  import Glibc
#endif

private func add(_ known: inout KnownFiles, _ path: String, id: Int64) {
  Array(path.utf8).withUnsafeBytes {
    known.add(
      path: $0,
      KnownFile(
        id: id, path: RawPath("/not/read"), size: id * 10, mtime: id * 100, ctime: id * 1000,
        inode: UInt64(id),
        device: 7, trusted: id % 2 == 0, extractorVersion: Int(id % 5), failedInWorker: id % 3 == 0))
  }
}

@Test func knownFilesFindEveryPathAndNoOther() {
  // Past the capacity asked for.
  var known = KnownFiles(capacity: 10)
  let paths = (0..<5000).map { "/r/\($0 % 37)/file \($0).png" } + ["", "/", "/r/é/\u{0}x"]
  for (number, path) in paths.enumerated() { add(&known, path, id: Int64(number)) }
  known.indexPaths()
  #expect(known.count == paths.count)
  for (number, path) in paths.enumerated() {
    guard let index = known.index(of: Array(path.utf8)) else {
      Issue.record("\(path) not found")
      continue
    }
    let entry = known.entry(at: index)
    #expect(entry.id == Int64(number))
    #expect(entry.path.bytes == Array(path.utf8))
    #expect(entry.size == Int64(number) * 10 && entry.mtime == Int64(number) * 100)
    #expect(entry.ctime == Int64(number) * 1000 && entry.inode == UInt64(number) && entry.device == 7)
    #expect(entry.trusted == (number % 2 == 0) && entry.extractorVersion == number % 5)
    #expect(entry.failedInWorker == (number % 3 == 0))
  }
  #expect(known.index(of: Array("/r/1/file 5000.png".utf8)) == nil)
  #expect(known.index(of: Array("/r/1/file 1.pn".utf8)) == nil)
  #expect(KnownFiles().index(of: []) == nil)
}

@Test func knownFilesTellUnchangedFromChanged() throws {
  var known = KnownFiles()
  add(&known, "/r/a", id: 2)
  known.indexPaths()
  let index = try #require(known.index(of: Array("/r/a".utf8)))
  var status = FileStatus(Glibc.stat())
  status.size = 20
  status.mtimeNanoseconds = 200
  status.ctimeNanoseconds = 2000
  status.inode = 2
  status.device = 7
  #expect(known.isUnchanged(at: index, status: status, extractorVersion: 2))
  #expect(!known.isUnchanged(at: index, status: status, extractorVersion: 3))
  // Its reading did not fail in a worker (id 2), so asking for failures again changes nothing.
  #expect(known.isUnchanged(at: index, status: status, extractorVersion: 2, retryingFailures: true))
  for change in [\FileStatus.size, \.mtimeNanoseconds, \.ctimeNanoseconds] {
    var changed = status
    changed[keyPath: change] += 1
    #expect(!known.isUnchanged(at: index, status: changed, extractorVersion: 2))
  }
  var moved = status
  moved.inode = 3
  #expect(!known.isUnchanged(at: index, status: moved, extractorVersion: 2))
  // Untrusted timestamps (id 3 is odd) are read again.
  add(&known, "/r/b", id: 3)
  known.indexPaths()
  let untrusted = try #require(known.index(of: Array("/r/b".utf8)))
  status.size = 30
  status.mtimeNanoseconds = 300
  status.ctimeNanoseconds = 3000
  status.inode = 3
  #expect(!known.isUnchanged(at: untrusted, status: status, extractorVersion: 3))
}

@Test func aReadingThatFailedInAWorkerIsUnchangedUnlessFailuresAreRetried() throws {
  var known = KnownFiles()
  add(&known, "/r/c", id: 6)  // even: trusted; a multiple of 3: failed in a worker
  known.indexPaths()
  let index = try #require(known.index(of: Array("/r/c".utf8)))
  var status = FileStatus(Glibc.stat())
  (status.size, status.mtimeNanoseconds, status.ctimeNanoseconds) = (60, 600, 6000)
  (status.inode, status.device) = (6, 7)
  #expect(known.isUnchanged(at: index, status: status, extractorVersion: 1))
  #expect(!known.isUnchanged(at: index, status: status, extractorVersion: 1, retryingFailures: true))
}

@Test func knownFilesFilteredKeepOnlyTheFolder() {
  var known = KnownFiles()
  for (number, path) in ["/r/a/1", "/r/a/2", "/r/ab/3", "/r/b/4", "/r/a"].enumerated() {
    add(&known, path, id: Int64(number))
  }
  let inside = known.filtered(prefix: Array("/r/a/".utf8))
  #expect(inside.count == 2)
  #expect(inside.indices.map { inside.entry(at: $0).id }.sorted() == [0, 1])
  #expect(inside.index(of: Array("/r/ab/3".utf8)) == nil)
  #expect(inside.index(of: Array("/r/a/2".utf8)).map { inside.entry(at: $0).id } == 1)
}

/// How many of the process's descriptors are open on something inside `folder`.
private func descriptorsOpen(inside folder: String) throws -> Int {
  try TreeWalker.list(RawPath("/proc/self/fd")).count { entry in
    var target = [CChar](repeating: 0, count: 4096)
    let link = "/proc/self/fd/" + String(decoding: entry.name, as: UTF8.self)
    let length = readlink(link, &target, target.count - 1)
    guard length > 0 else { return false }
    return String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix(
      folder + "/")
  }
}

@Test func wideTreesAreWalkedWholeAndStoppedWalksCloseTheirFolders() throws {
  let scratch = try TemporaryDirectory()
  // More folders than may wait with an open descriptor: the rest are opened by path.
  for folder in 0..<600 {
    try scratch.makeDirectory("d\(folder)/inner")
    _ = try scratch.write("d\(folder)/inner/f.txt", [1])
    _ = try scratch.write("d\(folder)/g.txt", [2])
  }
  for threads in [1, 2, 3] {
    let walk = try TreeWalker(root: RawPath(scratch.path)).collect(threads: threads)
    #expect(walk.files.count == 1200)
    #expect(Set(walk.files.map(\.path)).count == 1200)
    #expect(walk.summary.directories == 1201)
    #expect(walk.summary.unreadable.isEmpty)
  }
  // Stopped after the first folder: the 600 opened below it are never read, and closed.
  let stopped = try TreeWalker(root: RawPath(scratch.path)).collect(threads: 1) { true }
  #expect(stopped.stopped)
  #expect(try descriptorsOpen(inside: scratch.path) == 0)
}

@Test func aLinkedFolderIsWalkedOnceWhicheverComesFirst() throws {
  let scratch = try TemporaryDirectory()
  _ = try scratch.write("real/inner/a.txt", [1])
  // Eight links to the folder: the directory's order puts some before it, some after.
  for name in ["a", "b", "c", "d", "f", "h", "x", "z"] {
    #expect(symlink("real", scratch.file(name)) == 0)
  }
  for threads in [1, 2] {
    let walk = try TreeWalker(root: RawPath(scratch.path), followLinks: true).collect(threads: threads)
    #expect(walk.summary.unreadable.isEmpty)
    #expect(walk.files.count == 1)
    #expect(
      walk.files.first.map { String(decoding: $0.relative, as: UTF8.self).hasSuffix("/inner/a.txt") } == true)
    #expect(walk.summary.loops == 8)
  }
}

/// A catalogue holding a large root and small ones whose names sort right beside each other:
/// a small root's known files are read through the range of its paths, and none of its
/// neighbours' (nor of a root inside it) is taken for its own.
@Test(arguments: TestCatalogues.kinds) func smallRootsOfALargeCatalogueKnowOnlyTheirFiles(
  store kind: CatalogueStoreKind
) async throws {
  let scratch = try TemporaryDirectory()
  for number in 0..<40 { try scratch.write("large/f\(number).txt", Array("large \(number)\n".utf8)) }
  for root in ["b", "b.old", "b0", "b-x"] {
    try scratch.write("\(root)/one.txt", Array("\(root) one\n".utf8))
    try scratch.write("\(root)/two.txt", Array("\(root) two\n".utf8))
  }
  try scratch.write("b/inner/three.txt", Array("inner\n".utf8))
  let store = try CatalogStore.openForWriting(
    at: CatalogLocation(try TestCatalogues.location(kind, in: scratch.path)), shelfVersion: "1.0")
  var options = IndexOptions()
  options.recentWindow = 0
  let indexer = Indexer(store: store, options: options)
  for root in ["large", "b/inner", "b", "b.old", "b0", "b-x"] {
    _ = try await indexer.index(root: RawPath(scratch.path + "/" + root))
  }
  let unchanged = try await indexer.index(root: RawPath(scratch.path + "/b"))
  #expect((unchanged.files, unchanged.unchanged, unchanged.added, unchanged.removed) == (2, 2, 0, 0))
  try FileManager.default.removeItem(atPath: scratch.file("b/one.txt"))
  try scratch.write("b/two.txt", Array("b two, longer\n".utf8))
  let changed = try await indexer.index(root: RawPath(scratch.path + "/b"))
  #expect((changed.files, changed.unchanged, changed.updated, changed.removed) == (1, 0, 1, 1))
  for (root, files) in [("b/inner", 1), ("b.old", 2), ("b0", 2), ("b-x", 2), ("large", 40)] {
    let rescan = try await indexer.index(root: RawPath(scratch.path + "/" + root))
    #expect((rescan.files, rescan.unchanged, rescan.added, rescan.removed) == (files, files, 0, 0), "\(root)")
  }
}

/// A tree of `count` files in each of `folders` folders, and known files that hold every file
/// of it unchanged but the first of each folder (changed) and one file gone from the tree.
private func treeWithKnownFiles(folders: Int, count: Int) throws -> (TemporaryDirectory, KnownFiles) {
  let scratch = try TemporaryDirectory()
  var known = KnownFiles()
  var id: Int64 = 1
  for folder in 0..<folders {
    for number in 0..<count {
      let file = try scratch.write("d\(folder)/f\(number).txt", Array("\(folder) \(number)\n".utf8))
      let status = try FileStatus.stat(RawPath(file))
      try TreeWalker.realPath(RawPath(file)).bytes.withUnsafeBytes { path in
        known.add(
          path: path,
          KnownFile(
            id: id, path: RawPath(bytes: []), size: status.size + (number == 0 ? 1 : 0),
            mtime: status.mtimeNanoseconds, ctime: status.ctimeNanoseconds, inode: status.inode,
            device: status.device, trusted: true, extractorVersion: 4))
      }
      id += 1
    }
  }
  Array((try TreeWalker.realPath(RawPath(scratch.path)).bytes) + Array("/gone.txt".utf8)).withUnsafeBytes {
    known.add(
      path: $0,
      KnownFile(
        id: id, path: RawPath(bytes: []), size: 1, mtime: 1, ctime: 1, inode: 1, device: 1, trusted: true,
        extractorVersion: 4))
  }
  known.indexPaths()
  return (scratch, known)
}

private func passed(_ sieve: UnchangedFileSieve, _ index: Int) -> Bool {
  sieve.loaded.map { $0.passed[index] != 0 } ?? false
}

@Test func aWalkPassesOverTheFilesItsSieveKnowsUnchanged() throws {
  let (scratch, known) = try treeWithKnownFiles(folders: 5, count: 20)
  for threads in [1, 2] {
    let sieve = UnchangedFileSieve(extractorVersion: 4, retryingFailures: false)
    sieve.publish(known)
    var walker = try TreeWalker(root: RawPath(scratch.path))
    walker.sieve = sieve
    let walk = walker.collect(threads: threads)
    // The changed first file of each folder is reported; the 95 others are passed over.
    #expect(walk.summary.passedUnchanged == 95)
    #expect(
      walk.files.map { String(decoding: $0.path.lastComponent.bytes, as: UTF8.self) }
        == Array(
          repeating: "f0.txt", count: 5))
    #expect(known.indices.filter { passed(sieve, $0) }.count == 95)
    #expect(
      known.indices.filter { !passed(sieve, $0) }.map { known.entry(at: $0).size }.sorted() == [
        1, 5, 5, 5, 5, 5,
      ])
  }
  // An older reader's entries are all read again.
  let older = UnchangedFileSieve(extractorVersion: 5, retryingFailures: false)
  older.publish(known)
  var walker = try TreeWalker(root: RawPath(scratch.path))
  walker.sieve = older
  let walk = walker.collect(threads: 2)
  #expect((walk.summary.passedUnchanged, walk.files.count) == (0, 100))
}

@Test func filesWalkedBeforeTheSieveIsReadyArePassedOverOnceItIs() throws {
  // 600 files in each folder: the walk asks whether to stop after 512 entries, which is
  // when the sieve is handed what is known, with the first folder's files already kept.
  let (scratch, known) = try treeWithKnownFiles(folders: 2, count: 600)
  let sieve = UnchangedFileSieve(extractorVersion: 4, retryingFailures: false)
  var walker = try TreeWalker(root: RawPath(scratch.path))
  walker.sieve = sieve
  let walk = walker.collect(threads: 1) {
    if sieve.loaded == nil { sieve.publish(known) }
    return false
  }
  #expect(walk.summary.passedUnchanged == 1198)
  #expect(walk.files.count == 2)
  #expect(known.indices.filter { passed(sieve, $0) }.count == 1198)
}
