/// `auto`, `always` or `never`: when something meant for a terminal (a colour preview, a
/// progress bar) is shown.
enum WhenChoice: String, CaseIterable, Sendable {
  case auto, always, never

  /// Whether it is shown, where `auto` follows `terminal` (the output is a terminal).
  func applies(onTerminal terminal: Bool) -> Bool {
    switch self {
    case .always: true
    case .never: false
    case .auto: terminal
    }
  }
}
