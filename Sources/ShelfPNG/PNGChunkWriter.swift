/// Serializes chunks into a PNG file, computing each chunk's CRC.
public struct PNGChunkWriter {
  public init() {}

  /// The file bytes: the signature followed by every chunk (the caller supplies `IEND`).
  public func bytes(of chunks: [PNGChunk]) -> [UInt8] {
    var out = pngSignature
    out.reserveCapacity(8 + chunks.reduce(0) { $0 + $1.data.count + 12 })
    for chunk in chunks { append(chunk, to: &out) }
    return out
  }

  /// Appends one chunk (length, type, data, CRC).
  public func append(_ chunk: PNGChunk, to out: inout [UInt8]) {
    out.appendBigEndian(UInt32(chunk.data.count))
    out.append(contentsOf: chunk.type)
    out.append(contentsOf: chunk.data)
    out.appendBigEndian(CRC32.chunk(type: chunk.type, data: chunk.data))
  }
}
