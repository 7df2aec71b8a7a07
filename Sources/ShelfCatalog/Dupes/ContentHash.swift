internal import CXXHash
import ShelfCore

/// A file's content hash: XXH3-128 of every byte (xxHash, Debian libxxhash), as `dupes` and the
/// `copies:` query fields compare contents. Not cryptographic: two files are called duplicates
/// on it, and compared byte for byte again before any action touches one.
public struct ContentHash: Hashable, Sendable, Comparable, CustomStringConvertible {
  public var high: UInt64
  public var low: UInt64

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// The 16 bytes as stored in the catalogue: xxHash's canonical (big-endian) form.
  public init?(bytes: [UInt8]) {
    guard let hash = bytes.withUnsafeBytes({ Self(canonical: $0) }) else { return nil }
    self = hash
  }

  /// The 16 bytes of the canonical form, read where they lie.
  init?(canonical bytes: UnsafeRawBufferPointer) {
    guard bytes.count == 16 else { return nil }
    high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
    low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
  }

  public var bytes: [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
  }

  /// 32 lowercase hex digits, as `xxhsum -H2` prints the canonical form.
  public var description: String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
  }

  public static func < (lhs: ContentHash, rhs: ContentHash) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }
}

/// XXH3-128 over bytes handed in pieces: the one owner of an xxHash state.
final class ContentHasher {
  private let state: OpaquePointer

  init() {
    // XXH3_createState only fails when malloc does, where Swift itself would trap.
    state = XXH3_createState()!
    XXH3_128bits_reset(state)
  }

  deinit { XXH3_freeState(state) }

  func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    XXH3_128bits_update(state, base, bytes.count)
  }

  /// The hash of everything given since the start (or the last `reset`).
  func digest() -> ContentHash {
    let hash = XXH3_128bits_digest(state)
    return ContentHash(high: hash.high64, low: hash.low64)
  }

  func reset() { XXH3_128bits_reset(state) }

  /// XXH3-64 of a small sample (the head and tail of a file), for the prefilter.
  static func sampleHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    XXH3_64bits(bytes.baseAddress, bytes.count)
  }
}
