import Testing

@testable import ShelfFacts

private func sniff(_ prefix: [UInt8], _ ext: String = "") -> SniffResult {
  ContentSniffer.sniff(prefix: prefix, fileExtension: ext)
}

private let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// A valid MPEG-1 layer III frame header at 128 kbit/s, 44.1 kHz (417 bytes per frame).
private let mp3Header: [UInt8] = [0xFF, 0xFB, 0x90, 0x64]

private func mp3Frames(_ count: Int) -> [UInt8] {
  var out: [UInt8] = []
  for _ in 0..<count { out += mp3Header + [UInt8](repeating: 0, count: 413) }
  return out
}

@Test func pngByContentWithAgreeingExtension() {
  #expect(
    sniff(pngSignature + [0, 0, 0, 13] + bytes("IHDR"), "png")
      == SniffResult(
        kind: .image, mime: "image/png", detectedBy: .contentAndExtension, extensionMismatch: false))
}

@Test func cgbiPNGIsStillPNG() {
  let result = sniff(pngSignature + [0, 0, 0, 4] + bytes("CgBI") + [0x50, 0, 0x20, 6], "png")
  #expect(result.mime == "image/png")
  #expect(result.kind == .image)
}

@Test func pngNamedJPEGIsFlagged() {
  #expect(
    sniff(pngSignature, "JPG")
      == SniffResult(kind: .image, mime: "image/png", detectedBy: .content, extensionMismatch: true))
}

@Test func pngWithoutExtension() {
  #expect(
    sniff(pngSignature, "")
      == SniffResult(kind: .image, mime: "image/png", detectedBy: .content, extensionMismatch: false))
}

@Test func imageFormats() {
  #expect(sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + bytes("JFIF")).mime == "image/jpeg")
  #expect(sniff(bytes("GIF89a") + [1, 0, 1, 0]).mime == "image/gif")
  #expect(sniff(bytes("GIF87a") + [1, 0, 1, 0]).mime == "image/gif")
  var bmp = bytes("BM") + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]
  bmp += [UInt8](repeating: 0, count: 40)
  #expect(sniff(bmp).mime == "image/bmp")
  #expect(sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]).mime == "image/tiff")
  #expect(sniff([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]).mime == "image/tiff")
  #expect(sniff(bytes("RIFF") + [0x20, 0, 0, 0] + bytes("WEBPVP8 ")).mime == "image/webp")
  #expect(
    sniff([0, 0, 0, 0x18] + bytes("ftypheic") + [0, 0, 0, 0] + bytes("mif1heic")).mime == "image/heic")
  #expect(
    sniff([0, 0, 0, 0x18] + bytes("ftypmif1") + [0, 0, 0, 0] + bytes("mif1heic")).mime == "image/heic")
  #expect(sniff([0, 0, 0, 0x14] + bytes("ftypmif1") + [0, 0, 0, 0] + bytes("mif1")).mime == "image/heif")
  for prefix in [bytes("GIF89a"), [0xFF, 0xD8, 0xFF, 0xDB], [0x49, 0x49, 0x2A, 0x00]] {
    #expect(sniff(prefix).kind == .image)
  }
}

@Test func bmpNeedsPlausibleHeader() {
  // "BM" followed by text is a text file starting with BM, not a bitmap.
  #expect(sniff(bytes("BMW cars are fast\n")).kind == .text)
}

@Test func audioFormats() {
  #expect(
    sniff(bytes("RIFF") + [0x24, 0, 0, 0] + bytes("WAVEfmt "))
      == SniffResult(kind: .audio, mime: "audio/wav", detectedBy: .content, extensionMismatch: false))
  #expect(sniff(bytes("RF64") + [0xFF, 0xFF, 0xFF, 0xFF] + bytes("WAVEds64")).mime == "audio/wav")
  let w64: [UInt8] = [
    0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00,
  ]
  let wave: [UInt8] = [
    0x77, 0x61, 0x76, 0x65, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A,
  ]
  #expect(sniff(w64 + [UInt8](repeating: 0, count: 8) + wave).mime == "audio/x-w64")
  #expect(sniff(bytes("FORM") + [0, 0, 0, 0x2E] + bytes("AIFFCOMM")).mime == "audio/aiff")
  #expect(sniff(bytes("FORM") + [0, 0, 0, 0x2E] + bytes("AIFCFVER")).mime == "audio/aiff")
  #expect(sniff(bytes("fLaC") + [0, 0, 0, 0x22]).mime == "audio/flac")
  #expect(sniff(bytes("caff") + [0, 1, 0, 0] + bytes("desc")).mime == "audio/x-caf")
  #expect(sniff(bytes(".snd") + [0, 0, 0, 24]).mime == "audio/basic")
  for prefix in [bytes("fLaC"), bytes(".snd"), bytes("caff") + [0, 1]] {
    #expect(sniff(prefix).kind == .audio)
  }
}

private func oggPage(_ packet: [UInt8]) -> [UInt8] {
  var page = bytes("OggS") + [0, 2] + [UInt8](repeating: 0, count: 20)
  page.append(1)  // one segment
  page.append(UInt8(packet.count))
  return page + packet
}

@Test func oggCodecs() {
  #expect(sniff(oggPage([1] + bytes("vorbis") + [0, 0, 0, 0]), "ogg").mime == "audio/ogg")
  #expect(
    sniff(oggPage(bytes("OpusHead") + [1, 2]), "opus")
      == SniffResult(
        kind: .audio, mime: "audio/ogg", detectedBy: .contentAndExtension, extensionMismatch: false))
  #expect(sniff(oggPage([0x80] + bytes("theora"))).kind == .video)
}

@Test func mp3WithID3Tag() {
  let tag = bytes("ID3") + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10)
  #expect(
    sniff(tag + mp3Frames(2), "mp3")
      == SniffResult(
        kind: .audio, mime: "audio/mpeg", detectedBy: .contentAndExtension, extensionMismatch: false))
}

@Test func flacBehindID3Tag() {
  let tag = bytes("ID3") + [4, 0, 0, 0, 0, 0, 4] + [0, 0, 0, 0]
  #expect(sniff(tag + bytes("fLaC") + [0, 0, 0, 0x22], "flac").mime == "audio/flac")
}

@Test func mp3FrameSyncNeedsTwoFramesOrTheExtension() {
  #expect(
    sniff(mp3Frames(3), "")
      == SniffResult(kind: .audio, mime: "audio/mpeg", detectedBy: .content, extensionMismatch: false))
  // One header alone is too weak without the extension...
  let single = mp3Header + [1, 2, 3, 4]
  #expect(sniff(single, "").kind == .other)
  // ...and enough with it.
  #expect(
    sniff(single, "mp3")
      == SniffResult(
        kind: .audio, mime: "audio/mpeg", detectedBy: .contentAndExtension, extensionMismatch: false))
  // A bad bitrate index is not a header.
  #expect(sniff([0xFF, 0xFB, 0xF0, 0x64] + [UInt8](repeating: 0x55, count: 600), "").kind != .audio)
}

@Test func plists() {
  #expect(
    sniff(bytes("bplist00") + [0xD0, 8], "plist")
      == SniffResult(
        kind: .plist, mime: "application/x-bplist", detectedBy: .contentAndExtension, extensionMismatch: false
      ))
  let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict/></plist>
    """
  #expect(
    sniff(bytes(xml), "plist")
      == SniffResult(
        kind: .plist, mime: "application/x-plist", detectedBy: .contentAndExtension, extensionMismatch: false)
  )
  #expect(sniff(bytes("<plist version=\"1.0\"><array/></plist>"), "").kind == .plist)
  #expect(
    sniff([0xEF, 0xBB, 0xBF] + bytes("<?xml version=\"1.0\"?>\n<plist><dict/></plist>"), "xml").kind == .plist
  )
  // Other XML is text (SVG is an image).
  #expect(sniff(bytes("<?xml version=\"1.0\"?>\n<note/>"), "xml").kind == .text)
  // A binary plist with a .txt name is flagged.
  #expect(sniff(bytes("bplist00") + [0xD0], "txt").extensionMismatch)
}

@Test func textEncodings() {
  #expect(
    sniff(bytes("hello\nworld\n"), "txt")
      == SniffResult(
        kind: .text, mime: "text/plain", detectedBy: .contentAndExtension, extensionMismatch: false,
        textEncoding: DetectedEncoding(encoding: .ascii, bom: false)))
  #expect(sniff(bytes("Grüße aus Köln\r\n"), "md").kind == .text)
  #expect(sniff([0xEF, 0xBB, 0xBF] + bytes("bom"), "").kind == .text)
  #expect(sniff([0xFF, 0xFE, 0x68, 0, 0x69, 0, 0x0A, 0]).kind == .text)
  #expect(sniff([0xFE, 0xFF, 0, 0x68, 0, 0x69, 0, 0x0A]).kind == .text)
  #expect(sniff([0x68, 0, 0x69, 0, 0x21, 0, 0x0A, 0]).kind == .text)  // UTF-16LE, no BOM
  #expect(sniff([0, 0x68, 0, 0x69, 0, 0x21, 0, 0x0A]).kind == .text)  // UTF-16BE, no BOM
  #expect(
    sniff(
      bytes("caf") + [0xE9] + bytes(" cr") + [0xE8] + bytes("me br") + [0xFB] + bytes("l") + [0xE9, 0x0A],
      "txt"
    ).kind == .text)
}

@Test func encodingDetection() {
  #expect(TextSniffer.detectEncoding(bytes("plain")) == DetectedEncoding(encoding: .ascii, bom: false))
  #expect(TextSniffer.detectEncoding(bytes("naïve")) == DetectedEncoding(encoding: .utf8, bom: false))
  #expect(
    TextSniffer.detectEncoding([0xEF, 0xBB, 0xBF, 0x61]) == DetectedEncoding(encoding: .utf8, bom: true))
  #expect(
    TextSniffer.detectEncoding([0xFF, 0xFE, 0x61, 0]) == DetectedEncoding(encoding: .utf16le, bom: true))
  #expect(
    TextSniffer.detectEncoding([0xFE, 0xFF, 0, 0x61]) == DetectedEncoding(encoding: .utf16be, bom: true))
  #expect(
    TextSniffer.detectEncoding([0x61, 0, 0x62, 0, 0x63, 0])
      == DetectedEncoding(encoding: .utf16le, bom: false))
  #expect(
    TextSniffer.detectEncoding(bytes("na") + [0xEF] + bytes("ve"))
      == DetectedEncoding(encoding: .latin1, bom: false))
  // A UTF-8 sequence cut at the end of the prefix is still UTF-8.
  #expect(TextSniffer.detectEncoding(bytes("caf") + [0xC3]) == DetectedEncoding(encoding: .utf8, bom: false))
}

@Test func binaryIsOther() {
  let noise: [UInt8] = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
  #expect(
    sniff(noise, "")
      == SniffResult(
        kind: .other, mime: "application/octet-stream", detectedBy: .content, extensionMismatch: false))
  #expect(sniff([0, 1, 2, 3, 0, 0, 0xFF, 0x80], "").kind == .other)
  #expect(sniff(bytes("%PDF-1.7\n")).mime == "application/pdf")
}

@Test func extensionBreaksTiesForUnknownContent() {
  let noise: [UInt8] = [0, 1, 2, 3, 0, 0, 0xFF, 0x80, 0x12]
  #expect(
    sniff(noise, "wav")
      == SniffResult(kind: .audio, mime: "audio/wav", detectedBy: .extension, extensionMismatch: false))
  #expect(
    sniff(noise, ".PNG")
      == SniffResult(kind: .image, mime: "image/png", detectedBy: .extension, extensionMismatch: false))
  // Binary named .txt: not text, and flagged.
  #expect(
    sniff(noise, "txt")
      == SniffResult(
        kind: .other, mime: "application/octet-stream", detectedBy: .content, extensionMismatch: true))
}

@Test func textWithMediaExtensionIsFlagged() {
  #expect(
    sniff(bytes("not really a picture\n"), "png")
      == SniffResult(
        kind: .text, mime: "text/plain", detectedBy: .content, extensionMismatch: true,
        textEncoding: DetectedEncoding(encoding: .ascii, bom: false)))
}

@Test func emptyFile() {
  #expect(
    sniff([], "txt")
      == SniffResult(
        kind: .other, mime: "application/x-empty", detectedBy: .content, extensionMismatch: false))
}

@Test func controlCharactersMakeBinary() {
  #expect(sniff(bytes("abc") + [0x01, 0x02] + bytes("def")).kind == .other)
}
