import Foundation
import ShelfTestSupport
import Testing

@testable import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Trashing as the freedesktop.org Trash specification says: the file is renamed into
/// `files/`, its `.trashinfo` holds the original path (percent-encoded, any bytes) and the local
/// deletion time exactly, names never collide, and a file on another filesystem goes to that
/// filesystem's own `$topdir/.Trash-$uid`. One at a time: two of them make and remove the
/// trash folders at the top of /dev/shm.
@Suite(.serialized) struct FreedesktopTrashTests {
  static let deletedAt: Int64 = 1_700_000_000

  /// The deletion date as the specification wants it, worked out here with the C library.
  static var expectedDate: String {
    var time = time_t(deletedAt)
    var parts = tm()
    _ = localtime_r(&time, &parts)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }

  static func contents(_ path: RawPath) -> [UInt8]? {
    let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      guard count > 0 else { return count == 0 ? result : nil }
      result += buffer[..<count]
    }
  }

  static func create(_ path: RawPath, _ bytes: [UInt8]) throws {
    let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
    guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
    defer { close(descriptor) }
    #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
  }

  static func exists(_ path: RawPath) -> Bool { (try? FileStatus.lstat(path)) != nil }

  static func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  @Test func aFileGoesToTheHomeTrashWithItsPathEncoded() throws {
    let scratch = try TemporaryDirectory()
    try scratch.makeDirectory("photos")
    let folder = Self.realPath(scratch.file("photos"))
    // A space and a byte that is not UTF-8: both must come back from the .trashinfo exactly.
    let name = Array("a b".utf8) + [0xFF] + Array(".jpg".utf8)
    let original = RawPath(folder).appending(RawPath(bytes: name))
    let content = Array("the photo".utf8)
    try Self.create(original, content)
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": scratch.file("data"), "HOME": "/nonexistent"])
    #expect(trash.homeTrash == scratch.raw("data/Trash"))

    let moved = try trash.trash(original, deletedAt: Self.deletedAt)

    #expect(moved == scratch.raw("data/Trash/files").appending(RawPath(bytes: name)))
    #expect(!Self.exists(original))
    #expect(Self.contents(moved) == content)
    let info = scratch.raw("data/Trash/info").appending(RawPath(bytes: name + Array(".trashinfo".utf8)))
    let expected = "[Trash Info]\nPath=\(folder)/a%20b%FF.jpg\nDeletionDate=\(Self.expectedDate)\n"
    #expect(Self.contents(info) == Array(expected.utf8))
    for part in ["data/Trash/info", "data/Trash/files"] {
      #expect(try FileStatus.lstat(scratch.raw(part)).mode & 0o7777 == 0o700)
    }
  }

  @Test func aSecondFileOfTheSameNameGetsADistinctName() throws {
    let scratch = try TemporaryDirectory()
    let trash = FreedesktopTrash(environment: ["HOME": scratch.file("home")])
    #expect(trash.homeTrash == scratch.raw("home/.local/share/Trash"))
    var moved: [RawPath] = []
    for (index, folder) in ["one", "two", "three"].enumerated() {
      try scratch.write("\(folder)/photo.jpg", [UInt8(index)])
      moved.append(try trash.trash(scratch.raw("\(folder)/photo.jpg"), deletedAt: Self.deletedAt))
    }
    let files = scratch.raw("home/.local/share/Trash/files")
    #expect(moved == ["photo.jpg", "photo.2.jpg", "photo.3.jpg"].map { files.appending($0) })
    for (index, (entry, folder)) in zip(
      ["photo.jpg", "photo.2.jpg", "photo.3.jpg"], ["one", "two", "three"]
    )
    .enumerated() {
      #expect(Self.contents(files.appending(entry)) == [UInt8(index)])
      let info = scratch.raw("home/.local/share/Trash/info/\(entry).trashinfo")
      let path = Self.realPath(scratch.file(folder)) + "/photo.jpg"
      #expect(
        Self.contents(info) == Array("[Trash Info]\nPath=\(path)\nDeletionDate=\(Self.expectedDate)\n".utf8))
    }
  }

  /// A file left in `files/` by another program without its `.trashinfo` is never overwritten.
  @Test func anOrphanInFilesIsNotOverwritten() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("data/Trash/files/notes", Array("orphan".utf8))
    try scratch.write("notes", Array("new".utf8))
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": scratch.file("data")])
    let moved = try trash.trash(scratch.raw("notes"), deletedAt: Self.deletedAt)
    #expect(moved == scratch.raw("data/Trash/files/notes.2"))
    #expect(Self.contents(scratch.raw("data/Trash/files/notes")) == Array("orphan".utf8))
    #expect(Self.contents(moved) == Array("new".utf8))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.file("data/Trash/info")) == [
        "notes.2.trashinfo"
      ])
  }

  @Test func aMissingFileLeavesNoTrashInfo() throws {
    let scratch = try TemporaryDirectory()
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": scratch.file("data")])
    let error = #expect(throws: FileError.self) {
      try trash.trash(scratch.raw("gone.txt"), deletedAt: Self.deletedAt)
    }
    #expect(error?.isNoSuchFile == true)
    let info = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("data/Trash/info"))) ?? []
    #expect(info.isEmpty)
  }

  @Test func environmentChoosesTheHomeTrash() {
    #expect(
      FreedesktopTrash(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"]).homeTrash
        == RawPath("/x/data/Trash"))
    // The base directory specification ignores a relative XDG_DATA_HOME.
    #expect(
      FreedesktopTrash(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"]).homeTrash
        == RawPath("/home/u/.local/share/Trash"))
    #expect(FreedesktopTrash(environment: ["XDG_DATA_HOME": ""]).homeTrash == nil)
    #expect(FreedesktopTrash(environment: [:], userID: 1234).userID == 1234)
  }

  @Test func pathsArePercentEncodedAsRFC2396Says() {
    let path = RawPath(bytes: Array("/a b/100%+x#?é".utf8) + [0xFF, 0x0A] + Array("-_.!~*'()".utf8))
    #expect(FreedesktopTrash.percentEncoded(path) == "/a%20b/100%25%2Bx%23%3F%C3%A9%FF%0A-_.!~*'()")
  }

  @Test func entryNamesKeepTheExtensionAndFitWithTrashInfo() {
    func entry(_ name: String, _ number: Int) -> String {
      String(decoding: FreedesktopTrash.entryName(RawPath(name), number: number).bytes, as: UTF8.self)
    }
    #expect(entry("photo.jpg", 1) == "photo.jpg")
    #expect(entry("photo.jpg", 2) == "photo.2.jpg")
    #expect(entry("archive.tar.gz", 12) == "archive.12.tar.gz")
    #expect(entry("notes", 3) == "notes.3")
    #expect(entry(".hidden", 2) == ".hidden.2")
    let long = String(repeating: "x", count: 250) + ".jpg"
    let cut = entry(long, 2)
    #expect(cut.utf8.count == 245)
    #expect(cut.hasSuffix(".2.jpg"))
  }

  /// /dev/shm is a tmpfs of its own: its files go to `/dev/shm/.Trash-$uid`, with a `Path`
  /// relative to /dev/shm, never to the home trash on /tmp's disk. A `.Trash-$uid` that is a
  /// symbolic link is refused first. What the test made in /dev/shm is removed at its end.
  @Test(
    .enabled(
      if: ScratchFolder.sharedMemoryIsOtherFilesystem,
      "needs /dev/shm on another filesystem than /tmp (it is the same device here)"))
  func aFileOnAnotherFilesystemGoesToItsTopDirectoryTrash() throws {
    let scratch = try TemporaryDirectory()
    let shared = try ScratchFolder()
    let folderName = String(shared.path.dropFirst("/dev/shm/".count))
    let uid = getuid()
    let topTrash = "/dev/shm/.Trash-\(uid)"
    let madeHere = !Self.exists(RawPath(topTrash))
    let name = "clip \(folderName).wav"
    try shared.write(name, Array("sound".utf8))
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": scratch.file("data")])
    defer {
      if madeHere {
        try? FileManager.default.removeItem(atPath: topTrash)
      } else {
        unlink("\(topTrash)/files/\(name)")
        unlink("\(topTrash)/info/\(name).trashinfo")
      }
    }

    if madeHere {
      #expect(symlink(scratch.path, topTrash) == 0)
      let error = #expect(throws: FileError.self) {
        try trash.trash(shared.raw(name), deletedAt: Self.deletedAt)
      }
      #expect(error?.description == "\(topTrash): is not a folder owned by user \(uid): not used as a trash")
      #expect(Self.exists(shared.raw(name)))
      #expect(unlink(topTrash) == 0)
    }

    let moved = try trash.trash(shared.raw(name), deletedAt: Self.deletedAt)

    #expect(moved == RawPath("\(topTrash)/files/\(name)"))
    #expect(!Self.exists(shared.raw(name)))
    #expect(Self.contents(moved) == Array("sound".utf8))
    let encoded = "\(folderName)/clip%20\(folderName).wav"
    #expect(
      Self.contents(RawPath("\(topTrash)/info/\(name).trashinfo"))
        == Array("[Trash Info]\nPath=\(encoded)\nDeletionDate=\(Self.expectedDate)\n".utf8))
    let status = try FileStatus.lstat(RawPath(topTrash))
    #expect(status.type == .directory)
    if madeHere { #expect(status.mode & 0o7777 == 0o700) }
    #expect(!Self.exists(scratch.raw("data/Trash/files/\(name)")), "not in the home trash")
  }

  /// An administrator's `$topdir/.Trash` is used (as `.Trash/$uid`) only when it has the sticky
  /// bit; without it the files go to `$topdir/.Trash-$uid` as before. Runs only where /dev/shm has
  /// neither yet, and removes both.
  @Test(
    .enabled(
      if: ScratchFolder.sharedMemoryIsOtherFilesystem
        && !FreedesktopTrashTests.exists(RawPath("/dev/shm/.Trash"))
        && !FreedesktopTrashTests.exists(RawPath("/dev/shm/.Trash-\(getuid())")),
      "needs /dev/shm on another filesystem than /tmp, without a .Trash or .Trash-$uid of its own"))
  func aSharedTrashIsUsedOnlyWithTheStickyBit() throws {
    let shared = try ScratchFolder()
    let folderName = String(shared.path.dropFirst("/dev/shm/".count))
    let uid = getuid()
    defer {
      try? FileManager.default.removeItem(atPath: "/dev/shm/.Trash")
      try? FileManager.default.removeItem(atPath: "/dev/shm/.Trash-\(uid)")
    }
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": "/nonexistent/data"])
    #expect(mkdir("/dev/shm/.Trash", 0o777) == 0 && chmod("/dev/shm/.Trash", 0o777) == 0)
    try shared.write("plain.txt", Array("plain".utf8))
    let withoutSticky = try trash.trash(shared.raw("plain.txt"), deletedAt: Self.deletedAt)
    #expect(withoutSticky == RawPath("/dev/shm/.Trash-\(uid)/files/plain.txt"))
    #expect(!Self.exists(RawPath("/dev/shm/.Trash/\(uid)")))

    #expect(chmod("/dev/shm/.Trash", 0o1777) == 0)
    try shared.write("sticky.txt", Array("sticky".utf8))
    let withSticky = try trash.trash(shared.raw("sticky.txt"), deletedAt: Self.deletedAt)
    #expect(withSticky == RawPath("/dev/shm/.Trash/\(uid)/files/sticky.txt"))
    #expect(Self.contents(withSticky) == Array("sticky".utf8))
    #expect(
      Self.contents(RawPath("/dev/shm/.Trash/\(uid)/info/sticky.txt.trashinfo"))
        == Array("[Trash Info]\nPath=\(folderName)/sticky.txt\nDeletionDate=\(Self.expectedDate)\n".utf8))
    #expect(try FileStatus.lstat(RawPath("/dev/shm/.Trash/\(uid)")).mode & 0o7777 == 0o700)
  }
}
