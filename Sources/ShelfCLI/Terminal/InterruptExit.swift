#if canImport(Glibc)
  import Glibc
#endif

/// Ends a command that holds nothing to finish (a reader: ls, info, show) on Ctrl-C or
/// SIGTERM with `error: interrupted` on stderr (as play and crush say it) and exit status 130, even while it is blocked
/// writing into a slow pipe. Commands that must finish work first (index, record, crush)
/// watch signals with `StopSignals` instead.
struct InterruptExit {
  static let signals = [SIGINT, SIGTERM]

  /// Installs the handlers; `cancel()` restores the default actions.
  static func install() -> InterruptExit {
    for number in signals {
      // Only async-signal-safe calls: one write of a static message, then _exit.
      signal(number) { _ in
        let message: StaticString = "error: interrupted\n"
        _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
        _exit(130)
      }
    }
    return InterruptExit()
  }

  /// Ignores the signals while `body` runs (a pager in the foreground handles Ctrl-C itself),
  /// then installs the handlers again.
  func ignoring<Result>(_ body: () throws -> Result) rethrows -> Result {
    for number in Self.signals { signal(number, SIG_IGN) }
    defer { _ = Self.install() }
    return try body()
  }

  /// Restores the default actions.
  func cancel() {
    for number in Self.signals { signal(number, SIG_DFL) }
  }
}
