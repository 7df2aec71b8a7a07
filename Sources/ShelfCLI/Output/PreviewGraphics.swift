import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// How `shelf show` draws a picture: a terminal graphics protocol, character cells, or not at
/// all.
enum PreviewGraphics: String, CaseIterable {
  /// The kitty graphics protocol: RGBA pixels, base64 in APC escapes (kitty, WezTerm, Ghostty).
  case kitty
  /// DEC sixel graphics (xterm -ti vt340, foot, mlterm, WezTerm, iTerm2, mintty).
  case sixel
  /// Half-block characters (▀) in the colours the terminal has (24-bit, 256 or 16), or grey ASCII
  /// shades without colour.
  case blocks
  /// The image's facts only.
  case none

  /// The drawing for this run: `requested` when named, else the best the terminal announces.
  ///
  /// `auto` draws nothing into a pipe unless `--color always` asks for the half-block preview;
  /// on a terminal it uses kitty's protocol under kitty (`TERM=xterm-kitty` or
  /// `KITTY_WINDOW_ID`), sixels when the terminal's primary device attributes (DA1) list
  /// feature 4, and half-blocks otherwise (also whenever colour is off).
  static func choose(
    requested: PreviewGraphics?, color: ShowOptions.ColorChoice, console: Console,
    environment: [String: String]
  ) -> PreviewGraphics {
    if let requested { return requested }
    guard console.stdoutIsTerminal else { return color == .always ? .blocks : .none }
    guard color.enabled(console) else { return .blocks }
    if environment["TERM"] == "xterm-kitty" || !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty {
      return .kitty
    }
    if console.stdinIsTerminal, let attributes = TerminalQuery.primaryDeviceAttributes(),
      attributes.contains(4)
    {
      return .sixel
    }
    return .blocks
  }
}

/// Questions asked of the terminal on stdin/stdout.
enum TerminalQuery {
  /// The terminal's answer to DA1 (`ESC [ c` → `ESC [ ? 62 ; 4 ; 22 c`) as its numbers; nil
  /// when it does not answer within a quarter of a second or stdin is not a terminal.
  static func primaryDeviceAttributes(timeoutMilliseconds: Int32 = 250) -> [Int]? {
    guard let original = TerminalMode.keysWithoutEcho(readTimeoutTenths: 0) else { return nil }
    defer { TerminalMode.restore(original) }
    Console.writeAll(STDOUT_FILENO, Array("\u{1B}[c".utf8))
    let deadline = MonotonicClock.seconds() + Double(timeoutMilliseconds) / 1000
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    while reply.last != UInt8(ascii: "c") && reply.count < 256 {
      let remaining = Int32((deadline - MonotonicClock.seconds()) * 1000)
      guard remaining > 0 else { return nil }
      var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, remaining)
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { return nil }
      let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      reply += buffer.prefix(count)
    }
    return parseDeviceAttributes(reply)
  }

  /// The numbers of a DA1 reply `ESC [ ? n ; n … c`, wherever it starts in `bytes`.
  static func parseDeviceAttributes(_ bytes: [UInt8]) -> [Int]? {
    let introducer: [UInt8] = [0x1B, UInt8(ascii: "["), UInt8(ascii: "?")]
    guard bytes.last == UInt8(ascii: "c"),
      let start = bytes.indices.first(where: { bytes[$0...].starts(with: introducer) })
    else { return nil }
    let body = String(decoding: bytes[(start + 3)..<(bytes.count - 1)], as: UTF8.self)
    let numbers = body.split(separator: ";").compactMap { Int($0) }
    return numbers.isEmpty ? nil : numbers
  }

  /// The size of one character cell in pixels, from the terminal (`TIOCGWINSZ`); nil when the
  /// terminal does not say.
  static func cellPixelSize() -> (width: Int, height: Int)? {
    var size = winsize()
    for descriptor in [STDOUT_FILENO, STDIN_FILENO, STDERR_FILENO] {
      if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0,
        size.ws_xpixel > 0, size.ws_ypixel > 0
      {
        return (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
      }
    }
    return nil
  }
}
