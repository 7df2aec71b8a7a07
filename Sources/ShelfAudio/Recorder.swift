public import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What to record and where.
public struct RecordingRequest: Sendable {
  /// The file to write.
  public var output: RawPath
  /// The container; by default from the output's extension.
  public var container: AudioContainer
  /// The codec, where the container offers a choice (`AudioContainer.recordingCodecs`); nil
  /// for the container's default.
  public var codec: RecordingCodec?
  /// The ALSA capture device.
  public var device = "default"
  public var sampleRate = 44100
  public var channels = 2
  /// What is asked of ALSA and written when the container allows.
  public var sampleFormat = SampleFormat.s16
  /// Stop after this many seconds.
  public var maxDuration: Double?
  /// Stop before the file passes this many bytes (compressed formats: as soon as it reaches it).
  public var maxBytes: Int64?
  /// Replace an existing file.
  public var overwrite = false

  public init(output: RawPath, container: AudioContainer) {
    self.output = output
    self.container = container
  }
}

/// Where a recording stands, reported about ten times a second.
public struct RecordingProgress: Sendable {
  public var frames: Int64
  public var seconds: Double
  /// Size of the file on disk.
  public var bytes: Int64
  /// Peak level per channel since the last report, in dBFS (−∞ for silence).
  public var peakDBFS: [Double]
  /// Whether any sample since the last report hit full scale.
  public var clipped: Bool
  public var overruns: Int
}

/// Why a recording ended.
public enum RecordingStop: Sendable, Equatable {
  /// `stop()` was called (Ctrl-C, SIGTERM, SIGHUP, a key).
  case requested
  /// `maxDuration` was reached.
  case duration
  /// `maxBytes` was reached.
  case size
  /// Writing failed (disk full…): the file holds everything written before.
  case writeFailed(AudioError)
  /// The capture device failed (gone…): the file holds everything captured before.
  case deviceFailed(AudioError)
}

/// The outcome of a recording. The file is finalised and valid in every case.
public struct RecordingSummary: Sendable {
  public var output: RawPath
  public var container: AudioContainer
  /// The sample format stored in the file.
  public var storedFormat: SampleFormat
  public var sampleRate: Int
  public var channels: Int
  public var frames: Int64
  public var seconds: Double
  public var bytes: Int64
  public var overruns: Int
  public var stop: RecordingStop
}

/// Records from an ALSA capture device into a file without losing samples: the header is kept
/// current after every block (a killed recorder leaves a readable file), and every ending —
/// `stop()`, duration, size, a write or device failure — finalises the file.
public final class Recorder: Sendable {
  public let request: RecordingRequest
  private let stopRequested = Atomic<Bool>(false)

  public init(_ request: RecordingRequest) {
    self.request = request
  }

  /// Asks the recording to end after the block in progress; safe from any thread.
  public func stop() { stopRequested.store(true, ordering: .sequentiallyConsistent) }

  /// Opens the device, creates the file and records until asked to stop or a limit is reached.
  ///
  /// Throws only when nothing could be recorded (device or file cannot be opened); failures
  /// after the file exists end the recording and are reported in the summary's `stop`.
  public func run(progress: (RecordingProgress) -> Void) throws(AudioError) -> RecordingSummary {
    let request = self.request
    if let sink = try ALSAFileSink.parse(request.device) {
      throw AudioError(
        device: request.device, reason: .invalidRequest,
        message:
          "the file: device only plays (recording would empty \(sink.path.escaped)); to record from a file, give ALSA a file device with an infile"
      )
    }
    _ = try RecordingRate.choose(
      request.sampleRate, container: request.container, codec: request.codec, output: request.output)
    if !request.overwrite, (try? FileStatus.lstat(request.output)) != nil {
      throw AudioError(
        path: request.output, reason: .exists, message: "file exists")
    }
    let capture = try ALSACapture(
      device: request.device, sampleRate: request.sampleRate, channels: request.channels,
      sampleFormat: request.sampleFormat)
    defer { capture.close() }
    let writer = try Recorder.makeWriter(request)

    let channels = request.channels
    let format = request.sampleFormat
    let type = format.bufferType
    let blockFrames = max(64, capture.parameters.periodFrames)
    let raw = UnsafeMutableRawPointer.allocate(byteCount: blockFrames * capture.frameBytes, alignment: 16)
    defer { raw.deallocate() }
    // s24 arrives packed in 3 bytes; libsndfile takes it left-justified in 32-bit integers.
    let widened: UnsafeMutableRawPointer? =
      format == .s24
      ? UnsafeMutableRawPointer.allocate(byteCount: blockFrames * channels * 4, alignment: 16) : nil
    defer { widened?.deallocate() }

    let frameLimit = request.maxDuration.map { Int64(($0 * Double(request.sampleRate)).rounded()) }
    let stored = writer.storedFormat
    let codec = request.codec ?? request.container.recordingCodecs.first
    let uncompressed = codec == .pcm
    let storedFrameBytes = Int64(channels * (stored.bits / 8))
    var headerBytes: Int64?
    var peaks = [Double](repeating: 0, count: channels)
    var clipped = false
    var lastReport = -1.0
    var stop = RecordingStop.requested
    var finalBlock = false

    recording: while true {
      if stopRequested.load(ordering: .sequentiallyConsistent) {
        if finalBlock { break }
        // Take what the device already holds, then stop.
        finalBlock = true
      }
      var want = blockFrames
      if let frameLimit {
        let left = frameLimit - writer.framesWritten
        if left <= 0 {
          stop = .duration
          break
        }
        want = min(want, Int(left))
      }
      if let maxBytes = request.maxBytes, uncompressed, let headerBytes {
        let left = (maxBytes - headerBytes) / storedFrameBytes - writer.framesWritten
        if left <= 0 {
          stop = .size
          break
        }
        want = min(want, Int(left))
      }
      let got: Int
      do {
        got = try capture.read(into: raw, frames: want)
      } catch {
        stop = .deviceFailed(error)
        break
      }
      if got > 0 {
        let samples = got * channels
        var source = UnsafeRawPointer(raw)
        if let widened {
          let bytes = raw.assumingMemoryBound(to: UInt8.self)
          let out = widened.assumingMemoryBound(to: Int32.self)
          for i in 0..<samples {
            let value =
              UInt32(bytes[3 * i]) << 8 | UInt32(bytes[3 * i + 1]) << 16 | UInt32(bytes[3 * i + 2]) << 24
            out[i] = Int32(bitPattern: value)
          }
          source = UnsafeRawPointer(widened)
        }
        Recorder.measure(
          source, samples: samples, channels: channels, type: type, peaks: &peaks, clipped: &clipped)
        do {
          try writer.write(source, frames: got, as: type)
        } catch {
          stop = .writeFailed(error)
          break
        }
        if headerBytes == nil && uncompressed {
          headerBytes = max(0, writer.bytesOnDisk - writer.framesWritten * storedFrameBytes)
        }
        if let maxBytes = request.maxBytes, !uncompressed, writer.bytesOnDisk >= maxBytes {
          stop = .size
          break
        }
      }
      if finalBlock { break recording }
      let seconds = Double(writer.framesWritten) / Double(request.sampleRate)
      if seconds - lastReport >= 0.1 || lastReport < 0 {
        lastReport = seconds
        progress(
          RecordingProgress(
            frames: writer.framesWritten, seconds: seconds, bytes: writer.bytesOnDisk,
            peakDBFS: peaks.map { $0 > 0 ? 20 * log10($0) : -Double.infinity }, clipped: clipped,
            overruns: capture.overruns))
        peaks = [Double](repeating: 0, count: channels)
        clipped = false
      }
    }
    capture.stop()
    let frames = writer.framesWritten
    do {
      try writer.close()
    } catch {
      if case .requested = stop { stop = .writeFailed(error) }
    }
    let bytes = (try? FileStatus.stat(request.output).size) ?? 0
    return RecordingSummary(
      output: request.output, container: request.container, storedFormat: stored,
      sampleRate: request.sampleRate, channels: channels, frames: frames,
      seconds: Double(frames) / Double(request.sampleRate), bytes: bytes, overruns: capture.overruns,
      stop: stop)
  }

  /// The file writer for the request's container and codec: FFmpeg for MP4, libsndfile for
  /// the rest.
  static func makeWriter(_ request: RecordingRequest) throws(AudioError) -> any RecordingFileWriter {
    let codec = request.codec ?? request.container.recordingCodecs.first
    if let codec, !request.container.recordingCodecs.contains(codec) {
      throw AudioError(
        path: request.output, reason: .unsupported,
        message: "\(request.container.rawValue.uppercased()) cannot hold \(codec.rawValue.uppercased())")
    }
    if request.container == .m4a {
      return try M4AFileWriter(
        path: request.output, codec: codec == .alac ? .alac : .aac, sampleFormat: request.sampleFormat,
        sampleRate: request.sampleRate, channels: request.channels, overwrite: request.overwrite)
    }
    return try AudioFileWriter(
      path: request.output, container: request.container, sampleFormat: request.sampleFormat,
      sampleRate: request.sampleRate, channels: request.channels, codec: codec, overwrite: request.overwrite)
  }

  /// Updates per-channel peaks (0…1 of full scale) and the clip flag for one block.
  static func measure(
    _ buffer: UnsafeRawPointer, samples: Int, channels: Int, type: PCMSampleType, peaks: inout [Double],
    clipped: inout Bool
  ) {
    switch type {
    case .int16:
      let p = buffer.assumingMemoryBound(to: Int16.self)
      for i in 0..<samples {
        let v = p[i]
        if v == .max || v == .min { clipped = true }
        let level = Double(v.magnitude) / 32768
        if level > peaks[i % channels] { peaks[i % channels] = level }
      }
    case .int32:
      let p = buffer.assumingMemoryBound(to: Int32.self)
      for i in 0..<samples {
        let v = p[i]
        if v >= Int32.max - 255 || v == .min { clipped = true }
        let level = Double(v.magnitude) / 2_147_483_648
        if level > peaks[i % channels] { peaks[i % channels] = level }
      }
    case .float32:
      let p = buffer.assumingMemoryBound(to: Float.self)
      for i in 0..<samples {
        let level = Double(abs(p[i]))
        if level >= 1 { clipped = true }
        if level > peaks[i % channels] { peaks[i % channels] = level }
      }
    }
  }
}
