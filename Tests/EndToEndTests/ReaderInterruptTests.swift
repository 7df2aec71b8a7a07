import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C and SIGTERM end `ls`, `show`, `info` and `index` with `interrupted` on stderr and exit
/// status 130, also while they are blocked on a slow pipe.
@Suite struct ReaderInterruptTests {
  /// A shelf process whose stdout (and stdin) are pipes the test holds, stderr a file.
  final class PipedShelf {
    let process = Process()
    let output = Pipe()
    let input = Pipe()
    let stderrPath: String

    init(_ arguments: [String], scratch: TemporaryDirectory) throws {
      stderrPath = scratch.path + "/stderr-\(Int.random(in: 0..<1_000_000))"
      process.executableURL = URL(fileURLWithPath: ShelfProcess.binary)
      process.arguments = arguments
      var environment = ProcessInfo.processInfo.environment
      environment["TMPDIR"] = scratch.path
      process.environment = environment
      process.standardOutput = output
      process.standardInput = input
      _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
      process.standardError = FileHandle(forWritingAtPath: stderrPath)
      try process.run()
    }

    /// Waits until the process has filled its stdout pipe and so is blocked writing.
    func waitUntilOutputPipeIsFull() -> Bool {
      ObservableWait.until {
        var queued: Int32 = 0
        _ = ioctl(output.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &queued)
        return queued >= 65536
      }
    }

    /// Waits until the process holds an open file whose path contains `fragment`.
    func waitUntilHoldingFile(containing fragment: String) -> Bool {
      let folder = "/proc/\(process.processIdentifier)/fd"
      return ObservableWait.until {
        let links = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return links.contains { link in
          let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + link)
          return target?.contains(fragment) == true
        }
      }
    }

    /// Sends `signal`, waits, and returns the exit status (128 + signal when it killed the
    /// process) and what was written to stderr.
    func interrupt(with signal: Int32) -> (status: Int32, stderr: String) {
      kill(process.processIdentifier, signal)
      process.waitUntilExit()
      let status =
        process.terminationReason == .uncaughtSignal
        ? 128 + process.terminationStatus : process.terminationStatus
      return (status, (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func lsBlockedOnASlowPipe(_ signal: Int32) throws {
    let sample = try IndexedSample()
    let template = String(repeating: "{path}", count: 100)
    let shelf = try PipedShelf(
      ["--db", sample.database, "ls", "--format", template], scratch: sample.scratch)
    #expect(shelf.waitUntilOutputPipeIsFull())
    let (status, stderr) = shelf.interrupt(with: signal)
    #expect(status == 130)
    #expect(stderr == "error: interrupted\n")
  }

  @Test func showBlockedOnASlowPipe() throws {
    let scratch = try TemporaryDirectory()
    let text = try scratch.write("long.txt", Array(String(repeating: "a line of text\n", count: 20_000).utf8))
    let shelf = try PipedShelf(["show", text], scratch: scratch)
    #expect(shelf.waitUntilOutputPipeIsFull())
    let (status, stderr) = shelf.interrupt(with: SIGTERM)
    #expect(status == 130)
    #expect(stderr == "error: interrupted\n")
  }

  @Test func infoReadingStandardInput() throws {
    let scratch = try TemporaryDirectory()
    let shelf = try PipedShelf(["--db", scratch.path + "/none.sqlite", "info", "-"], scratch: scratch)
    shelf.input.fileHandleForWriting.write(Data("some text that keeps coming\n".utf8))
    // The spool file is open (and already unlinked) while standard input is read.
    #expect(shelf.waitUntilHoldingFile(containing: "shelf-stream-"))
    let (status, stderr) = shelf.interrupt(with: SIGINT)
    #expect(status == 130)
    #expect(stderr == "error: interrupted\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { $0.hasPrefix("stderr-") }
    )
  }

  @Test func indexOfABigTreeOnSIGTERM() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/many"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    for index in 0..<300 { _ = try scratch.write("many/n\(index).txt", Array("n \(index)\n".utf8)) }
    let database = scratch.path + "/catalog.sqlite"
    let errors = scratch.path + "/stderr"
    let slow = try BackgroundShelf(
      ["--db", database, "index", root],
      environment: ["SHELF_INDEX_BATCH": "20", "SHELF_INDEX_PAUSE": "0.2", "SHELF_TRUST_WINDOW": "0"],
      stderrPath: errors)
    // A first batch is committed: the scan is under way.
    #expect(
      try ObservableWait.until { try ShelfProcess.run(["--db", database, "ls", "--limit", "1"]).status == 0 })
    slow.kill(SIGTERM)
    #expect(slow.wait() == 130)
    #expect(
      (try? String(contentsOfFile: errors, encoding: .utf8))
        == "error: \(root): interrupted; what was scanned so far is kept (run shelf index again to finish)\n")
  }
}
