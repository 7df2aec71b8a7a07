import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The atomic writer: the target gets exactly the bytes written, no temporary file is left
/// behind, and a write that fails or is abandoned leaves the target byte for byte as it was.
@Suite struct AtomicFileWriterTests {
  static func contents(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  static func names(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
  }

  @Test func writesTheWholeContentAndLeavesNoTemporaryFile() throws {
    let scratch = try TemporaryDirectory()
    let target = try scratch.write("out/picture.png", Array("old content".utf8))
    let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    try AtomicFileWriter.write(bytes, to: RawPath(target))
    #expect(Self.contents(target) == bytes)
    #expect(try Self.names(in: scratch.file("out")) == ["picture.png"])
  }

  /// `append(contentsOf:)` copies a file inside the kernel (`sendfile`): byte for byte, after
  /// what was written before, and an empty file adds nothing.
  @Test func appendsAFileByteForByte() throws {
    let scratch = try TemporaryDirectory()
    let bytes = (0..<(3 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    let source = try RegularFile(path: RawPath(try scratch.write("source.bin", bytes)))
    let empty = try RegularFile(path: RawPath(try scratch.write("empty.bin", [])))
    let target = scratch.file("copy.bin")
    let writer = try AtomicFileWriter(target: RawPath(target))
    try writer.write(Array("head:".utf8))
    #expect(try writer.append(contentsOf: source) == Int64(bytes.count))
    #expect(try writer.append(contentsOf: empty) == 0)
    try writer.commit()
    #expect(Self.contents(target) == Array("head:".utf8) + bytes)
  }

  @Test func streamsInPartsCreatesFoldersAndSetsModeAndTime() throws {
    let scratch = try TemporaryDirectory()
    let target = scratch.raw("a/b/recording.wav")
    let writer = try AtomicFileWriter(
      target: target,
      options: AtomicFileWriter.Options(mode: 0o640, modificationTime: 1_000_000_000_123_456_789))
    try writer.write(Array("RIFF".utf8))
    #expect(Self.contents(scratch.file("a/b/recording.wav")) == nil, "nothing visible before commit")
    try writer.write(Array("WAVE".utf8))
    try writer.commit()
    #expect(Self.contents(scratch.file("a/b/recording.wav")) == Array("RIFFWAVE".utf8))
    let status = try FileStatus.stat(target)
    #expect(status.mode & 0o7777 == 0o640)
    #expect(status.mtimeNanoseconds == 1_000_000_000_123_456_789)
    #expect(try Self.names(in: scratch.file("a/b")) == ["recording.wav"])
  }

  @Test func anAbandonedWriteLeavesTheTargetUntouched() throws {
    let scratch = try TemporaryDirectory()
    let original = Array("the user's file".utf8)
    let target = try scratch.write("keep.txt", original)
    do {
      let writer = try AtomicFileWriter(target: RawPath(target))
      try writer.write(Array("half of a new".utf8))
      #expect(try Self.names(in: scratch.path).count == 2, "the temporary file exists while writing")
    }
    #expect(Self.contents(target) == original)
    #expect(try Self.names(in: scratch.path) == ["keep.txt"])
  }

  @Test func aTargetThatIsNotARegularFileIsNeverReplaced() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("photo.png/inside.txt", Array("inside".utf8))
    let error = #expect(throws: FileError.self) {
      try AtomicFileWriter.write(Array("new".utf8), to: scratch.raw("photo.png"))
    }
    #expect(
      error
        == FileError(
          path: scratch.raw("photo.png"), reason: "is a directory, not a regular file", failure: .cannotCreate
        ))
    #expect(try Self.names(in: scratch.path) == ["photo.png"])
    #expect(Self.contents(scratch.file("photo.png/inside.txt")) == Array("inside".utf8))
    #expect(mkfifo(scratch.file("pipe"), 0o644) == 0)
    #expect(throws: FileError.self) { try AtomicFileWriter.write(Array("new".utf8), to: scratch.raw("pipe")) }
    #expect(try FileStatus.lstat(scratch.raw("pipe")).type == .fifo)
    #expect(try Self.names(in: scratch.path) == ["photo.png", "pipe"])
  }

  @Test func aFailedRenameLeavesTheTargetUntouchedAndRemovesTheTemporaryFile() throws {
    let scratch = try TemporaryDirectory()
    // A folder appears in the target's place after the data was written: the rename fails
    // (EISDIR), the folder and its content stay, no temporary file is left.
    let target = scratch.raw("late.png")
    let options = AtomicFileWriter.Options(beforeRename: { _ in
      _ = try? FileManager.default.createDirectory(
        atPath: target.utf8String! + "/inside", withIntermediateDirectories: true)
    })
    let error = #expect(throws: FileError.self) {
      try AtomicFileWriter.write(Array("new".utf8), to: target, options: options)
    }
    #expect(error?.failure == .cannotCreate)
    #expect(error?.path == target)
    #expect(try Self.names(in: scratch.path) == ["late.png"])
    #expect(try Self.names(in: scratch.file("late.png")) == ["inside"])
  }

  @Test func aTargetFolderThatCannotBeMadeIsACannotCreateError() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("file", Array("x".utf8))
    let error = #expect(throws: FileError.self) {
      try AtomicFileWriter.write(Array("new".utf8), to: scratch.raw("file/below/out.png"))
    }
    #expect(error?.failure == .cannotCreate)
    #expect(Self.contents(scratch.file("file")) == Array("x".utf8))
  }

  @Test func aSymbolicLinkResolvesToItsTarget() throws {
    let scratch = try TemporaryDirectory()
    let real = try scratch.write("real.png", Array("png".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: scratch.file("link.png"), withDestinationPath: "real.png")
    #expect(AtomicFileWriter.resolvedTarget(scratch.raw("link.png")) == RawPath(real))
    #expect(AtomicFileWriter.resolvedTarget(RawPath(real)) == RawPath(real))
    try AtomicFileWriter.write(
      Array("new".utf8), to: AtomicFileWriter.resolvedTarget(scratch.raw("link.png")))
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("link.png")) == "real.png")
    #expect(Self.contents(real) == Array("new".utf8))
  }
}
