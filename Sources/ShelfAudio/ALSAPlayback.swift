internal import CALSA
import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An ALSA playback stream: negotiated parameters, blocking interleaved writes with underrun and
/// suspend recovery, position from `snd_pcm_delay`, drain with a time limit, drop on quit.
///
/// Calls block: use it from a thread of its own, not the async pool.
public final class ALSAPlayback {
  private let handle: PCMHandle
  /// The negotiated rate, channels, buffer type and period.
  public var parameters: ALSAStreamParameters { handle.parameters }
  /// The device name as given.
  public var device: String { handle.device }
  /// Frames handed to ALSA since opening (or the last `drop`).
  public private(set) var framesWritten: Int64 = 0
  /// Underruns recovered from.
  public private(set) var underruns = 0

  /// Opens `device` for `channels` × `sampleRate` playback, exchanging samples as the first of
  /// `sampleTypes` the device accepts (the `default` device's plug layer accepts all).
  ///
  /// A device that does not take the rate or the channel count is refused (`.unsupported`),
  /// unless `nearestShape`: it then opens at the nearest rate and channel count it takes, which
  /// `parameters` reports, and the caller converts (`ConvertingDecoder`).
  public init(
    device: String, sampleRate: Int, channels: Int, sampleTypes: [PCMSampleType], nearestShape: Bool = false
  ) throws(AudioError) {
    let formats = sampleTypes.map { type -> SampleFormat in
      switch type {
      case .int16: return .s16
      case .int32: return .s32
      case .float32: return .float
      }
    }
    handle = try PCMHandle(
      device: device, capture: false, sampleRate: sampleRate, channels: channels, formats: formats,
      bufferMicroseconds: 500_000, periodMicroseconds: 100_000, nearestShape: nearestShape)
  }

  /// Writes `frames` interleaved frames from `buffer`, blocking until ALSA has taken them all.
  ///
  /// Underruns and suspends are recovered (`snd_pcm_recover`); a vanished device throws
  /// `.deviceGone` instead of spinning.
  public func write(_ buffer: UnsafeRawPointer, frames: Int) throws(AudioError) {
    guard let pcm = handle.pcm else { return }
    let frameBytes = parameters.channels * parameters.sampleType.byteWidth
    var done = 0
    while done < frames {
      let n = snd_pcm_writei(pcm, buffer + done * frameBytes, snd_pcm_uframes_t(frames - done))
      if n >= 0 {
        done += Int(n)
        framesWritten += Int64(n)
        continue
      }
      let code = Int32(n)
      switch -code {
      case EAGAIN:
        _ = snd_pcm_wait(pcm, 100)
      case EPIPE, ESTRPIPE, EINTR:
        if code == -EPIPE { underruns += 1 }
        let recovered = snd_pcm_recover(pcm, code, 1)
        if recovered < 0 { throw handle.error(recovered, "cannot recover from an underrun") }
      default:
        throw handle.error(code, "write failed")
      }
    }
  }

  /// Writes silence up to the next period boundary, so that the last partial period is heard
  /// (alsa-lib 1.2.8 does not pad it).
  public func padToPeriod() throws(AudioError) {
    let period = Int64(parameters.periodFrames)
    let missing = Int((period - framesWritten % period) % period)
    guard missing > 0 else { return }
    let bytes = missing * parameters.channels * parameters.sampleType.byteWidth
    let silence = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
    defer { silence.deallocate() }
    silence.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    try write(silence, frames: missing)
  }

  /// Frames written but not yet heard.
  public var delay: Int { handle.delay }

  /// Plays out what is queued, giving up after the queued time plus `extraSeconds` (drain can
  /// hang on broken devices), then stops the stream.
  public func drain(extraSeconds: Double = 1) {
    guard let pcm = handle.pcm else { return }
    let queued = Double(delay) / Double(max(1, parameters.sampleRate))
    let limit = MonotonicClock.seconds() + queued + extraSeconds
    snd_pcm_nonblock(pcm, 1)
    defer { snd_pcm_nonblock(pcm, 0) }
    var code = snd_pcm_drain(pcm)
    while code == -EAGAIN {
      if snd_pcm_state(pcm) != SND_PCM_STATE_DRAINING { break }
      if MonotonicClock.seconds() > limit {
        snd_pcm_drop(pcm)
        break
      }
      _ = snd_pcm_wait(pcm, 20)
      usleep(5000)
      code = snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING ? -EAGAIN : 0
    }
    snd_pcm_prepare(pcm)
    framesWritten = 0
  }

  /// Discards what is queued at once (quit, seek) and readies the stream for new writes.
  public func drop() {
    guard let pcm = handle.pcm else { return }
    snd_pcm_drop(pcm)
    snd_pcm_prepare(pcm)
    framesWritten = 0
  }

  /// Closes the device now rather than at `deinit`.
  public func close() { handle.close() }
}
