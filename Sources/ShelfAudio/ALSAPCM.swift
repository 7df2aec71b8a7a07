internal import CALSA
internal import CALSASupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The negotiated shape of an open ALSA stream.
public struct ALSAStreamParameters: Sendable, Equatable {
  /// Frames per second.
  public var sampleRate: Int
  /// Channels per frame.
  public var channels: Int
  /// The buffer type samples are exchanged in.
  public var sampleType: PCMSampleType
  /// For capture: the sample format asked of the device.
  public var sampleFormat: SampleFormat
  /// Frames per period (the unit of transfer).
  public var periodFrames: Int
  /// Frames in the device buffer.
  public var bufferFrames: Int
}

/// One owner of an open `snd_pcm_t`, with the negotiation and the checking helper shared by
/// playback and capture.
final class PCMHandle {
  let device: String
  private(set) var pcm: OpaquePointer?
  private(set) var parameters: ALSAStreamParameters

  /// Opens `device` without blocking on a busy device, then negotiates hardware and software
  /// parameters. The first acceptable entry of `formats` is used. With `nearestShape`, a rate
  /// or channel count the device does not take is replaced by the nearest one it takes (the
  /// caller converts); otherwise it is refused.
  init(
    device: String, capture: Bool, sampleRate: Int, channels: Int, formats: [SampleFormat],
    bufferMicroseconds: UInt32, periodMicroseconds: UInt32, nearestShape: Bool = false
  ) throws(AudioError) {
    self.device = device
    shelf_alsa_capture_errors()
    shelf_alsa_clear_error()
    var opened: OpaquePointer?
    let stream = capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
    let code = snd_pcm_open(&opened, ALSADeviceName.opened(device), stream, SND_PCM_NONBLOCK)
    guard code >= 0, let opened else { throw PCMHandle.openError(device: device, code: code) }
    pcm = opened
    parameters = ALSAStreamParameters(
      sampleRate: sampleRate, channels: channels, sampleType: .int16, sampleFormat: .s16, periodFrames: 0,
      bufferFrames: 0)
    do throws(AudioError) {
      try check(snd_pcm_nonblock(opened, 0), "cannot switch to blocking mode")
      try negotiate(
        capture: capture, sampleRate: sampleRate, channels: channels, formats: formats,
        bufferMicroseconds: bufferMicroseconds, periodMicroseconds: periodMicroseconds,
        nearestShape: nearestShape)
    } catch {
      snd_pcm_close(opened)
      pcm = nil
      throw error
    }
  }

  deinit { if let pcm { snd_pcm_close(pcm) } }

  static func alsaFormat(_ format: SampleFormat) -> snd_pcm_format_t {
    switch format {
    case .s16: return SND_PCM_FORMAT_S16_LE
    case .s24: return SND_PCM_FORMAT_S24_3LE
    case .s32: return SND_PCM_FORMAT_S32_LE
    case .float: return SND_PCM_FORMAT_FLOAT_LE
    }
  }

  static func lastALSAMessage() -> String {
    var buffer = [CChar](repeating: 0, count: 512)
    shelf_alsa_last_error(&buffer, buffer.count)
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  static func openError(device: String, code: Int32) -> AudioError {
    switch -code {
    case ENOENT, ENODEV, ENXIO:
      return AudioError(device: device, reason: .noSuchDevice, message: "no such ALSA device")
    case EBUSY, EAGAIN:
      return AudioError(
        device: device, reason: .deviceBusy, message: "device is busy (in use by another program)")
    case EACCES, EPERM:
      return AudioError(device: device, reason: .device, message: "permission denied")
    case _ where !hasSoundCard():
      // `hw:0` on a machine without cards fails with EINVAL ("Cannot get card index"): the
      // device is missing all the same.
      return AudioError(
        device: device, reason: .noSuchDevice, message: "no such ALSA device (the system has no sound card)")
    default:
      let detail = lastALSAMessage()
      return AudioError(
        device: device, reason: .device,
        message: "cannot open: \(String(cString: snd_strerror(code)))\(detail.isEmpty ? "" : " (\(detail))")")
    }
  }

  /// True when ALSA knows at least one sound card (plugins such as `null` and `file` need none).
  static func hasSoundCard() -> Bool {
    var card: Int32 = -1
    return snd_card_next(&card) == 0 && card >= 0
  }

  /// The checking helper: a negative ALSA return becomes an `AudioError` naming the device.
  func check(_ code: Int32, _ action: String) throws(AudioError) {
    guard code < 0 else { return }
    throw error(code, action)
  }

  func error(_ code: Int32, _ action: String) -> AudioError {
    if code == -ENODEV || code == -ENXIO || code == -ESHUTDOWN {
      return AudioError(device: device, reason: .deviceGone, message: "device disappeared")
    }
    return AudioError(
      device: device, reason: .device, message: "\(action): \(String(cString: snd_strerror(code)))")
  }

  private func negotiate(
    capture: Bool, sampleRate: Int, channels: Int, formats: [SampleFormat], bufferMicroseconds: UInt32,
    periodMicroseconds: UInt32, nearestShape: Bool
  ) throws(AudioError) {
    guard let pcm else { return }
    var hw: OpaquePointer?
    try check(snd_pcm_hw_params_malloc(&hw), "cannot allocate parameters")
    defer { snd_pcm_hw_params_free(hw) }
    try check(snd_pcm_hw_params_any(pcm, hw), "cannot read the device's parameters")
    try check(
      snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "cannot use interleaved access")
    guard
      let chosen = formats.first(where: {
        snd_pcm_hw_params_test_format(pcm, hw, PCMHandle.alsaFormat($0)) == 0
      })
    else {
      let names = formats.map(\.rawValue).joined(separator: ", ")
      throw AudioError(
        device: device, reason: .unsupported, message: "device does not support the sample format (\(names))")
    }
    try check(
      snd_pcm_hw_params_set_format(pcm, hw, PCMHandle.alsaFormat(chosen)), "cannot set the sample format")
    var channelCount = UInt32(channels)
    if nearestShape {
      try check(snd_pcm_hw_params_set_channels_near(pcm, hw, &channelCount), "cannot set the channel count")
    } else if snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels)) < 0 {
      var low: UInt32 = 0
      var high: UInt32 = 0
      snd_pcm_hw_params_get_channels_min(hw, &low)
      snd_pcm_hw_params_get_channels_max(hw, &high)
      let range = low == high ? "\(low)" : "\(low)–\(high)"
      throw AudioError(
        device: device, reason: .unsupported,
        message: "device does not support \(channels) channel(s) (it supports \(range))")
    }
    var rate = UInt32(sampleRate)
    if snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil) < 0
      || (rate != UInt32(sampleRate) && !nearestShape)
    {
      throw AudioError(
        device: device, reason: .unsupported,
        message: "device does not support \(sampleRate) Hz (nearest: \(rate) Hz)")
    }
    var bufferTime = bufferMicroseconds
    var periodTime = periodMicroseconds
    _ = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, nil)
    _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, nil)
    try check(snd_pcm_hw_params(pcm, hw), "cannot apply the hardware parameters")
    var period: snd_pcm_uframes_t = 0
    var buffer: snd_pcm_uframes_t = 0
    snd_pcm_hw_params_get_period_size(hw, &period, nil)
    snd_pcm_hw_params_get_buffer_size(hw, &buffer)
    if period == 0 { period = 1024 }
    if buffer < period { buffer = period }

    var sw: OpaquePointer?
    try check(snd_pcm_sw_params_malloc(&sw), "cannot allocate parameters")
    defer { snd_pcm_sw_params_free(sw) }
    try check(snd_pcm_sw_params_current(pcm, sw), "cannot read the software parameters")
    // Playback starts once the buffer is full (or at drain); capture starts at the first read.
    try check(
      snd_pcm_sw_params_set_start_threshold(pcm, sw, capture ? 1 : buffer), "cannot set the start threshold")
    try check(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "cannot set avail_min")
    try check(snd_pcm_sw_params(pcm, sw), "cannot apply the software parameters")

    parameters = ALSAStreamParameters(
      sampleRate: Int(rate), channels: Int(channelCount), sampleType: chosen.bufferType, sampleFormat: chosen,
      periodFrames: Int(period), bufferFrames: Int(buffer))
  }

  /// Frames queued in the device that have not been heard yet (0 when unknown).
  var delay: Int {
    guard let pcm else { return 0 }
    var frames: snd_pcm_sframes_t = 0
    guard snd_pcm_delay(pcm, &frames) == 0 else { return 0 }
    return max(0, Int(frames))
  }

  func close() {
    if let pcm { snd_pcm_close(pcm) }
    pcm = nil
  }
}

/// Device names as shelf takes them, before ALSA does.
enum ALSADeviceName {
  /// The name ALSA opens for `device`: a `file:` device as `ALSAFileSink` reads it (the file
  /// named literally, in the format its extension names), any other name as it is.
  static func opened(_ device: String) -> String {
    guard let sink = try? ALSAFileSink.parse(device) else { return device }
    return sink.alsaName
  }
}
