/// Splits a PNG file's bytes into chunks, checking the signature, lengths and CRCs.
public struct PNGChunkReader {
  /// Whether a chunk's CRC mismatch is an error (it is, unless a caller only peeks).
  public var checkCRC = true

  public init(checkCRC: Bool = true) { self.checkCRC = checkCRC }

  /// All chunks up to and including `IEND`; bytes after `IEND` are ignored.
  ///
  /// Throws `PNGError` for an empty file, a missing signature, a chunk that runs past the end,
  /// a CRC mismatch, a malformed chunk type or a missing `IEND`.
  public func chunks(of bytes: [UInt8]) throws(PNGError) -> [PNGChunk] {
    guard !bytes.isEmpty else { throw PNGError(.empty) }
    guard bytes.count >= 8, Array(bytes[0..<8]) == pngSignature else {
      if bytes.count < 8, Array(pngSignature.prefix(bytes.count)) == bytes {
        throw PNGError(.truncated("file ends inside the signature"))
      }
      throw PNGError(.notPNG)
    }
    var chunks: [PNGChunk] = []
    var offset = 8
    while true {
      guard bytes.count - offset >= 8 else {
        let last = chunks.last?.name
        throw PNGError(.truncated(last.map { "file ends after \($0) chunk, no IEND" } ?? "no IHDR"))
      }
      let length = Int(bytes.bigEndianUInt32(at: offset))
      let type = Array(bytes[(offset + 4)..<(offset + 8)])
      guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
        throw PNGError(.corrupt("invalid chunk type at byte \(offset + 4)"))
      }
      let name = String(decoding: type, as: UTF8.self)
      guard length <= 0x7FFF_FFFF else {
        throw PNGError(.corrupt("\(name) chunk length \(length) is out of range"))
      }
      guard bytes.count - offset - 8 >= length + 4 else {
        throw PNGError(.truncated("\(name) ends early"))
      }
      let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
      if checkCRC {
        let stored = bytes.bigEndianUInt32(at: offset + 8 + length)
        let actual = bytes.withUnsafeBytes {
          CRC32.of(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)]))
        }
        guard stored == actual else { throw PNGError(.badCRC(chunk: name)) }
      }
      chunks.append(PNGChunk(type: type, data: data))
      offset += 12 + length
      if name == "IEND" { break }
    }
    let firstIndex = chunks.first?.is("CgBI") == true ? 1 : 0
    guard chunks.count > firstIndex, chunks[firstIndex].is("IHDR") else {
      throw PNGError(.corrupt("first chunk is not IHDR"))
    }
    guard chunks.contains(where: { $0.is("IDAT") }) else {
      throw PNGError(.corrupt("no IDAT chunk"))
    }
    return chunks
  }
}
