/// Lossless recompression of animated PNGs: every frame's image data (IDAT, fdAT) is inflated
/// and compressed again with its filtered bytes unchanged, so no pixel of any frame can move.
enum AnimatedPNG {
  /// The recompressed file, or nil when a frame cannot be read exactly (the caller then keeps
  /// the file as it is).
  static func recompress(
    _ chunks: [PNGChunk], colorType: PNGColorType, bitDepth: Int, interlaced: Bool,
    level: PNGOptimizationLevel, strip: PNGStripMode
  ) -> [UInt8]? {
    guard let header = chunks.first(where: { $0.is("IHDR") }) else { return nil }
    let bitsPerPixel = colorType.channels * bitDepth
    var width = Int(header.data.bigEndianUInt32(at: 0))
    var height = Int(header.data.bigEndianUInt32(at: 4))
    var out: [PNGChunk] = []
    var sequence: UInt32 = 0
    var index = 0
    while index < chunks.count {
      let chunk = chunks[index]
      if chunk.is("fcTL") {
        guard chunk.data.count == 26 else { return nil }
        width = Int(chunk.data.bigEndianUInt32(at: 4))
        height = Int(chunk.data.bigEndianUInt32(at: 8))
        var data = chunk.data
        data.replaceSubrange(0..<4, with: bigEndian(sequence))
        sequence += 1
        out.append(PNGChunk("fcTL", data: data))
        index += 1
      } else if chunk.is("IDAT") || chunk.is("fdAT") {
        // One frame's stream: the run of consecutive chunks of the same type.
        let isDefault = chunk.is("IDAT")
        var stream: [UInt8] = []
        while index < chunks.count && chunks[index].type == chunk.type {
          let data = chunks[index].data
          if isDefault {
            stream += data
          } else {
            guard data.count >= 4 else { return nil }
            stream += data[4...]
          }
          index += 1
        }
        let frameWidth = isDefault ? Int(header.data.bigEndianUInt32(at: 0)) : width
        let frameHeight = isDefault ? Int(header.data.bigEndianUInt32(at: 4)) : height
        let expected = PNGDecoder.filteredSize(
          width: frameWidth, height: frameHeight, bitsPerPixel: bitsPerPixel, interlaced: interlaced)
        guard
          let filtered = Deflate.inflateRaw(stream, expectedSize: expected, zlibWrapped: true)
        else { return nil }
        var best = stream
        filtered.withUnsafeBytes { data in
          for candidate in [
            Deflate.zlib(data, level: 1),
            Deflate.smallest(
              level.usesZopfli
                ? Deflate.zopfli(data, iterations: level.zopfliIterations(for: data.count))
                : Deflate.zlib(data, level: max(9, level.finalDeflateLevel)),
              orEntropyCodingOf: data),
          ] where candidate.count < best.count {
            best = candidate
          }
        }
        // Exactness: the new stream must inflate to the very same filtered bytes.
        guard Deflate.inflateRaw(best, expectedSize: expected, zlibWrapped: true) == filtered
        else { return nil }
        if isDefault {
          out.append(PNGChunk("IDAT", data: best))
        } else {
          out.append(PNGChunk("fdAT", data: bigEndian(sequence) + best))
          sequence += 1
        }
      } else {
        if chunk.isCritical || ["acTL", "tRNS"].contains(chunk.name) || strip.keeps(chunk.name) {
          out.append(chunk)
        }
        index += 1
      }
    }
    return PNGChunkWriter().bytes(of: out)
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendBigEndian(value)
    return bytes
  }
}
