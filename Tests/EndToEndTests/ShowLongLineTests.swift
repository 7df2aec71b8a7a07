import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `show` streams text: a file of one very long line is printed, or paged, holding a block of
/// it at a time (it once needed twice the line's size and aborted under a 2 GiB limit).
@Suite(.serialized) struct ShowLongLineTests {
  static let pattern = "héllo wörld, ünïcode text on one line; "

  /// Writes `count` copies of the pattern, no line feed, and returns the path and its size.
  static func writeLine(_ folder: TemporaryDirectory, count: Int) throws -> (path: String, size: Int) {
    let path = folder.file("line.txt")
    let block = Data(String(repeating: pattern, count: 4096).utf8)
    FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    for _ in 0..<(count / 4096) { handle.write(block) }
    try handle.close()
    return (path, (count / 4096) * block.count)
  }

  @Test func aLineLargerThanTheAddressSpaceLimitIsPrintedWhole() throws {
    let folder = try TemporaryDirectory()
    // 128 MiB of one line, under an address-space limit of 1.5 times that.
    let (path, size) = try Self.writeLine(folder, count: (128 << 20) / Self.pattern.utf8.count)
    let limit = size * 3 / 2
    let outPath = folder.file("out")
    let errPath = folder.file("err")
    let pid = try ShelfProcess.spawn(
      "/usr/bin/time",
      ["/usr/bin/time", "-f", "maxrss=%M", "prlimit", "--as=\(limit)", ShelfProcess.binary, "show", path].map
      {
        Array($0.utf8)
      }, environment: [:], stdinPath: nil, stdoutPath: outPath, stderrPath: errPath)
    let status = ShelfProcess.wait(for: pid, timeout: 600)
    let errors = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    #expect(status == 0, "\(errors)")
    let peak =
      (Int(errors.split(separator: "\n").last { $0.hasPrefix("maxrss=") }?.dropFirst(7) ?? "") ?? 0) << 10
    #expect(peak > 0 && peak < 64 << 20, "peak RSS \(peak) bytes")
    // Every byte, and a line feed to end the line.
    let attributes = try FileManager.default.attributesOfItem(atPath: outPath)
    #expect((attributes[.size] as? NSNumber)?.intValue == size + 1)
    let output = try FileHandle(forReadingFrom: URL(fileURLWithPath: outPath))
    defer { try? output.close() }
    let screen = Array(String(repeating: Self.pattern, count: 80).utf8)
    #expect(Array(try output.read(upToCount: screen.count) ?? Data()) == screen)
    try output.seek(toOffset: UInt64(size - Self.pattern.utf8.count))
    #expect(Array(try output.readToEnd() ?? Data()) == Array((Self.pattern + "\n").utf8))
  }

  @Test func aLongLineIsPagedOnATerminalFromItsFirstScreen() throws {
    let folder = try TemporaryDirectory()
    let (path, _) = try Self.writeLine(folder, count: (8 << 20) / Self.pattern.utf8.count)
    let tmux = try AudioE2E.Tmux(
      "env -u COLUMNS TERM=xterm PAGER='less -R' \(ShelfProcess.binary) show \(path); echo EXIT=$?; sleep 60",
      width: 80, height: 24)
    // less wraps the line: 23 rows of 80 columns of it, then its prompt.
    let text = Array(String(repeating: Self.pattern, count: 60))
    let rows = (0..<23).map { row in
      String(text[(row * 80)..<(row * 80 + 80)]).replacing(#/ +$/#, with: "")
    }
    let expected = rows.joined(separator: "\n") + "\n:"
    let screen = tmux.waitFor(expected)
    #expect(screen.hasPrefix(expected), "\(screen)")
    try tmux.send("q")
    #expect(tmux.waitFor("EXIT=").contains("EXIT=0"))
  }
}
