import ShelfCore
import Testing

@testable import ShelfFacts

/// Hostile headers of the older formats and of HEIF's boxes: sizes that lie, offsets past the
/// end, cut files. Each ends in an error or fewer facts, never a trap. (What real files give is
/// checked on ImageMagick's and Pillow's in ClassicImageFormatsInfoTests.)
private func read(_ file: [UInt8], _ mime: String) throws -> ImageFacts {
  try ImageHeaderReader.read(MemoryBytes(file), mime: mime)
}

private func sniffedMIME(_ file: [UInt8]) throws -> String {
  try ContentSniffer.sniff(MemoryBytes(file), fileExtension: "").mime
}

private func pcx(x0: Int = 0, y0: Int = 0, x1: Int, y1: Int) -> [UInt8] {
  [10, 5, 1, 8] + le16(x0) + le16(y0) + le16(x1) + le16(y1) + [UInt8](repeating: 0, count: 53) + [3]
    + [UInt8](repeating: 0, count: 62)
}

@Test func pcxWindowIsInclusiveAndAnInvertedOneIsRefused() throws {
  #expect(try sniffedMIME(pcx(x0: 10, y0: 5, x1: 129, y1: 84)) == "image/vnd.zbrush.pcx")
  let facts = try read(pcx(x0: 10, y0: 5, x1: 129, y1: 84), "image/vnd.zbrush.pcx")
  #expect(facts.width == 120 && facts.height == 80 && facts.colorType == .rgb)
  #expect(throws: HeaderError.self) { try read(pcx(x0: 9, x1: 3, y1: 3), "image/vnd.zbrush.pcx") }
  #expect(throws: HeaderError.self) { try read(Array(pcx(x1: 3, y1: 3).prefix(60)), "image/vnd.zbrush.pcx") }
}

@Test func dcxPagesPastTheEndAreRefused() throws {
  let page = pcx(x1: 63, y1: 47)
  let good = le32(0x3ADE_68B1) + le32(16) + le32(16) + le32(0) + page
  let facts = try read(good, "image/x-dcx")
  #expect(facts.width == 64 && facts.height == 48 && facts.frames == 2)
  let lying = le32(0x3ADE_68B1) + le32(0x7FFF_FFFF) + le32(0)
  #expect(throws: HeaderError.self) { try read(lying, "image/x-dcx") }
  // A directory of 1,024 non-zero offsets and no end: 1,024 pages at most.
  let full = le32(0x3ADE_68B1) + (0..<1100).flatMap { _ in le32(4404) } + page
  #expect(try read(full, "image/x-dcx").frames == 1024)
}

@Test func sgiAndSunRasterRefuseZeroSizes() throws {
  let sgi = be16(474) + [0, 1] + be16(3) + be16(0) + be16(80) + be16(3)
  #expect(throws: HeaderError.self) { try read(sgi, "image/x-sgi") }
  let sun = be32(0x59A6_6A95) + be32(0xFFFF_FFFF) + be32(0) + be32(24) + [UInt8](repeating: 0, count: 16)
  #expect(throws: HeaderError.self) { try read(sun, "image/x-sun-raster") }
  let huge =
    be32(0x59A6_6A95) + be32(0xFFFF_FFFF) + be32(0xFFFF_FFFF) + be32(8) + [UInt8](repeating: 0, count: 16)
  #expect(try read(huge, "image/x-sun-raster").width == 0xFFFF_FFFF)
}

@Test func xbmNeedsBothDefinesAndTheBitsArray() throws {
  let xbm = bytes("#define a_width 12\n#define a_height 7\nstatic char a_bits[] = {0};\n")
  #expect(try sniffedMIME(xbm) == "image/x-xbitmap")
  #expect(try read(xbm, "image/x-xbitmap").width == 12)
  // A C header with the same defines but no bitmap is text; digits beyond nine are refused.
  #expect(try sniffedMIME(bytes("#define a_width 12\n#define a_height 7\nint x;\n")) == "text/plain")
  let long = bytes("#define a_width 99999999999999999999\n#define a_height 7\nchar a_bits[] = {};\n")
  #expect(throws: HeaderError.self) { try read(long, "image/x-xbitmap") }
}

@Test func epsBoundingBoxesAndDOSHeadersThatLie() throws {
  let eps = bytes("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 10.7 20 130.2 100.9\n%%EndComments\n")
  #expect(try sniffedMIME(eps) == "image/x-eps")
  let facts = try read(eps, "image/x-eps")
  #expect(facts.width == 120 && facts.height == 80)
  let atEnd = bytes(
    "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: (atend)\n%%EndComments\n%%Trailer\n%%BoundingBox: 0 0 5 6\n")
  #expect(try read(atEnd, "image/x-eps").height == 6)
  // The DOS header's offsets and lengths point past the end: cut to the file, then no PostScript.
  let dos =
    le32(0xC6D3_D0C5) + le32(0x7FFF_FFFF) + le32(0xFFFF_FFFF) + le32(0) + le32(0) + le32(9)
    + le32(0xFFFF_FFFF)
    + [0xFF, 0xFF]
  #expect(throws: HeaderError.self) { try read(dos, "image/x-eps") }
  #expect(throws: HeaderError.self) {
    try read(bytes("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 1e300 5\n"), "image/x-eps")
  }
}

private func fits(_ cards: [String], blocks: Int = 1) -> [UInt8] {
  var header = cards.flatMap { bytes($0) + [UInt8](repeating: 0x20, count: 80 - $0.utf8.count) }
  header += [UInt8](repeating: 0x20, count: 2880 * blocks - header.count)
  return header
}

@Test func fitsSizesThatLieAndHeadersWithoutEnd() throws {
  let good = fits([
    "SIMPLE  =                    T", "NAXIS   =                    2", "NAXIS1  = 640",
    "NAXIS2  = 480 / rows", "END",
  ])
  #expect(try sniffedMIME(good) == "image/fits")
  #expect(try read(good, "image/fits").height == 480)
  let huge = fits([
    "SIMPLE  =                    T", "NAXIS   = 2", "NAXIS1  = 99999999999999999999", "NAXIS2  = 1", "END",
  ])
  #expect(throws: HeaderError.self) { try read(huge, "image/fits") }
  let endless = fits(["SIMPLE  =                    T", "NAXIS   = 2"], blocks: 70)
  #expect(throws: HeaderError.self) { try read(endless, "image/fits") }
  // No image in the primary unit and no extension after it.
  let empty = fits(["SIMPLE  =                    T", "NAXIS   = 0", "END"]) + fits(["COMMENT", "END"])
  #expect(throws: HeaderError.self) { try read(empty, "image/fits") }
}

@Test func icnsFramesAreTheDistinctSizesPillowReads() throws {
  func element(_ type: String, _ length: Int = 8) -> [UInt8] {
    bytes(type) + be32(length) + [UInt8](repeating: 0, count: length - 8)
  }
  // is32 and its s8mk mask and icp4 are one 16×16 size; ic13 is 128 at 2×; ICN# is not Pillow's.
  let body =
    element("is32", 12) + element("s8mk", 12) + element("icp4", 12) + element("ic13", 12)
    + element("ICN#", 12)
  let facts = try read(bytes("icns") + be32(8 + body.count) + body, "image/x-icns")
  #expect(facts.frames == 2 && facts.width == 256)
  let classic = element("ICN#", 12) + element("ich8", 12)
  let old = try read(bytes("icns") + be32(8 + classic.count) + classic, "image/x-icns")
  #expect(old.frames == 2 && old.width == 48)
}

private func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + bytes(type) + body }
private func fullBox(_ type: String, _ version: UInt8, _ body: [UInt8]) -> [UInt8] {
  box(type, [version, 0, 0, 0] + body)
}

@Test func heifBoxesThatLieGiveNothing() throws {
  let ipco = box("ipco", fullBox("ispe", 0, be32(300) + be32(200)) + box("irot", [1]))
  let ipma = fullBox("ipma", 0, be32(1) + be16(1) + [2, 0x81, 0x02])
  let iinf = fullBox("iinf", 0, be16(1) + fullBox("infe", 2, be16(1) + be16(0) + bytes("unci") + [0]))
  let meta = fullBox("meta", 0, fullBox("pitm", 0, be16(1)) + iinf + box("iprp", ipco + ipma))
  let file = box("ftyp", bytes("heic") + be32(0) + bytes("mif1")) + meta
  let item = try HEIFBoxes(source: MemoryBytes(file)).primaryItem()
  #expect(item?.type == "unci" && item?.width == 200 && item?.height == 300)
  // An association past the property list, a box claiming 4 GiB, a 64-bit size of 2^63 + 1.
  let stray = fullBox("ipma", 0, be32(0xFFFF_FFFF) + be16(1) + [1, 0x7F])
  let badMeta = fullBox("meta", 0, fullBox("pitm", 0, be16(1)) + iinf + box("iprp", ipco + stray))
  #expect(try HEIFBoxes(source: MemoryBytes(badMeta)).primaryItem() == nil)
  let lying = be32(0xFFFF_FFFF) + bytes("meta") + [0, 0, 0, 0] + fullBox("pitm", 0, be16(1))
  #expect(try HEIFBoxes(source: MemoryBytes(lying)).primaryItem() == nil)
  // A child whose 64-bit size field lies past its parent's end (the fuzzer's find).
  let cut = box("moov", be32(1) + bytes("trak") + be32(0)) + be32(0)
  #expect(try HEIFBoxes(source: MemoryBytes(cut)).pictureTrack() == nil)
  let wide = be32(1) + bytes("moov") + [0x80, 0, 0, 0, 0, 0, 0, 1]
  #expect(try HEIFBoxes(source: MemoryBytes(wide)).pictureTrack() == nil)
}
