import Foundation

/// A command run on a pseudo-terminal through script(1), for what shelf does only when a
/// person sits at a terminal (password prompts): the terminal's output is the typescript,
/// read as it grows, and lines are typed into its input once a prompt shows.
final class TerminalSession {
  private let script = Process()
  private let input = Pipe()
  private let log: String

  /// Starts `command` (a shell command line) on a terminal whose output is kept in `log`.
  init(_ command: String, log: String) throws {
    self.log = log
    script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    script.arguments = ["--quiet", "--return", "--flush", "--log-out", log, "--command", command]
    script.standardInput = input
    script.standardOutput = FileHandle.nullDevice
    try script.run()
  }

  /// What the terminal has shown so far, its CR LF line ends as LF.
  var screen: String {
    String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
      .replacingOccurrences(of: "\r\n", with: "\n")
  }

  /// Types `line` and Enter once `prompt` has shown `count` times (typed earlier, the
  /// terminal would flush it with the echo); false when it did not show within `timeout`.
  @discardableResult
  func type(_ line: String, after prompt: String, count: Int = 1, timeout: Double = 120) -> Bool {
    let shown = ObservableWait.until(timeout: timeout) {
      screen.components(separatedBy: prompt).count > count
    }
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
    return shown
  }

  /// Closes the input, waits for the command to end and returns its exit status.
  func finish() throws -> Int32 {
    try input.fileHandleForWriting.close()
    script.waitUntilExit()
    return script.terminationStatus
  }
}
