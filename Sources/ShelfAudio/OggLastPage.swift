import ShelfCore

/// The last page of an Ogg file, whose granule position is the stream's length: checked by
/// shelf itself because FFmpeg and libsndfile disagree about a damaged one. FFmpeg's Ogg
/// demuxer drops a page whose checksum fails (and takes the length from the page before);
/// libsndfile 1.2.0 reads the granule position without checking it, so `info` said 0:05 and
/// `show` that 287,688 of 2^63 - 1 frames were decoded.
///
/// shelf's rule: a length that cannot be trusted is a defect of the file, reported by `info`
/// and `show` alike as bad input with the same reason (the frames counted are those the rest
/// of the file declares). Accepting the file silently would hide the damage (its last page's
/// audio is dropped by every decoder that checks the page), and a length that is plainly
/// impossible is what ffprobe prints and mpv's seek bar shows.
enum OggLastPage {
  /// The most bytes one page takes: a 27-byte header, 255 lacing values, 255 × 255 bytes.
  static let maximumPageBytes = 27 + 255 + 255 * 255
  /// The most samples one page can complete: 255 packets of 65,535 samples (FLAC's largest
  /// block; an Opus packet holds at most 5,760, a Vorbis one 4,096).
  static let maximumPageSamples: Int64 = 255 * 65_535

  /// One page's header, where it lies in the tail read.
  struct Page {
    var start: Int
    var end: Int
    var granule: Int64
    var serial: UInt32
    var checksumHolds: Bool
  }

  /// Why the last page's length cannot be trusted, or nil when it can (or the file does not
  /// end with a complete page, which the demuxers' own errors cover).
  static func defect(_ file: RegularFile) -> String? {
    let size = file.status.size
    let count = Int(min(size, Int64(2 * maximumPageBytes)))
    guard count >= 27, let tail = try? file.read(count: count, at: size - Int64(count)), tail.count == count
    else { return nil }
    guard let last = page(endingAt: tail.count, in: tail) else { return nil }
    if !last.checksumHolds {
      return "corrupt: the last Ogg page fails its checksum, so the length it declares cannot be trusted"
    }
    if last.granule >= 0, let previous = page(endingAt: last.start, in: tail), previous.serial == last.serial,
      previous.granule >= 0, previous.checksumHolds, last.granule - previous.granule > maximumPageSamples
    {
      return "corrupt: the last Ogg page declares a length the file cannot hold"
    }
    return nil
  }

  /// The page that ends exactly at `end` in `bytes` (the last such candidate: a page's data
  /// may happen to hold the capture pattern).
  static func page(endingAt end: Int, in bytes: [UInt8]) -> Page? {
    var start = end - 27
    while start >= 0 {
      defer { start -= 1 }
      guard bytes[start] == 0x4F, bytes[start + 1] == 0x67, bytes[start + 2] == 0x67,
        bytes[start + 3] == 0x53,
        bytes[start + 4] == 0
      else { continue }
      let segments = Int(bytes[start + 26])
      guard start + 27 + segments <= end else { continue }
      let body = bytes[(start + 27)..<(start + 27 + segments)].reduce(0) { $0 + Int($1) }
      guard start + 27 + segments + body == end else { continue }
      let granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[start + 6 + $1]) << (8 * $1) }
      let serial = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + 14 + $1]) << (8 * $1) }
      let stored = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + 22 + $1]) << (8 * $1) }
      return Page(
        start: start, end: end, granule: Int64(bitPattern: granule), serial: serial,
        checksumHolds: checksum(bytes[start..<end], checksumAt: start + 22) == stored)
    }
    return nil
  }

  /// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0) of a page, its own
  /// checksum field counted as zeros.
  static func checksum(_ page: ArraySlice<UInt8>, checksumAt field: Int) -> UInt32 {
    var crc: UInt32 = 0
    for index in page.indices {
      let byte = (field..<(field + 4)).contains(index) ? 0 : page[index]
      crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
    }
    return crc
  }

  private static let table: [UInt32] = (0..<256).map { value in
    var entry = UInt32(value) << 24
    for _ in 0..<8 { entry = entry & 0x8000_0000 != 0 ? (entry << 1) ^ 0x04C1_1DB7 : entry << 1 }
    return entry
  }
}
