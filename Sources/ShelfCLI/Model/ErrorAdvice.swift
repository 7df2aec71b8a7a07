import ShelfAudio
import ShelfCore

/// What to type instead, added to a library's error by the command line: libraries never
/// mention options, so the advice that names one (`-D null`) lives here, in one place.
enum ErrorAdvice {
  /// The error's one-line message, with advice for `command` appended when there is some.
  static func message(for error: any ShelfError, command: String) -> String {
    guard let advice = advice(for: error, command: command) else { return error.description }
    return "\(error.description) \(advice)"
  }

  /// The advice for an error met by `command`, in parentheses, or nil.
  static func advice(for error: any ShelfError, command: String) -> String? {
    guard let audio = error as? AudioError else { return nil }
    switch (audio.reason, command) {
    case (.noSuchDevice, "play"): return "(no sound card? try -D null, or -D file:/path/out.wav)"
    // ALSA's file plugin saves what is captured but cannot feed a recording from a file by
    // name: only null (silence) works without a card.
    case (.noSuchDevice, "record"): return "(no sound card? try -D null, which records silence)"
    case (.exists, "record"), (.exists, "play"): return "(use --force to overwrite)"
    case (.invalidRequest, "record") where audio.subject.hasPrefix("device file:"):
      return "(see RECORDING FROM A FILE in shelf-record(1))"
    default: return nil
    }
  }
}
