public import ShelfCore

/// The peak level of an audio file across its length, for a waveform line: every read
/// bounded by counts (frames, bytes, windows), never by time, so that a damaged file cannot
/// hang the scan and the result does not depend on the machine's speed.
public enum AudioWaveform {
  /// At most this many windows are read from a file too long to read through.
  public static let maximumWindows = 1000
  /// Frames read at each window.
  static let windowFrames = 4096
  /// Files up to this many bytes are read through, whatever length they declare (a damaged
  /// length cannot make the scan seek).
  static let readThroughBytes: Int64 = 64 << 20
  /// No codec holds more frames than this per byte of file (Opus at 6 kb/s, 48 kHz: 64): a
  /// declared length beyond it is not sought into.
  static let maximumFramesPerByte: Int64 = 64

  /// Peak absolute sample per column, 0…1, from the decoder `play` uses for the file
  /// (libsndfile or FFmpeg, chosen by content). Files up to ten minutes or 64 MiB are read
  /// through and mapped by the frames they really hold; longer ones are read at up to 1,000
  /// evenly spaced windows (one per column), each a seek and one block: a window that fails
  /// is drawn empty, and once one finds the data ended, the windows after it are too.
  public static func peaks(path: RawPath, columns: Int) throws(AudioError) -> [Float] {
    let reader = try AudioDecoders.open(path: path)
    defer { reader.close() }
    let columns = max(1, columns)
    let channels = max(reader.format.channels, 1)
    let fileSize = (try? FileStatus.stat(path).size) ?? 0
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: windowFrames * channels)
    defer { buffer.deallocate() }
    func readBlock() throws(AudioError) -> (count: Int, peak: Float) {
      let got = try reader.read(into: buffer.baseAddress!, frames: windowFrames, as: .float32)
      var peak: Float = 0
      for index in 0..<(got * channels) { peak = max(peak, min(abs(buffer[index]), 1)) }
      return (got, peak)
    }
    let declared = reader.format.frames
    if declared <= Int64(reader.format.sampleRate) * 600 || fileSize <= readThroughBytes {
      // Block peaks, then columns by the frames really read: bounded by the file's bytes.
      var blocks: [(frames: Int, peak: Float)] = []
      while true {
        let block = try readBlock()
        if block.count == 0 { break }
        blocks.append((block.count, block.peak))
      }
      let total = max(1, blocks.reduce(0) { $0 + $1.frames })
      var peaks = [Float](repeating: 0, count: columns)
      var position = 0
      for block in blocks {
        let first = position * columns / total
        let last = min(columns - 1, (position + block.frames - 1) * columns / total)
        for column in first...last { peaks[column] = max(peaks[column], block.peak) }
        position += block.frames
      }
      return peaks
    }
    let plausible = min(declared, max(1, fileSize) * maximumFramesPerByte)
    let windows = min(columns, maximumWindows)
    var windowPeaks = [Float](repeating: 0, count: windows)
    for window in 0..<windows {
      let start = Int64(Double(plausible) * Double(window) / Double(windows))
      do {
        try reader.seek(toFrame: start)
        let block = try readBlock()
        if block.count == 0 { break }  // past the data: no further seeks
        windowPeaks[window] = block.peak
      } catch {
        continue  // drawn empty
      }
    }
    return (0..<columns).map { windowPeaks[$0 * windows / columns] }
  }
}
