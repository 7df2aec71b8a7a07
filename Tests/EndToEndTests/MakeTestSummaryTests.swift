import Foundation
import ShelfTestSupport
import Testing

/// `make test` (scripts/test.sh) ends with "N passed, N failed" and keeps a failure's status.
@Suite struct MakeTestSummaryTests {
  /// Runs scripts/test.sh with a stand-in `swift` that prints `output` for `swift test` and
  /// exits with `status`; returns the script's output lines and exit status.
  static func runScript(testOutput output: String, status: Int32) throws -> ([String], Int32) {
    let scratch = try TemporaryDirectory()
    let canned = try scratch.write("output", Array(output.utf8))
    // `swift format lint` (through make lint) succeeds; `swift test` replays the canned output.
    let fake = try scratch.write(
      "swift",
      Array(
        """
        #!/bin/sh
        if [ "$1" = test ]; then cat '\(canned)'; exit \(status); fi
        exit 0

        """.utf8))
    chmod(fake, 0o755)
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [ShelfProcess.repositoryRoot.appendingPathComponent("scripts/test.sh").path]
    // The fuzz smoke run needs the real toolchain: it is not what these tests check.
    let environment = ["SWIFT": fake, "SHELF_SKIP_FUZZ": "1"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    return (lines, process.terminationStatus)
  }

  @Test func summaryCountsPassedAndFailedTestsAndKeepsTheFailureStatus() throws {
    let output = """
      ✔ Test alpha() passed after 0.002 seconds.
      ✘ Test beta() recorded an issue at X.swift:3:5: Expectation failed
      ✘ Test beta() failed after 0.003 seconds with 1 issue.
      \u{1B}[32m✔\u{1B}[0m Test gamma(_:) with 3 test cases passed after 0.004 seconds.
      ✔ Suite Things passed after 0.005 seconds.
      ✘ Test run with 3 tests in 1 suite failed after 0.006 seconds with 1 issue.

      """
    let (lines, status) = try Self.runScript(testOutput: output, status: 1)
    #expect(lines.last == "2 passed, 1 failed")
    #expect(status == 1)
  }

  @Test func summaryOfAPassingRunExitsZero() throws {
    let output = """
      ✔ Test alpha() passed after 0.002 seconds.
      ✔ Test run with 1 test in 0 suites passed after 0.003 seconds.

      """
    let (lines, status) = try Self.runScript(testOutput: output, status: 0)
    #expect(lines.last == "1 passed, 0 failed")
    #expect(status == 0)
  }

  /// Concurrent tests can glue a "passed" line onto other output; the run's own total counts.
  @Test func interleavedOutputStillCountsEveryTest() throws {
    let output = """
      ✔ Test alpha() passed after 0.002 seconds.
      progress 50%✔ Test beta() passed after 0.003 seconds.
      ✔ Test run with 3 tests in 1 suite passed after 0.006 seconds.

      """
    let (lines, status) = try Self.runScript(testOutput: output, status: 0)
    #expect(lines.last == "3 passed, 0 failed")
    #expect(status == 0)
  }

  @Test func aCrashedTestRunFailsEvenWithNoFailedTestLine() throws {
    let (lines, status) = try Self.runScript(
      testOutput: "✔ Test alpha() passed after 0.002 seconds.\n", status: 134)
    #expect(lines.last == "1 passed, 0 failed (swift test exited with status 134)")
    #expect(status == 134)
  }
}
