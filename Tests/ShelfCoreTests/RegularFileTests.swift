import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Test func regularFilesReadAndSpecialFilesAreRefused() throws {
  let scratch = try TemporaryDirectory()
  let folder = scratch.path
  let file = try scratch.write("data.bin", Array("abcdef".utf8))

  let opened = try RegularFile(path: RawPath(file))
  #expect(opened.status.size == 6)
  #expect(try opened.read(count: 3, at: 2) == Array("cde".utf8))
  #expect(try opened.read(count: 100) == Array("abcdef".utf8))
  #expect(
    throws: FileError(path: RawPath(file), reason: "file is larger than the 3-byte limit", failure: .badInput)
  ) {
    try opened.readAll(limit: 3)
  }

  #expect(mkfifo(folder + "/fifo", 0o644) == 0)
  #expect(
    throws: FileError(
      path: RawPath(folder + "/fifo"), reason: "is a FIFO, not a regular file", failure: .missingInput)
  ) {
    try RegularFile(path: RawPath(folder + "/fifo"))
  }
  #expect(symlink(file, folder + "/link") == 0)
  #expect(try RegularFile(path: RawPath(folder + "/link")).status.size == 6)
  #expect(
    throws: FileError(
      path: RawPath(folder + "/link"), reason: "is a symbolic link, not a regular file",
      failure: .missingInput)
  ) {
    try RegularFile(path: RawPath(folder + "/link"), followLinks: false)
  }
  #expect(
    throws: FileError(
      path: RawPath(folder + "/none"), reason: "no such file or directory", failure: .missingInput,
      code: ENOENT)
  ) {
    try RegularFile(path: RawPath(folder + "/none"))
  }
}

/// File times outside what nanoseconds in an Int64 count are held at its ends, never trapped on.
@Test func fileTimesOutsideTheNanosecondRangeAreHeldAtItsEnds() {
  #expect(FileStatus.nanoseconds(timespec(tv_sec: 1, tv_nsec: 5)) == 1_000_000_005)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: -1, tv_nsec: 500)) == -999_999_500)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: 20_000_000_000, tv_nsec: 0)) == .max)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: -20_000_000_000, tv_nsec: 0)) == .min)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: 9_223_372_036, tv_nsec: 999_999_999)) == .max)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_807)) == .max)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: Int.max, tv_nsec: 0)) == .max)
  #expect(FileStatus.nanoseconds(timespec(tv_sec: Int.min, tv_nsec: 0)) == .min)
}
