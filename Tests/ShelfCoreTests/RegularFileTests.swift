import ShelfCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Test func regularFilesReadAndSpecialFilesAreRefused() throws {
  var template = Array("/tmp/shelf-core-XXXXXX".utf8CString)
  let folder = String(cString: mkdtemp(&template)!)
  defer { _ = system("rm -rf '\(folder)'") }
  let file = folder + "/data.bin"
  let descriptor = creat(file, 0o644)
  _ = write(descriptor, "abcdef", 6)
  close(descriptor)

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
      path: RawPath(folder + "/none"), reason: "no such file or directory", failure: .missingInput)
  ) {
    try RegularFile(path: RawPath(folder + "/none"))
  }
}
