import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Waiting on something a test can observe (a file's size, a line of output, a catalogue row)
/// instead of sleeping for a fixed time: fast on an idle machine, patient on a loaded one.
enum ObservableWait {
  /// Polls `condition` every 20 ms until it holds (true) or `timeout` seconds pass (false).
  static func until(timeout: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if try condition() { return true }
      if Date() > deadline { return false }
      usleep(20_000)
    }
  }

  /// The contents of `path` once it holds a complete line (the writer's newline arrived), or
  /// what it holds when `timeout` runs out.
  static func line(in path: String, timeout: Double = 30) -> [UInt8] {
    var contents: [UInt8] = []
    _ = until(timeout: timeout) {
      contents = Array(FileManager.default.contents(atPath: path) ?? Data())
      return contents.last == UInt8(ascii: "\n")
    }
    return contents
  }

  /// The size of the file at `path` (0 when it does not exist yet).
  static func size(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : 0
  }
}
