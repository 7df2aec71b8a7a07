import ShelfCore

/// Counts the frames of an AMR-NB or AMR-WB file (RFC 4867 storage format) by walking their
/// one-byte headers: FFmpeg's raw AMR demuxer has no index and estimates the length from the
/// bit rate, which is wrong for voicemail with silence (comfort-noise) frames.
package enum AMRScanner {
  package struct Result: Equatable {
    /// Samples per channel (160 per frame at 8 kHz, 320 at 16 kHz).
    var frames: Int64
    var sampleRate: Int
    /// Why fewer frames are present than the file's bytes begin (a cut-off last frame).
    var truncation: String?
  }

  private static let narrowbandMagic = Array("#!AMR\n".utf8)
  private static let widebandMagic = Array("#!AMR-WB\n".utf8)
  /// Payload bytes after the header byte, by frame type (0–15), as FFmpeg's demuxer counts them.
  private static let narrowbandSizes = [12, 13, 15, 17, 19, 20, 26, 31, 5, 0, 0, 0, 0, 0, 0, 0]
  private static let widebandSizes = [17, 23, 32, 36, 40, 46, 50, 58, 60, 5, 0, 0, 0, 0, 0, 0]

  /// Scans `file`; nil when it does not start with an AMR magic number.
  package static func scan(_ file: RegularFile) throws -> Result? {
    let head = try file.read(count: 9, at: 0)
    let wideband = head.starts(with: widebandMagic)
    guard wideband || head.starts(with: narrowbandMagic) else { return nil }
    let sizes = wideband ? widebandSizes : narrowbandSizes
    var reader = ChunkedReader(file: file)
    var offset = Int64(wideband ? widebandMagic.count : narrowbandMagic.count)
    let end = file.status.size
    var count: Int64 = 0
    var truncation: String? = nil
    while offset < end {
      guard let header = try reader.bytes(at: offset, count: 1).first else { break }
      let length = 1 + sizes[Int(header >> 3) & 0x0F]
      if offset + Int64(length) > end {
        truncation = "truncated: the last AMR frame is cut short"
        break
      }
      count += 1
      offset += Int64(length)
    }
    let samplesPerFrame: Int64 = wideband ? 320 : 160
    return Result(
      frames: count * samplesPerFrame, sampleRate: wideband ? 16000 : 8000, truncation: truncation)
  }
}
