import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh folder under `base` (/tmp, or /dev/shm: tmpfs, another filesystem than /tmp here)
/// for one test, removed with its contents when the value goes away.
final class ScratchFolder {
  let path: String

  init(in base: String = "/dev/shm") throws {
    var template = Array("\(base)/shelf-test-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw FileError(path: RawPath(base), errno: errno, doing: "mkdtemp failed")
    }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func raw(_ relative: String) -> RawPath { RawPath(path + "/" + relative) }

  @discardableResult
  func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
    let full = path + "/" + relative
    try Data(bytes).write(to: URL(fileURLWithPath: full))
    return full
  }

  /// Whether /dev/shm is on another device than /tmp, so that tests of what crosses
  /// filesystems can run.
  static var sharedMemoryIsOtherFilesystem: Bool {
    guard let shm = try? FileStatus.stat(RawPath("/dev/shm")), let tmp = try? FileStatus.stat(RawPath("/tmp"))
    else { return false }
    return shm.type == .directory && shm.device != tmp.device
  }
}

/// Replacing a duplicate by a hard link or a reflink of the kept file: the duplicate's name ends
/// up as the kept file (or a copy sharing its blocks) or, on any refusal, exactly as it was,
/// and no temporary name is ever left in the folder.
@Suite struct DuplicateReplacementTests {
  static func contents(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  static func names(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
  }

  static func bytes(_ count: Int, seed: Int = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed &+ $0 >> 11) }
  }

  /// The type of the filesystem mounted nearest above `path` ("ext4", "tmpfs", "btrfs"), from
  /// /proc/self/mountinfo (Glibc's Swift module has no `statfs`).
  static func filesystemType(_ path: String) -> String {
    guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return "" }
    var best = (point: "", type: "")
    for line in table.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
      let point = String(fields[4])
      let inside = point == "/" || path == point || path.hasPrefix(point + "/")
      // The later line wins for one mount point: it is the mount stacked on top.
      if inside && point.count >= best.point.count { best = (point, String(fields[dash + 1])) }
    }
    return best.type
  }

  @Test func hardLinkReplacesTheDuplicateByTheKeptFile() throws {
    let scratch = try TemporaryDirectory()
    let content = Self.bytes(70_000)
    try scratch.write("kept.jpg", content)
    try scratch.write("copy of kept.jpg", content)
    let kept = scratch.raw("kept.jpg")
    let duplicate = scratch.raw("copy of kept.jpg")
    let before = try FileStatus.lstat(duplicate)
    #expect(before.inode != (try FileStatus.lstat(kept)).inode)
    #expect(try DuplicateReplacement.sameContent(duplicate, kept))

    try DuplicateReplacement.replaceWithHardLink(duplicate, keeping: kept)

    let keptAfter = try FileStatus.lstat(kept)
    let duplicateAfter = try FileStatus.lstat(duplicate)
    #expect(duplicateAfter.inode == keptAfter.inode)
    #expect(duplicateAfter.device == keptAfter.device)
    #expect(duplicateAfter.type == .regular)
    #expect(Self.contents(scratch.file("copy of kept.jpg")) == content)
    #expect(Self.contents(scratch.file("kept.jpg")) == content)
    var st = stat()
    #expect(stat(scratch.file("kept.jpg"), &st) == 0 && st.st_nlink == 2)
    #expect(try Self.names(in: scratch.path) == ["copy of kept.jpg", "kept.jpg"], "no temporary name left")
  }

  @Test func hardLinkOfTwoNamesOfOneFileChangesNothing() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("kept.png", Self.bytes(1000))
    #expect(link(scratch.file("kept.png"), scratch.file("again.png")) == 0)
    let before = try FileStatus.lstat(scratch.raw("again.png"))

    try DuplicateReplacement.replaceWithHardLink(scratch.raw("again.png"), keeping: scratch.raw("kept.png"))

    let after = try FileStatus.lstat(scratch.raw("again.png"))
    #expect(after == before, "same inode, and no rename (the status-change time is unchanged)")
    #expect(try Self.names(in: scratch.path) == ["again.png", "kept.png"])
    // A reflink of a file onto another name of itself is nothing to do either.
    try DuplicateReplacement.replaceWithReflink(scratch.raw("again.png"), keeping: scratch.raw("kept.png"))
    #expect(try FileStatus.lstat(scratch.raw("again.png")) == before)
  }

  @Test func aSymbolicLinkIsNeverReplacedNorLinkedTo() throws {
    let scratch = try TemporaryDirectory()
    let content = Self.bytes(5000)
    try scratch.write("kept.wav", content)
    try scratch.write("other.wav", content)
    #expect(symlink(scratch.file("other.wav"), scratch.file("link.wav")) == 0)
    let linkBefore = try FileStatus.lstat(scratch.raw("link.wav"))

    let asDuplicate = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithHardLink(scratch.raw("link.wav"), keeping: scratch.raw("kept.wav"))
    }
    #expect(asDuplicate?.reason == "is a symbolic link, not a regular file")
    #expect(asDuplicate?.path == scratch.raw("link.wav"))
    let asKept = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithHardLink(scratch.raw("other.wav"), keeping: scratch.raw("link.wav"))
    }
    #expect(asKept?.reason == "is a symbolic link, not a regular file")
    let byReflink = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithReflink(scratch.raw("link.wav"), keeping: scratch.raw("kept.wav"))
    }
    #expect(byReflink?.reason == "is a symbolic link, not a regular file")
    #expect(throws: FileError.self) {
      try DuplicateReplacement.sameContent(scratch.raw("link.wav"), scratch.raw("kept.wav"))
    }

    #expect(try FileStatus.lstat(scratch.raw("link.wav")) == linkBefore)
    #expect(
      try FileStatus.lstat(scratch.raw("other.wav")).inode
        != (try FileStatus.lstat(scratch.raw("kept.wav"))).inode)
    #expect(try Self.names(in: scratch.path) == ["kept.wav", "link.wav", "other.wav"])
  }

  @Test func aMissingKeptFileLeavesTheDuplicateAlone() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("dup.txt", Array("text".utf8))
    let before = try FileStatus.lstat(scratch.raw("dup.txt"))
    let error = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithHardLink(scratch.raw("dup.txt"), keeping: scratch.raw("gone.txt"))
    }
    #expect(error?.isNoSuchFile == true)
    #expect(try FileStatus.lstat(scratch.raw("dup.txt")) == before)
    #expect(try Self.names(in: scratch.path) == ["dup.txt"])
  }

  @Test(
    .enabled(
      if: ScratchFolder.sharedMemoryIsOtherFilesystem,
      "needs /dev/shm on another filesystem than /tmp (it is the same device here)"))
  func hardLinkAcrossFilesystemsIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let shared = try ScratchFolder()
    let content = Self.bytes(3000)
    try shared.write("kept.bin", content)
    try scratch.write("dup.bin", content)
    let before = try FileStatus.lstat(scratch.raw("dup.bin"))

    let error = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithHardLink(scratch.raw("dup.bin"), keeping: shared.raw("kept.bin"))
    }
    #expect(
      error?.description == "\(scratch.path)/dup.bin: is on another filesystem than \(shared.path)/kept.bin")
    #expect(error?.code == EXDEV)
    #expect(error?.failure == .cannotCreate)
    #expect(try FileStatus.lstat(scratch.raw("dup.bin")) == before)
    #expect(Self.contents(scratch.file("dup.bin")) == content)
    #expect(try Self.names(in: scratch.path) == ["dup.bin"])
  }

  /// ext4, tmpfs and overlayfs have no reflinks: the clone is refused with one clear reason and
  /// the duplicate is untouched. A filesystem that has them (Btrfs, XFS) gets the real check:
  /// same bytes, the duplicate's mode and times, and a file of its own.
  @Test(arguments: ["/tmp", "/dev/shm"])
  func reflinkReplacesOrRefusesCleanly(base: String) throws {
    let folder = try ScratchFolder(in: base)
    let content = Self.bytes(200_000, seed: 7)
    try folder.write("kept.mov", content)
    try folder.write("dup.mov", content)
    let duplicatePath = folder.path + "/dup.mov"
    #expect(chmod(duplicatePath, 0o640) == 0)
    var times = [
      timespec(tv_sec: 1_500_000_000, tv_nsec: 250), timespec(tv_sec: 1_400_000_000, tv_nsec: 123_456_789),
    ]
    #expect(utimensat(AT_FDCWD, duplicatePath, &times, 0) == 0)
    let before = try FileStatus.lstat(RawPath(duplicatePath))
    let keptInode = try FileStatus.lstat(RawPath(folder.path + "/kept.mov")).inode

    let noReflinks: Set<String> = ["ext2", "ext3", "ext4", "tmpfs", "overlay"]
    let type = Self.filesystemType(folder.path)
    do {
      try DuplicateReplacement.replaceWithReflink(
        RawPath(duplicatePath), keeping: RawPath(folder.path + "/kept.mov"))
      #expect(!noReflinks.contains(type), "a reflink succeeded on filesystem type \(type)")
      let after = try FileStatus.lstat(RawPath(duplicatePath))
      #expect(after.inode != before.inode && after.inode != keptInode)
      #expect(after.mode == before.mode)
      #expect(after.mtimeNanoseconds == before.mtimeNanoseconds)
      var st = stat()
      #expect(
        lstat(duplicatePath, &st) == 0 && st.st_atim.tv_sec == 1_500_000_000 && st.st_atim.tv_nsec == 250)
      #expect(Self.contents(duplicatePath) == content)
    } catch {
      #expect(noReflinks.contains(type), "unexpected failure on filesystem type \(type)")
      #expect(error.description == "\(duplicatePath): reflinks are not supported on this filesystem")
      #expect(error.failure == .cannotCreate)
      #expect(try FileStatus.lstat(RawPath(duplicatePath)) == before)
      #expect(Self.contents(duplicatePath) == content)
    }
    #expect(try Self.names(in: folder.path) == ["dup.mov", "kept.mov"], "no temporary file left")
  }

  @Test(
    .enabled(
      if: ScratchFolder.sharedMemoryIsOtherFilesystem,
      "needs /dev/shm on another filesystem than /tmp (it is the same device here)"))
  func reflinkAcrossFilesystemsIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let shared = try ScratchFolder()
    let content = Self.bytes(4096)
    try shared.write("kept.bin", content)
    try scratch.write("dup.bin", content)
    let before = try FileStatus.lstat(scratch.raw("dup.bin"))

    let error = #expect(throws: FileError.self) {
      try DuplicateReplacement.replaceWithReflink(scratch.raw("dup.bin"), keeping: shared.raw("kept.bin"))
    }
    #expect(
      error?.description
        == "\(scratch.path)/dup.bin: cannot reflink \(shared.path)/kept.bin: reflinks are not supported across filesystems"
    )
    #expect(error?.code == EXDEV)
    #expect(try FileStatus.lstat(scratch.raw("dup.bin")) == before)
    #expect(try Self.names(in: scratch.path) == ["dup.bin"])
  }

  @Test func sameContentComparesEveryByte() throws {
    let scratch = try TemporaryDirectory()
    // Over two 1 MiB chunks, so that the comparison goes past the first read.
    let content = Self.bytes((5 << 20) / 2, seed: 3)
    var lastDiffers = content
    lastDiffers[lastDiffers.count - 1] ^= 1
    var firstDiffers = content
    firstDiffers[0] ^= 0x80
    try scratch.write("a", content)
    try scratch.write("b", content)
    try scratch.write("last", lastDiffers)
    try scratch.write("first", firstDiffers)
    try scratch.write("shorter", Array(content.dropLast()))
    try scratch.write("empty1", [])
    try scratch.write("empty2", [])

    #expect(try DuplicateReplacement.sameContent(scratch.raw("a"), scratch.raw("b")))
    #expect(try DuplicateReplacement.sameContent(scratch.raw("a"), scratch.raw("a")))
    #expect(try !DuplicateReplacement.sameContent(scratch.raw("a"), scratch.raw("last")))
    #expect(try !DuplicateReplacement.sameContent(scratch.raw("first"), scratch.raw("a")))
    #expect(try !DuplicateReplacement.sameContent(scratch.raw("a"), scratch.raw("shorter")))
    #expect(try DuplicateReplacement.sameContent(scratch.raw("empty1"), scratch.raw("empty2")))
    #expect(try !DuplicateReplacement.sameContent(scratch.raw("empty1"), scratch.raw("a")))
    try scratch.makeDirectory("folder")
    let error = #expect(throws: FileError.self) {
      try DuplicateReplacement.sameContent(scratch.raw("a"), scratch.raw("folder"))
    }
    #expect(error?.reason == "is a directory")
  }
}
