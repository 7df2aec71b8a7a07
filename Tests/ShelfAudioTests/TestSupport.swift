import ShelfAudio
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a whole file's bytes.
func readBytes(_ path: String, limit: Int? = nil) -> [UInt8] {
  guard let file = try? RegularFile(path: RawPath(path)) else { return [] }
  if let limit { return (try? file.read(count: limit, at: 0)) ?? [] }
  return (try? file.readAll(limit: 1 << 30)) ?? []
}

/// Writes bytes to a file.
func writeBytes(_ path: String, _ bytes: [UInt8]) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  precondition(fd >= 0)
  bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
  close(fd)
}

/// A deterministic stereo test signal: a sweep-ish pattern that uses the full 16-bit range.
func testSignal16(frames: Int, channels: Int = 2, seed: UInt32 = 1) -> [Int16] {
  var state = seed
  var samples: [Int16] = []
  samples.reserveCapacity(frames * channels)
  for _ in 0..<(frames * channels) {
    state = state &* 1_664_525 &+ 1_013_904_223
    samples.append(Int16(truncatingIfNeeded: state >> 16))
  }
  return samples
}

/// 24-bit samples, left-justified in Int32 as libsndfile delivers them.
func testSignal24(frames: Int, channels: Int = 2) -> [Int32] {
  var state: UInt32 = 7
  return (0..<(frames * channels)).map { _ in
    state = state &* 1_664_525 &+ 1_013_904_223
    return Int32(bitPattern: state & 0xFFFF_FF00)
  }
}

/// A quiet sine, for lossy codecs.
func sine(frames: Int, channels: Int = 2, rate: Int = 44100) -> [Float] {
  var out: [Float] = []
  for i in 0..<frames {
    let v = Float(0.5 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))
    for _ in 0..<channels { out.append(v) }
  }
  return out
}

func littleEndianBytes(_ samples: [Int16]) -> [UInt8] {
  var out: [UInt8] = []
  out.reserveCapacity(samples.count * 2)
  for s in samples {
    let u = UInt16(bitPattern: s)
    out.append(UInt8(u & 0xFF))
    out.append(UInt8(u >> 8))
  }
  return out
}

func writeWAV16(_ path: String, _ samples: [Int16], rate: Int = 44100, channels: Int = 2) throws {
  let writer = try AudioFileWriter(
    path: RawPath(path), container: .wav, sampleFormat: .s16, sampleRate: rate, channels: channels)
  try writer.write(samples)
  try writer.close()
}

/// A minimal valid PNG (1×1 gray), to mislabel as audio.
let tinyPNG: [UInt8] = [
  0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3A, 0x7E, 0x9B,
  0x55, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00,
  0x02, 0x00, 0x01, 0xE5, 0x27, 0xDE, 0xFC, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
  0x42, 0x60, 0x82,
]
