internal import CALSA

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An ALSA capture stream: negotiated parameters and blocking interleaved reads that recover
/// from overruns (and count them) rather than fail.
///
/// Calls block: use it from a thread of its own, not the async pool.
public final class ALSACapture {
  private let handle: PCMHandle
  /// The negotiated rate, channels, sample format and period.
  public var parameters: ALSAStreamParameters { handle.parameters }
  /// The device name as given.
  public var device: String { handle.device }
  /// Overruns recovered from.
  public private(set) var overruns = 0

  /// Opens `device` for capture of `channels` × `sampleRate` in `sampleFormat`.
  public init(device: String, sampleRate: Int, channels: Int, sampleFormat: SampleFormat) throws(AudioError) {
    handle = try PCMHandle(
      device: device, capture: true, sampleRate: sampleRate, channels: channels, formats: [sampleFormat],
      bufferMicroseconds: 500_000, periodMicroseconds: 50_000)
  }

  /// Bytes per captured frame as ALSA delivers it (3 bytes per sample for s24).
  public var frameBytes: Int {
    parameters.channels * (parameters.sampleFormat == .s24 ? 3 : parameters.sampleType.byteWidth)
  }

  /// Reads up to `frames` frames into `buffer` (ALSA's layout: see `frameBytes`); returns how
  /// many arrived. An overrun is recovered and counted, and returns 0 frames.
  public func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(AudioError) -> Int {
    guard let pcm = handle.pcm else { return 0 }
    while true {
      let n = snd_pcm_readi(pcm, buffer, snd_pcm_uframes_t(frames))
      if n >= 0 { return Int(n) }
      let code = Int32(n)
      switch -code {
      case EAGAIN:
        _ = snd_pcm_wait(pcm, 100)
      case EPIPE, ESTRPIPE, EINTR:
        if code == -EPIPE { overruns += 1 }
        let recovered = snd_pcm_recover(pcm, code, 1)
        if recovered < 0 { throw handle.error(recovered, "cannot recover from an overrun") }
        if code == -EPIPE { return 0 }
      default:
        throw handle.error(code, "read failed")
      }
    }
  }

  /// Stops capturing, dropping what the device still holds.
  public func stop() {
    if let pcm = handle.pcm { snd_pcm_drop(pcm) }
  }

  /// Closes the device now rather than at `deinit`.
  public func close() { handle.close() }
}
