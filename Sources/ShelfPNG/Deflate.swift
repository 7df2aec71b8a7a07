internal import CDeflate
internal import CZlib
internal import CZopfli
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// libdeflate compressors, kept for reuse: one is checked out per thread at a time, per level.
final class DeflateCompressorPool: Sendable {
  /// The process-wide pool.
  static let shared = DeflateCompressorPool()

  // OpaquePointer is not Sendable; the addresses are stored as integers under a lock.
  private let free = Mutex<[Int: [UInt]]>([:])

  /// Runs `body` with a compressor of `level` (1...12) that no other thread uses meanwhile.
  func with<R>(level: Int, _ body: (OpaquePointer) throws -> R) rethrows -> R {
    let level = max(1, min(12, level))
    let reused = free.withLock { pool -> UInt? in pool[level]?.popLast() }
    let compressor: OpaquePointer
    if let reused, let pointer = OpaquePointer(bitPattern: reused) {
      compressor = pointer
    } else {
      guard let made = libdeflate_alloc_compressor(Int32(level)) else {
        fatalError("libdeflate_alloc_compressor failed: out of memory")
      }
      compressor = made
    }
    defer {
      let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(compressor)))
      free.withLock { pool in pool[level, default: []].append(address) }
    }
    return try body(compressor)
  }
}

/// Compression and decompression of PNG image data.
enum Deflate {
  /// A zlib stream of `data` compressed by libdeflate at `level` (1...12).
  static func zlib(_ data: UnsafeRawBufferPointer, level: Int) -> [UInt8] {
    compress(data, level: level, raw: false)
  }

  /// A raw deflate stream (no zlib header or Adler-32), as CgBI files hold.
  static func raw(_ data: UnsafeRawBufferPointer, level: Int) -> [UInt8] {
    compress(data, level: level, raw: true)
  }

  /// Only the size the zlib stream would have: for trials.
  static func zlibSize(_ data: UnsafeRawBufferPointer, level: Int) -> Int {
    DeflateCompressorPool.shared.with(level: level) { compressor in
      let bound = libdeflate_zlib_compress_bound(compressor, data.count)
      let out = UnsafeMutableRawPointer.allocate(byteCount: max(bound, 1), alignment: 16)
      defer { out.deallocate() }
      return libdeflate_zlib_compress(compressor, data.baseAddress, data.count, out, bound)
    }
  }

  private static func compress(_ data: UnsafeRawBufferPointer, level: Int, raw: Bool) -> [UInt8] {
    DeflateCompressorPool.shared.with(level: level) { compressor in
      let bound =
        raw
        ? libdeflate_deflate_compress_bound(compressor, data.count)
        : libdeflate_zlib_compress_bound(compressor, data.count)
      return [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buffer, count in
        count =
          raw
          ? libdeflate_deflate_compress(compressor, data.baseAddress, data.count, buffer.baseAddress, bound)
          : libdeflate_zlib_compress(compressor, data.baseAddress, data.count, buffer.baseAddress, bound)
      }
    }
  }

  /// `compressed` (a stream of `data`), or zlib's Huffman-only or run-length coding of `data`
  /// when one of them is smaller.
  ///
  /// On noisy photographs the near-optimal parser of libdeflate 1.14 (Debian 12's) spends bits
  /// on short matches that cost more than they save; coding (nearly) every byte as a literal, as
  /// later libdeflate releases learnt to do, is up to 8 % smaller there, and zopfli does no
  /// better. Both codings cost a few milliseconds per megabyte, and are skipped where
  /// `compressed` is already well below the data's order-0 entropy (screenshots, diagrams,
  /// icons: matches carry the compression there, and literals cannot come near). `raw`: a raw
  /// deflate stream (CgBI) rather than a zlib one.
  static func smallest(
    _ compressed: [UInt8], orEntropyCodingOf data: UnsafeRawBufferPointer, raw: Bool = false
  ) -> [UInt8] {
    guard Double(compressed.count) >= 0.9 * order0EntropyBytes(data) else { return compressed }
    var best = compressed
    for strategy in [Z_HUFFMAN_ONLY, Z_RLE] {
      if let coded = zlibCoded(data, strategy: strategy, raw: raw), coded.count < best.count {
        best = coded
      }
    }
    return best
  }

  /// The size `data` would take with every byte coded by its own frequency: Σ −c·log2(c/n) / 8.
  static func order0EntropyBytes(_ data: UnsafeRawBufferPointer) -> Double {
    var counts = [Int](repeating: 0, count: 256)
    for byte in data { counts[Int(byte)] += 1 }
    let total = Double(data.count)
    var bits = 0.0
    for count in counts where count > 0 {
      bits -= Double(count) * Double.log2(Double(count) / total)
    }
    return bits / 8
  }

  /// `data` compressed by zlib with `strategy` (level 9, the biggest blocks zlib makes); nil
  /// when zlib fails or the input is too big for one call.
  private static func zlibCoded(_ data: UnsafeRawBufferPointer, strategy: Int32, raw: Bool) -> [UInt8]? {
    guard data.count < Int(UInt32.max / 2) else { return nil }
    var stream = z_stream()
    let windowBits: Int32 = raw ? -15 : 15
    let size = Int32(MemoryLayout<z_stream>.size)
    guard deflateInit2_(&stream, 9, Z_DEFLATED, windowBits, 9, strategy, zlibVersion(), size) == Z_OK
    else { return nil }
    defer { deflateEnd(&stream) }
    let bound = Int(deflateBound(&stream, uLong(data.count)))
    let coded = [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buffer, count in
      stream.next_in = UnsafeMutablePointer(
        mutating: data.baseAddress?.assumingMemoryBound(to: UInt8.self))
      stream.avail_in = uInt(data.count)
      stream.next_out = buffer.baseAddress
      stream.avail_out = uInt(bound)
      count = deflate(&stream, Z_FINISH) == Z_STREAM_END ? Int(stream.total_out) : 0
    }
    return coded.isEmpty ? nil : coded
  }

  /// A zlib stream compressed by zopfli: slow, the smallest output.
  static func zopfli(_ data: UnsafeRawBufferPointer, iterations: Int) -> [UInt8] {
    zopfli(data, iterations: iterations, format: ZOPFLI_FORMAT_ZLIB)
  }

  /// A raw deflate stream compressed by zopfli (CgBI at the highest level).
  static func rawZopfli(_ data: UnsafeRawBufferPointer, iterations: Int) -> [UInt8] {
    zopfli(data, iterations: iterations, format: ZOPFLI_FORMAT_DEFLATE)
  }

  private static func zopfli(
    _ data: UnsafeRawBufferPointer, iterations: Int, format: ZopfliFormat
  ) -> [UInt8] {
    var options = ZopfliOptions()
    ZopfliInitOptions(&options)
    options.numiterations = Int32(iterations)
    var out: UnsafeMutablePointer<UInt8>? = nil
    var size: Int = 0
    ZopfliCompress(
      &options, format, data.baseAddress?.assumingMemoryBound(to: UInt8.self),
      data.count, &out, &size)
    defer { Glibc.free(out) }
    guard let out else { return [] }
    return Array(UnsafeBufferPointer(start: out, count: size))
  }

  /// Inflates a raw deflate stream that must produce exactly `expectedSize` bytes.
  ///
  /// The output buffer is never larger than `expectedSize`, so a decompression bomb cannot
  /// make this allocate more than the image needs.
  static func inflateRaw(_ data: [UInt8], expectedSize: Int, zlibWrapped: Bool) -> [UInt8]? {
    guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    var result: libdeflate_result = LIBDEFLATE_BAD_DATA
    let out = [UInt8](unsafeUninitializedCapacity: max(expectedSize, 1)) { buffer, count in
      result = data.withUnsafeBytes { input in
        zlibWrapped
          ? libdeflate_zlib_decompress(
            decompressor, input.baseAddress, input.count, buffer.baseAddress, expectedSize, nil)
          : libdeflate_deflate_decompress(
            decompressor, input.baseAddress, input.count, buffer.baseAddress, expectedSize, nil)
      }
      count = result == LIBDEFLATE_SUCCESS ? expectedSize : 0
    }
    return result == LIBDEFLATE_SUCCESS ? out : nil
  }

  /// The Adler-32 checksum a zlib stream ends with.
  static func adler32(_ data: [UInt8]) -> UInt32 {
    data.withUnsafeBytes { UInt32(libdeflate_adler32(1, $0.baseAddress, $0.count)) }
  }
}

/// Zlib streams whose inflated size is not known in advance (PNG text chunks).
package enum ZlibStream {
  /// Inflates `data` to at most `limit` bytes; nil when the stream is damaged or inflates to
  /// more. The buffer is bounded by deflate's best ratio (1032:1) as well as by `limit`, so a
  /// small chunk never makes it allocate the whole limit.
  package static func inflate(_ data: [UInt8], limit: Int) -> [UInt8]? {
    guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    let (product, overflow) = data.count.multipliedReportingOverflow(by: 1032)
    let capacity = max(1, min(limit, overflow ? limit : product + 64))
    var result: libdeflate_result = LIBDEFLATE_BAD_DATA
    let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      var produced = 0
      result = data.withUnsafeBytes { input in
        libdeflate_zlib_decompress(
          decompressor, input.baseAddress, input.count, buffer.baseAddress, capacity, &produced)
      }
      count = result == LIBDEFLATE_SUCCESS ? produced : 0
    }
    return result == LIBDEFLATE_SUCCESS ? out : nil
  }
}
