#if canImport(Glibc)
  import Glibc
#endif

/// The terminal on standard input switched so that bytes arrive as typed, without echo.
enum TerminalMode {
  /// Turns off line editing and echo on stdin (signals such as Ctrl-C stay on), with reads
  /// returning after at most `readTimeoutTenths` tenths of a second (0: at once); returns the
  /// settings to restore, or nil when stdin is not a terminal or refuses the change.
  static func keysWithoutEcho(readTimeoutTenths: UInt8) -> termios? {
    var original = termios()
    guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
    var raw = original
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 0
      cc[Int(VTIME)] = readTimeoutTenths
    }
    guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
    return original
  }

  /// Puts back settings `keysWithoutEcho` returned.
  static func restore(_ settings: termios) {
    var settings = settings
    tcsetattr(STDIN_FILENO, TCSANOW, &settings)
  }
}
