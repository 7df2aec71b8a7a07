import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A folder whose records fill several `getdents64` reads (3,000 names of 60 bytes and more:
/// over 240 KB of records) lists every name once, with its type, and the status of each is
/// read from the name where the listing holds it.
@Test func aLargeFolderListsEveryNameOnceWithItsType() throws {
  let scratch = try TemporaryDirectory()
  var expected: Set<String> = []
  for number in 0..<3000 {
    let name = "entry-\(number)-" + String(repeating: "x", count: 50 + number % 7)
    try scratch.write("big/" + name, Array(name.utf8))
    expected.insert(name)
  }
  try scratch.makeDirectory("big/sub")
  let descriptor = open(scratch.path + "/big", O_RDONLY | O_DIRECTORY)
  #expect(descriptor >= 0)
  defer { close(descriptor) }
  let listing = FolderListing()
  try listing.read(descriptor, path: RawPath(scratch.path + "/big"))
  var files: [String] = []
  var folders: [String] = []
  var sizesRight = true
  listing.forEach { type, name in
    let text = String(decoding: name, as: UTF8.self)
    if type == UInt8(DT_DIR) {
      folders.append(text)
    } else {
      files.append(text)
      sizesRight = sizesRight && FolderListing.status(of: name, in: descriptor)?.size == Int64(name.count)
    }
  }
  #expect(files.count == 3000)
  #expect(Set(files) == expected)
  #expect(folders == ["sub"])
  #expect(sizesRight)
}
