import Foundation

/// The independent tools the tests check shelf against (ffmpeg, ffprobe, lame, mutagen,
/// ImageMagick, heif-enc), run with their output captured.
public enum ExternalTool {
  /// What a tool printed and how it exited.
  public struct Outcome: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
  }

  /// Runs `arguments` (found through PATH) and waits for it.
  @discardableResult
  public static func run(_ arguments: [String]) throws -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus, stdout: data, stderr: String(decoding: errors, as: UTF8.self))
  }

  /// True when every one of `names` is an executable on PATH (tests that need a tool skip,
  /// saying which, when it is missing).
  public static func isInstalled(_ names: [String]) -> Bool {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
    return names.allSatisfy { name in folders.contains { access("\($0)/\(name)", X_OK) == 0 } }
  }

  /// Runs a tool that makes a test's input; fails the test's set-up when the tool fails.
  public static func make(_ arguments: [String]) throws {
    let outcome = try run(arguments)
    guard outcome.status == 0 else { throw ToolFailure(tool: arguments[0], message: outcome.stderr) }
  }

  /// Runs ffmpeg quietly, overwriting its output; fails the test's set-up when ffmpeg fails.
  public static func ffmpeg(_ arguments: [String]) throws {
    let outcome = try run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
    guard outcome.status == 0 else { throw ToolFailure(tool: "ffmpeg", message: outcome.stderr) }
  }

  /// ffprobe's JSON description of a file's format and streams.
  public static func ffprobe(_ path: String) throws -> [String: Any] {
    let outcome = try run(["ffprobe", "-v", "error", "-of", "json", "-show_format", "-show_streams", path])
    guard outcome.status == 0,
      let json = try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any]
    else { throw ToolFailure(tool: "ffprobe", message: outcome.stderr) }
    return json
  }

  /// A tool that failed while a test set up its input.
  public struct ToolFailure: Error, CustomStringConvertible {
    public var tool: String
    public var message: String
    public var description: String { "\(tool) failed: \(message)" }
  }
}
