import Dispatch
import ShelfAudio
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A key press that `shelf play` reacts to.
enum Key: Equatable {
  case character(Character)
  case up, down, left, right
}

/// Puts the terminal on standard input into a mode where keys arrive one by one without echo,
/// and restores it exactly as it was (on `restore()`, at exit and from the stop signals).
///
/// Ctrl-C still raises SIGINT (ISIG stays on), so the usual handlers run.
final class TerminalKeyInput: Sendable {
  private let saved: Mutex<termios?>
  private let stopped = Atomic<Bool>(false)

  /// Switches stdin to key-at-a-time mode; nil when stdin is not a terminal.
  init?() {
    // Reads return after at most 0.1 s, so the reading thread notices when to stop.
    guard let original = TerminalMode.keysWithoutEcho(readTimeoutTenths: 1) else { return nil }
    saved = Mutex(original)
  }

  deinit { restore() }

  /// Puts the terminal back as it was; safe to call more than once and from any thread.
  func restore() {
    saved.withLock { original in
      guard let terminal = original else { return }
      TerminalMode.restore(terminal)
      original = nil
    }
  }

  /// Stops `readKeys` within 0.1 s.
  func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

  /// Reads keys on a thread of its own and hands each to `handler`, until `stop()`.
  func readKeys(_ handler: @escaping @Sendable (Key) -> Void) {
    BlockingThread.start { [self] in
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 32)
      while !stopped.load(ordering: .sequentiallyConsistent) {
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, 32) }
        if count < 0 && errno != EINTR && errno != EAGAIN { break }
        if count <= 0 {
          // A lone ESC followed by nothing is just Escape: drop it.
          pending.removeAll()
          continue
        }
        pending += buffer[0..<count]
        while let (key, used) = TerminalKeyInput.parse(pending) {
          pending.removeFirst(used)
          if let key { handler(key) }
        }
      }
    }
  }

  /// Decodes one key from the start of `bytes`: the key (nil for ignored input) and the bytes
  /// it used; nil when more bytes are needed.
  static func parse(_ bytes: [UInt8]) -> (Key?, Int)? {
    guard let first = bytes.first else { return nil }
    if first == 0x1B {
      guard bytes.count >= 2 else { return nil }
      guard bytes[1] == 0x5B || bytes[1] == 0x4F else { return (nil, 1) }
      guard bytes.count >= 3 else { return nil }
      // CSI sequences end with a byte in 0x40…0x7E.
      var end = 2
      while end < bytes.count && !(0x40...0x7E).contains(bytes[end]) { end += 1 }
      guard end < bytes.count else { return nil }
      let key: Key?
      switch bytes[end] {
      case 0x41: key = .up
      case 0x42: key = .down
      case 0x43: key = .right
      case 0x44: key = .left
      default: key = nil
      }
      return (key, end + 1)
    }
    if first < 0x80 { return (.character(Character(Unicode.Scalar(first))), 1) }
    // Skip a UTF-8 sequence: no command uses one.
    var length = 1
    while length < bytes.count && bytes[length] & 0xC0 == 0x80 { length += 1 }
    return (nil, length)
  }
}

/// Turns SIGINT, SIGTERM and SIGHUP (and any others asked for) into a callback on a queue,
/// so that a command can end cleanly: finalise a recording, restore the terminal.
final class StopSignals: @unchecked Sendable {
  private var sources: [DispatchSourceSignal] = []
  private let numbers: [Int32]

  /// Starts watching `signals`; `handler` gets the signal number.
  init(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], handler: @escaping @Sendable (Int32) -> Void) {
    numbers = signals
    for number in signals {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { handler(number) }
      source.resume()
      sources.append(source)
    }
  }

  /// Stops watching and restores the default actions.
  func cancel() {
    for source in sources { source.cancel() }
    sources.removeAll()
    for number in numbers { signal(number, SIG_DFL) }
  }
}
