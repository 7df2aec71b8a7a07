/// Lossless recompression of animated PNGs: every frame's image data (IDAT, fdAT) is inflated
/// and compressed again with its filtered bytes unchanged, so no pixel of any frame can move.
enum AnimatedPNG {
  /// The recompressed file, or nil when a frame cannot be read exactly (the caller then keeps
  /// the file as it is).
  /// The width and height of the frame an `fcTL` chunk's data describes, checked as the APNG
  /// specification asks (non-zero, inside the canvas with its offsets): the frame's buffer is
  /// sized from them, and 4294967295 × 4294967295 would overflow it.
  static func frameSize(_ data: [UInt8], frame: Int, canvas: (width: Int, height: Int)) throws(PNGError) -> (
    Int, Int
  ) {
    let width = Int(data.bigEndianUInt32(at: 4))
    let height = Int(data.bigEndianUInt32(at: 8))
    let x = Int(data.bigEndianUInt32(at: 12))
    let y = Int(data.bigEndianUInt32(at: 16))
    // Each term is below 2^32: the sums cannot overflow.
    guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
      throw PNGError(
        .corrupt(
          "fcTL of frame \(frame): \(width)×\(height) at \(x),\(y) does not fit the \(canvas.width)×\(canvas.height) image"
        ))
    }
    return (width, height)
  }

  static func recompress(
    _ chunks: [PNGChunk], colorType: PNGColorType, bitDepth: Int, interlaced: Bool,
    level: PNGOptimizationLevel, strip: PNGStripMode
  ) throws(PNGError) -> [UInt8]? {
    guard let header = chunks.first(where: { $0.is("IHDR") }) else { return nil }
    let bitsPerPixel = colorType.channels * bitDepth
    let canvas = (
      width: Int(header.data.bigEndianUInt32(at: 0)), height: Int(header.data.bigEndianUInt32(at: 4))
    )
    var (width, height) = canvas
    var frames = 0
    var out: [PNGChunk] = []
    var sequence: UInt32 = 0
    var index = 0
    while index < chunks.count {
      let chunk = chunks[index]
      if chunk.is("fcTL") {
        guard chunk.data.count == 26 else { return nil }
        frames += 1
        (width, height) = try frameSize(chunk.data, frame: frames, canvas: canvas)
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
