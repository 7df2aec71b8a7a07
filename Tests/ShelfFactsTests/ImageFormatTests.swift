import ShelfCore
import Testing

@testable import ShelfFacts

private func sniff(_ file: [UInt8], _ ext: String = "") throws -> SniffResult {
  try ContentSniffer.sniff(MemoryBytes(file), fileExtension: ext)
}

private func read(_ file: [UInt8], _ mime: String) throws -> ImageFacts {
  try ImageHeaderReader.read(MemoryBytes(file), mime: mime)
}

// MARK: JPEG

/// SOI, an optional segment list, a frame header of `marker` with `components` (ids 1, 2, 3…).
private func jpeg(
  _ segments: [UInt8], marker: UInt8 = 0xC0, width: Int = 64, height: Int = 48, components: Int = 3
)
  -> [UInt8]
{
  var frame = [8] + be16(height) + be16(width) + [UInt8(components)]
  for id in 1...components { frame += [UInt8(id), 0x11, 0] }
  return [0xFF, 0xD8] + segments + [0xFF, marker] + be16(frame.count + 2) + frame + [0xFF, 0xDA, 0, 2]
}

private let jfif: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]

private func adobe(transform: UInt8) -> [UInt8] {
  [0xFF, 0xEE, 0x00, 0x0E] + Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, transform]
}

@Test func jpegJunkBeforeAMarkerIsSkippedAsLibjpegDoes() throws {
  let file = jpeg(jfif + [0x00, 0x13, 0x37, 0xFF, 0x00, 0x42])
  let facts = try ImageHeaderReader.readJPEG(MemoryBytes(file))
  #expect(facts.width == 64 && facts.height == 48)
}

@Test func jpegTruncatedAdobeSegmentIsIgnored() throws {
  let file = jpeg([0xFF, 0xEE, 0x00, 0x07] + bytes("Adobe"), components: 4)
  #expect(try ImageHeaderReader.readJPEG(MemoryBytes(file)).colorType == .cmyk)
}

@Test func jpegAdobeTransformTellsColourSpaces() throws {
  #expect(
    try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(adobe(transform: 2), components: 4))).colorType == .ycck)
  #expect(
    try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(adobe(transform: 0), components: 4))).colorType == .cmyk)
  #expect(try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(adobe(transform: 0)))).colorType == .rgb)
  #expect(try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(adobe(transform: 1)))).colorType == .ycbcr)
  #expect(try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(jfif))).colorType == .ycbcr)
  #expect(try ImageHeaderReader.readJPEG(MemoryBytes(jpeg([], components: 1))).colorType == .gray)
}

@Test(arguments: [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF] as [UInt8])
func jpegEveryStartOfFrame(_ marker: UInt8) throws {
  let facts = try ImageHeaderReader.readJPEG(MemoryBytes(jpeg(jfif + [0xFF, 0xC4, 0, 2], marker: marker)))
  #expect(facts.width == 64 && facts.height == 48)
  #expect(facts.interlaced == [0xC2, 0xC6, 0xCA, 0xCE].contains(marker))
}

// MARK: GIF

@Test func gifFramesAreCountedWithoutAGraphicControlExtension() throws {
  var file = bytes("GIF89a") + le16(3) + le16(2) + [0, 0, 0]
  for _ in 0..<5 { file += [0x2C] + le16(0) + le16(0) + le16(3) + le16(2) + [0x40, 2, 1, 0, 0] }
  file += [0x3B]
  let facts = try ImageHeaderReader.readGIF(MemoryBytes(file))
  #expect(facts.frames == 5 && facts.interlaced == true && facts.alpha == false)
}

// MARK: BMP and DIB

/// A BMP with a DIB header of `headerSize` bytes, the given bit count, compression and masks
/// (red, green, blue, alpha, written after the 40 INFO bytes).
private func bmp(
  headerSize: Int = 40, width: Int = 30, height: Int = -20, bits: Int = 24, compression: Int = 0,
  masks: [Int] = [], fileHeader: Bool = true
) -> [UInt8] {
  var dib =
    le32(headerSize) + le32(width) + le32(height & 0xFFFF_FFFF) + le16(1) + le16(bits) + le32(compression)
  dib += [UInt8](repeating: 0, count: 20)
  for mask in masks { dib += le32(mask) }
  if dib.count < headerSize { dib += [UInt8](repeating: 0, count: headerSize - dib.count) }
  let head = bytes("BM") + le32(14 + dib.count) + le32(0) + le32(14 + dib.count)
  return (fileHeader ? head : []) + dib + [UInt8](repeating: 0, count: 64)
}

@Test func bmpAlphaMaskCountsOnlyWithBitFields() throws {
  // V5, BI_BITFIELDS with an alpha mask: alpha.
  let v5 = bmp(headerSize: 124, bits: 32, compression: 3, masks: [0xFF0000, 0xFF00, 0xFF, 0xFF00_0000])
  #expect(try ImageHeaderReader.readBMP(MemoryBytes(v5)).alpha == true)
  // V4 with RGB masks and no alpha mask: no alpha (the red mask is not an alpha mask).
  let v4 = bmp(headerSize: 108, bits: 32, compression: 3, masks: [0xFF0000, 0xFF00, 0xFF, 0])
  #expect(try ImageHeaderReader.readBMP(MemoryBytes(v4)).alpha == false)
  // BI_RGB ignores whatever the mask fields hold.
  let raw = bmp(headerSize: 124, bits: 32, compression: 0, masks: [0xFF0000, 0xFF00, 0xFF, 0xFF00_0000])
  #expect(try ImageHeaderReader.readBMP(MemoryBytes(raw)).alpha == false)
  // An INFO header with BI_ALPHABITFIELDS carries four masks after it.
  let info = bmp(headerSize: 40, bits: 32, compression: 6, masks: [0xFF0000, 0xFF00, 0xFF, 0xFF00_0000])
  #expect(try ImageHeaderReader.readBMP(MemoryBytes(info)).alpha == true)
  // 16-bit ARGB1555 in a V3 header.
  let v3 = bmp(headerSize: 56, bits: 16, compression: 3, masks: [0x7C00, 0x3E0, 0x1F, 0x8000])
  let facts = try ImageHeaderReader.readBMP(MemoryBytes(v3))
  #expect(facts.alpha == true && facts.colorType == .rgba)
}

@Test func bmpBitCountIsValidated() {
  #expect(throws: HeaderError("corrupt BMP: invalid bit count 30000")) {
    try ImageHeaderReader.readBMP(MemoryBytes(bmp(bits: 30000)))
  }
  #expect(throws: HeaderError("corrupt BMP: invalid bit count 0")) {
    try ImageHeaderReader.readBMP(MemoryBytes(bmp(bits: 0)))
  }
}

@Test func bmpOS2Headers() throws {
  let core = bytes("BM") + le32(0) + le32(0) + le32(26) + le32(12) + le16(300) + le16(200) + le16(1) + le16(8)
  let facts = try ImageHeaderReader.readBMP(MemoryBytes(core + [UInt8](repeating: 0, count: 768)))
  #expect(facts.width == 300 && facts.height == 200 && facts.colorType == .palette)
  let os2v2 = bmp(headerSize: 64, width: 7, height: 9, bits: 24)
  #expect(try ImageHeaderReader.readBMP(MemoryBytes(os2v2)).width == 7)
}

@Test func bareDIBIsReadWithoutTheFileHeader() throws {
  // The `.dib` that came out as 771751936×3: a DIB header with no `BM` file header before it.
  let dib = bmp(width: 48, height: 32, bits: 24, fileHeader: false)
  let facts = try ImageHeaderReader.readBMP(MemoryBytes(dib))
  #expect(facts.width == 48 && facts.height == 32)
  #expect(try sniff(dib, "dib").mime == "image/bmp")
  #expect(try sniff(dib, "").kind == .other)  // no magic: the extension must agree
}

// MARK: TIFF

/// A little-endian TIFF whose IFDs (width, height) are chained in order; `next` overrides the
/// last IFD's next-offset; `subIFD` adds a tag 330 entry to the first.
private func tiff(pages: [(Int, Int)], lastNext: Int = 0, subIFD: Bool = false) -> [UInt8] {
  var file = bytes("II") + [42, 0] + le32(8)
  for (index, (width, height)) in pages.enumerated() {
    var entries: [(Int, Int, Int)] = [(256, 4, width), (257, 4, height), (258, 3, 8), (262, 3, 1)]
    if subIFD && index == 0 { entries.append((330, 4, 8)) }
    file += le16(entries.count)
    for (tag, type, value) in entries { file += le16(tag) + le16(type) + le32(1) + le32(value) }
    let next = index == pages.count - 1 ? lastNext : file.count + 4
    file += le32(next)
  }
  return file
}

@Test func tiffPagesAreTheMainChainOnly() throws {
  let facts = try ImageHeaderReader.readTIFF(MemoryBytes(tiff(pages: [(640, 480), (320, 240), (160, 120)])))
  #expect(facts.width == 640 && facts.height == 480 && facts.frames == 3)
  // A sub-IFD (a reduced copy) is not a page.
  #expect(try ImageHeaderReader.readTIFF(MemoryBytes(tiff(pages: [(640, 480)], subIFD: true))).frames == 1)
}

// MARK: Icons

@Test func icoLargestEntryAndEntriesAsFrames() throws {
  let entries: [(UInt8, UInt8, Int)] = [(16, 16, 32), (0, 0, 32), (48, 48, 8)]
  var file = le16(0) + le16(1) + le16(entries.count)
  let dataStart = 6 + 16 * entries.count
  for (index, (w, h, bits)) in entries.enumerated() {
    file += [w, h, 0, 0] + le16(1) + le16(bits) + le32(40) + le32(dataStart + 40 * index)
  }
  file += [UInt8](repeating: 0, count: 40 * entries.count)
  let facts = try read(file, "image/vnd.microsoft.icon")
  #expect(facts.width == 256 && facts.height == 256 && facts.frames == 3 && facts.format == "ico")
  #expect(try sniff(file).mime == "image/vnd.microsoft.icon")
}

@Test func icoPNGEntryGivesItsOwnSize() throws {
  var file = le16(0) + le16(1) + le16(1) + [0, 0, 0, 0] + le16(1) + le16(32) + le32(33) + le32(22)
  file += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + bytes("IHDR") + be32(512) + be32(512)
  file += [8, 6, 0, 0, 0]
  let facts = try read(file, "image/vnd.microsoft.icon")
  #expect(facts.width == 512 && facts.height == 512 && facts.alpha == true)
}

@Test func icnsLargestElementAndImageElementsAsFrames() throws {
  func element(_ type: String, _ length: Int) -> [UInt8] {
    bytes(type) + be32(8 + length) + [UInt8](repeating: 0, count: length)
  }
  let body =
    element("TOC ", 8) + element("is32", 20) + element("s8mk", 256) + element("ic07", 30)
    + element("ic10", 12)
  let file = bytes("icns") + be32(8 + body.count) + body
  let facts = try read(file, "image/x-icns")
  #expect(facts.width == 1024 && facts.height == 1024 && facts.frames == 3)
  #expect(try sniff(file).mime == "image/x-icns")
}

// MARK: PSD, TGA, QOI

@Test func psdSizeAndLayers() throws {
  var file =
    bytes("8BPS") + be16(1) + [0, 0, 0, 0, 0, 0] + be16(4) + be32(300) + be32(400) + be16(8) + be16(3)
  file += be32(0) + be32(0)  // colour mode data, image resources
  file += be32(100) + be32(90) + be16(0xFFFE)  // layer info: -2 layers (first alpha is the merged one)
  file += [UInt8](repeating: 0, count: 96)
  let facts = try read(file, "image/vnd.adobe.photoshop")
  #expect(facts.width == 400 && facts.height == 300 && facts.frames == 2 && facts.colorType == .rgba)
  #expect(try sniff(file).mime == "image/vnd.adobe.photoshop")
}

private func tgaHeader(width: Int, height: Int, type: UInt8 = 2, depth: UInt8 = 32, descriptor: UInt8 = 8)
  -> [UInt8]
{
  [0, 0, type, 0, 0, 0, 0, 0] + le16(0) + le16(0) + le16(width) + le16(height) + [depth, descriptor]
}

@Test func tgaByFooterOrByExtension() throws {
  let body = tgaHeader(width: 21, height: 13) + [UInt8](repeating: 0x7F, count: 21 * 13 * 4)
  let footer = le32(0) + le32(0) + bytes("TRUEVISION-XFILE.") + [0]
  #expect(try sniff(body + footer).mime == "image/x-tga")
  #expect(try sniff(body, "tga").mime == "image/x-tga")
  #expect(try sniff(body, "").kind == .other)
  // A footer beyond the bytes sniffed first is read from the end of the file.
  let large = tgaHeader(width: 100, height: 30) + [UInt8](repeating: 0x7F, count: 100 * 30 * 4)
  #expect(try sniff(large + footer).mime == "image/x-tga")
  #expect(try sniff(large).kind == .other)
  let facts = try read(body + footer, "image/x-tga")
  #expect(facts.width == 21 && facts.height == 13 && facts.alpha == true && facts.colorType == .rgba)
  // A header no TGA writer makes is refused even with the extension.
  #expect(throws: HeaderError("corrupt TGA: implausible header")) {
    try read(tgaHeader(width: 21, height: 13, type: 7), "image/x-tga")
  }
}

@Test func qoiHeader() throws {
  let file = bytes("qoif") + be32(800) + be32(600) + [4, 0] + [UInt8](repeating: 0, count: 8)
  let facts = try read(file, "image/x-qoi")
  #expect(facts.width == 800 && facts.height == 600 && facts.alpha == true)
  #expect(try sniff(file).mime == "image/x-qoi")
}

// MARK: Netpbm, XPM

@Test func netpbmPlainAndRawWithComments() throws {
  let plain = bytes("P2\n# made by hand\n3 2\n# max\n255\n0 1 2\n3 4 5\n")
  let facts = try read(plain, "image/x-portable-graymap")
  #expect(facts.width == 3 && facts.height == 2 && facts.format == "pgm" && facts.bitDepth == 8)
  #expect(try sniff(plain, "pgm").kind == .image)
  let bitmap = bytes("P1 5 4\n") + bytes(String(repeating: "0 1 0 1 0\n", count: 4))
  #expect(try read(bitmap, "image/x-portable-bitmap").width == 5)
  let raw = bytes("P6\n640 480\n65535\n") + [UInt8](repeating: 0, count: 12)
  let rgb = try read(raw, "image/x-portable-pixmap")
  #expect(rgb.width == 640 && rgb.bitDepth == 16 && rgb.colorType == .rgb)
  let pam = bytes("P7\nWIDTH 4\nHEIGHT 3\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n") + [0, 0]
  let arbitrary = try read(pam, "image/x-portable-arbitrarymap")
  #expect(arbitrary.width == 4 && arbitrary.height == 3 && arbitrary.alpha == true)
}

@Test func xpmValuesString() throws {
  let xpm = bytes(
    "/* XPM */\nstatic char *icon[] = {\n/* columns rows colors chars-per-pixel */\n\"7 5 2 1 \",\n\"  c None\",\n\". c #FF0000\",\n"
  )
  let facts = try read(xpm, "image/x-xpixmap")
  #expect(facts.width == 7 && facts.height == 5 && facts.alpha == true && facts.format == "xpm")
  let xpm2 = bytes("! XPM2\n4 2 1 1\n. c #000000\n....\n....\n")
  #expect(try sniff(xpm2).mime == "image/x-xpixmap")
  #expect(try read(xpm2, "image/x-xpixmap").width == 4)
}

// MARK: JPEG 2000

@Test func jpeg2000FileAndCodestream() throws {
  let siz =
    [0xFF, 0x4F, 0xFF, 0x51] + be16(41) + be16(0) + be32(1000) + be32(700) + be32(10) + be32(20)
    + be32(1000) + be32(700) + be32(0) + be32(0) + be16(3) + [7, 1, 1, 7, 1, 1, 7, 1, 1]
  let codestream = try read(siz, "image/x-jp2-codestream")
  #expect(codestream.width == 990 && codestream.height == 680 && codestream.bitDepth == 8)
  #expect(try sniff(siz).mime == "image/x-jp2-codestream")
  let ihdr = be32(22) + bytes("ihdr") + be32(300) + be32(500) + be16(1) + [15, 7, 0, 0]
  let file =
    [0, 0, 0, 0x0C] + bytes("jP  ") + [0x0D, 0x0A, 0x87, 0x0A] + be32(20) + bytes("ftypjp2 ") + be32(0)
    + bytes("jp2 ") + be32(8 + ihdr.count) + bytes("jp2h") + ihdr
  let facts = try read(file, "image/jp2")
  #expect(facts.width == 500 && facts.height == 300 && facts.bitDepth == 16 && facts.colorType == .gray)
  #expect(try sniff(file).mime == "image/jp2")
}

// MARK: SVG

@Test func svgSizeFromWidthHeightOrViewBox() throws {
  let sized = bytes(
    "<?xml version=\"1.0\"?>\n<!-- art -->\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"80px\"/>"
  )
  #expect(
    try sniff(sized, "svg")
      == SniffResult(
        kind: .image, mime: "image/svg+xml", detectedBy: .contentAndExtension, extensionMismatch: false))
  let facts = try read(sized, "image/svg+xml")
  #expect(facts.width == 120 && facts.height == 80 && facts.format == "svg")
  let boxed = bytes("<svg viewBox='0 0 48 32' xmlns='http://www.w3.org/2000/svg'><rect/></svg>")
  #expect(try read(boxed, "image/svg+xml").width == 48)
  let half = bytes("<svg width=\"24\" viewBox=\"0 0 48 32\"></svg>")
  #expect(try read(half, "image/svg+xml").height == 16)
  let inches = bytes("<svg width=\"1in\" height=\"50%\" viewBox=\"0 0 10 40\"></svg>")
  let measured = try read(inches, "image/svg+xml")
  #expect(measured.width == 96 && measured.height == 20)
  #expect(throws: HeaderError("SVG without a usable width, height or viewBox")) {
    try read(bytes("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"), "image/svg+xml")
  }
  // An HTML page that mentions <svg> later is not an SVG document.
  #expect(try sniff(bytes("<html><body><svg width=\"1\" height=\"1\"/></body></html>")).kind == .text)
}

/// What editors put before and inside the root: a byte-order mark, a DOCTYPE with an internal
/// subset (`>` inside brackets), a prefixed root, single quotes, non-ASCII values.
@Test func svgRootFoundPastDoctypeSubsetsAndPrefixes() throws {
  let doctype =
    [0xEF, 0xBB, 0xBF]
    + bytes(
      "<?xml version='1.0'?>\r\n<!DOCTYPE svg [ <!ENTITY ns \"<x>\"> ]>\n<!-- a > b -->\t<svg:svg xmlns:svg='http://www.w3.org/2000/svg' aria-label='café' width='64' height = \"32\">"
    )
  #expect(try sniff(doctype, "svg").mime == "image/svg+xml")
  let facts = try read(doctype, "image/svg+xml")
  #expect(facts.width == 64 && facts.height == 32)
  #expect(ImageHeaderReader.svgRootAttributes(doctype)?["aria-label"] == "café")
  // An unterminated comment or a root that is another element is no SVG.
  #expect(ImageHeaderReader.svgRootAttributes(bytes("<!-- <svg width='1'/>")) == nil)
  #expect(ImageHeaderReader.svgRootAttributes(bytes("<svgx width='1'/>")) == nil)
}
