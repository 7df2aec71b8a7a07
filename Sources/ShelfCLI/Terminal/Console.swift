import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The one place shelf writes to the user: requested output to stdout; errors, warnings and
/// progress to stderr; colour and in-place status lines only on a terminal and never when
/// `NO_COLOR` is set.
package final class Console: Sendable {
  package let stdoutIsTerminal: Bool
  package let stderrIsTerminal: Bool
  package let stdinIsTerminal: Bool
  /// True when stdout may carry ANSI colour.
  package let colorEnabled: Bool
  /// True when the progress of batch work (a crush, an index run) may be drawn in place on
  /// stderr with `status`: a terminal, and neither `NO_COLOR` nor `TERM=dumb`, which ask for
  /// plain output. (Interactive screens such as `play`'s status line only need a terminal.)
  package let drawsProgressInPlace: Bool
  private let columnsOverride: Int?
  private let statusShown = Mutex(false)

  init(environment: [String: String]) {
    stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    stderrIsTerminal = isatty(STDERR_FILENO) == 1
    stdinIsTerminal = isatty(STDIN_FILENO) == 1
    colorEnabled =
      stdoutIsTerminal && environment["NO_COLOR", default: ""].isEmpty
      && environment["TERM"] != "dumb"
    drawsProgressInPlace =
      stderrIsTerminal && environment["NO_COLOR", default: ""].isEmpty && environment["TERM"] != "dumb"
    columnsOverride = environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
  }

  /// The terminal's width in columns: `COLUMNS`, else the terminal's, else 80.
  package var width: Int {
    if let columnsOverride { return columnsOverride }
    var size = winsize()
    for descriptor in [STDOUT_FILENO, STDERR_FILENO, STDIN_FILENO] {
      if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 {
        return Int(size.ws_col)
      }
    }
    return 80
  }

  /// The terminal's height in rows, or 24 when unknown.
  package var height: Int {
    var size = winsize()
    for descriptor in [STDOUT_FILENO, STDERR_FILENO, STDIN_FILENO] {
      if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 && size.ws_row > 0 {
        return Int(size.ws_row)
      }
    }
    return 24
  }

  /// Writes text to stdout.
  package func write(_ text: String) {
    clearStatus()
    Self.writeAll(STDOUT_FILENO, Array(text.utf8))
  }

  /// Writes raw bytes to stdout (NUL-separated paths, exact file names).
  package func writeBytes(_ bytes: [UInt8]) {
    clearStatus()
    Self.writeAll(STDOUT_FILENO, bytes)
  }

  /// Calls `body` with a function that queues bytes for stdout, writing them in blocks of
  /// 64 KiB and the rest at the end: long listings stream without a system call per line.
  package func writeInBlocks(_ body: (_ emit: ([UInt8]) -> Void) throws -> Void) rethrows {
    var pending: [UInt8] = []
    try body { bytes in
      pending += bytes
      if pending.count > 1 << 16 {
        writeBytes(pending)
        pending.removeAll(keepingCapacity: true)
      }
    }
    writeBytes(pending)
  }

  /// A batch's progress bar (`crush [####----] 50% 2/4 name`), in place, where the console
  /// draws progress in place (a terminal, without NO_COLOR); elsewhere nothing.
  package func progressBar(_ verb: String, finished: Int, of total: Int, current name: RawPath) {
    guard drawsProgressInPlace else { return }
    let width = 24
    let filled = width * finished / max(1, total)
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    status(
      "\(verb) [\(bar)] \(finished * 100 / max(1, total))% \(finished)/\(total) \(name.lastComponent.escaped)"
    )
  }

  /// Prints `error: <message>` to stderr.
  package func error(_ message: String) {
    clearStatus()
    Self.writeAll(STDERR_FILENO, Array(("error: " + message + "\n").utf8))
  }

  /// Prints `warning: <message>` to stderr.
  package func warning(_ message: String) {
    clearStatus()
    Self.writeAll(STDERR_FILENO, Array(("warning: " + message + "\n").utf8))
  }

  /// Prints a note (progress summaries, hints) to stderr.
  package func note(_ message: String) {
    clearStatus()
    Self.writeAll(STDERR_FILENO, Array((message + "\n").utf8))
  }

  /// Shows `line` as an in-place status line on stderr; does nothing unless stderr is a
  /// terminal. The line is cut to the terminal width.
  package func status(_ line: String) {
    guard stderrIsTerminal else { return }
    let cut = String(line.prefix(max(width - 1, 1)))
    statusShown.withLock { shown in
      shown = true
      Self.writeAll(STDERR_FILENO, Array(("\r\u{1B}[2K" + cut).utf8))
    }
  }

  /// Erases the status line, if one is shown.
  package func clearStatus() {
    statusShown.withLock { shown in
      guard shown else { return }
      shown = false
      Self.writeAll(STDERR_FILENO, Array("\r\u{1B}[2K".utf8))
    }
  }

  /// Wraps `text` in an ANSI SGR code when colour is enabled.
  package func styled(_ text: String, _ code: String) -> String {
    colorEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// Writes every byte, retrying on EINTR and short writes.
  static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          return
        }
        offset += written
      }
    }
  }
}
