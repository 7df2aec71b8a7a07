import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// ShelfCore's writers stay in the folder they opened, replace only the file they looked at,
/// and clear the temporary files of dead runs.
@Suite struct WriteContainmentCoreTests {
  static func bytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  @Test func aContainedDirectoryRefusesALinkedFolderAndDotDot() throws {
    let scratch = try TemporaryDirectory()
    try scratch.makeDirectory("out")
    try scratch.makeDirectory("outside")
    #expect(symlink(scratch.file("outside"), scratch.file("out/link")) == 0)
    let out = try ContainedDirectory(scratch.raw("out"), creating: false)
    #expect(throws: ContainmentError(path: scratch.raw("out/link"), type: .symbolicLink)) {
      try out.folder(RawPath("link/sub"))
    }
    #expect(throws: FileError.self) { try out.folder(RawPath("a/../../outside")) }
    let made = try out.folder(RawPath("a/b"))
    try AtomicFileWriter(name: RawPath("f"), in: made).commit()
    #expect(FileManager.default.fileExists(atPath: scratch.file("out/a/b/f")))
    #expect(try FileManager.default.subpathsOfDirectory(atPath: scratch.file("outside")).isEmpty)
    #expect(out.relative(scratch.raw("out/a/b/f")) == RawPath("a/b/f"))
    #expect(out.relative(scratch.raw("outer/f")) == nil)
  }

  @Test func theTemporaryFilesOfDeadRunsAreRemovedAndNoOthers() throws {
    let scratch = try TemporaryDirectory()
    // A PID past the kernel's limit is no live process.
    let dead = try scratch.write(".a.png.shelf-99999999-3.tmp", [])
    let mine = try scratch.write(".b.png.shelf-\(getpid())-1.tmp", [])
    let other = try scratch.write(".c.png.shelf-x-1.tmp", [])
    let user = try scratch.write("notes.shelf-99999999-1.tmp", [])
    #expect(AtomicFileWriter.removeLeftovers(in: try OpenFolder.open(RawPath(scratch.path))) == 1)
    #expect(!FileManager.default.fileExists(atPath: dead))
    for kept in [mine, other, user] { #expect(FileManager.default.fileExists(atPath: kept), "\(kept)") }
  }

  @Test func aFileReplacedSinceItWasReadIsNotOverwritten() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("picture.png", Array("old".utf8))
    let read = try FileStatus.lstat(RawPath(file))
    let writer = try AtomicFileWriter(target: RawPath(file), options: .init(replacing: read))
    try writer.write(Array("result of old".utf8))
    _ = try scratch.write("newer", Array("newer".utf8))
    #expect(rename(scratch.file("newer"), file) == 0)
    #expect(throws: FileError.changedSinceRead(RawPath(file))) { try writer.commit() }
    #expect(Self.bytes(file) == Array("newer".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["picture.png"])
  }

  @Test func aDuplicateReplacedSinceItWasComparedIsNeitherLinkedNorTrashed() throws {
    let scratch = try TemporaryDirectory()
    let kept = try scratch.write("kept.txt", Array("same".utf8))
    let duplicate = try scratch.write("copy.txt", Array("same".utf8))
    let compared = try FileStatus.lstat(RawPath(duplicate))
    _ = try scratch.write("newer", Array("the user's edit".utf8))
    #expect(rename(scratch.file("newer"), duplicate) == 0)
    #expect(throws: FileError.changedSinceRead(RawPath(duplicate))) {
      try DuplicateReplacement.replaceWithHardLink(
        RawPath(duplicate), keeping: RawPath(kept), expecting: compared)
    }
    let trash = FreedesktopTrash(environment: ["XDG_DATA_HOME": scratch.file("data")])
    #expect(throws: FileError.changedSinceRead(RawPath(duplicate))) {
      try trash.trash(RawPath(duplicate), deletedAt: 0, expecting: compared)
    }
    #expect(Self.bytes(duplicate) == Array("the user's edit".utf8))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["copy.txt", "kept.txt"])
  }
}

extension WriteContainmentCoreTests {
  @Test func aNewFileNeverOverwritesOneThatAppearedMeanwhile() throws {
    let scratch = try TemporaryDirectory()
    let target = scratch.file("new.txt")
    let writer = try AtomicFileWriter(target: RawPath(target), options: .init(createsOnly: true))
    try writer.write(Array("shelf's".utf8))
    _ = try scratch.write("new.txt", Array("the user's".utf8))
    #expect(throws: FileError.changedSinceRead(RawPath(target))) { try writer.commit() }
    #expect(Self.bytes(target) == Array("the user's".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["new.txt"])
    try AtomicFileWriter.write(
      Array("made".utf8), to: scratch.raw("other.txt"), options: .init(createsOnly: true))
    #expect(Self.bytes(scratch.file("other.txt")) == Array("made".utf8))
  }
}
