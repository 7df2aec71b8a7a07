internal import CALSA
internal import CALSASupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An ALSA PCM as its configuration hints describe it.
public struct ALSADevice: Sendable, Equatable {
  /// The name to pass to `-D`, e.g. `default`, `hw:CARD=PCH,DEV=0`, `null`.
  public var name: String
  /// The description, possibly several lines joined with " — ".
  public var description: String
  /// Whether it can play.
  public var playback: Bool
  /// Whether it can record.
  public var capture: Bool

  public init(name: String, description: String, playback: Bool, capture: Bool) {
    self.name = name
    self.description = description
    self.playback = playback
    self.capture = capture
  }
}

/// Lists ALSA PCMs from `snd_device_name_hint`.
public enum ALSADevices {
  /// Every PCM ALSA's configuration and the sound cards describe, in ALSA's order.
  public static func list() throws(AudioError) -> [ALSADevice] {
    shelf_alsa_capture_errors()
    var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    let code = snd_device_name_hint(-1, "pcm", &hints)
    guard code >= 0, let hints else {
      throw AudioError(
        subject: "ALSA", reason: .device,
        message: "cannot list devices: \(String(cString: snd_strerror(code)))")
    }
    defer { snd_device_name_free_hint(hints) }
    func value(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
      guard let text = snd_device_name_get_hint(hint, key) else { return nil }
      defer { free(text) }
      return String(cString: text)
    }
    var devices: [ALSADevice] = []
    var index = 0
    while let hint = hints[index] {
      index += 1
      guard let name = value(hint, "NAME") else { continue }
      let description = (value(hint, "DESC") ?? "")
        .split(separator: "\n").map { String($0) }.joined(separator: " — ")
      let io = value(hint, "IOID")
      devices.append(
        ALSADevice(name: name, description: description, playback: io != "Input", capture: io != "Output"))
    }
    return devices
  }
}
