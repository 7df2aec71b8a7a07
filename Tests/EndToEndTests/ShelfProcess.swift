import Foundation
import ShelfTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What a run of the `shelf` binary produced.
struct ShelfResult {
  let status: Int32
  let stdoutBytes: [UInt8]
  let stderrBytes: [UInt8]
  var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
  var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
}

/// Runs the built `shelf` binary (the one beside the test bundle) with exact argument bytes,
/// captured stdout and stderr, an optional stdin file, and a time limit.
enum ShelfProcess {
  /// The repository root (for SampleMedia, man/ and fixtures).
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The `shelf` executable built with the tests.
  static let binary: String = {
    if let override = ProcessInfo.processInfo.environment["SHELF_BINARY"] { return override }
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
    // The test runner may live inside a .xctest bundle folder.
    while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("shelf").path),
      folder.path != "/"
    {
      folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("shelf").path
  }()

  /// The `XDG_DATA_HOME` every spawned shelf gets unless a test sets its own, so that a test
  /// run never reads or writes the default catalogue of the user running it.
  static var isolatedDataHome: String { isolatedDataFolder.path }
  private static let isolatedDataFolder = try! TemporaryDirectory.forProcess()

  /// Runs shelf with string arguments.
  static func run(
    _ arguments: [String], environment: [String: String] = [:], stdinPath: String? = nil,
    launcher: [String] = [], timeout: Double = 120
  ) throws -> ShelfResult {
    try run(
      bytes: arguments.map { Array($0.utf8) }, environment: environment, stdinPath: stdinPath,
      launcher: launcher, timeout: timeout)
  }

  /// Runs shelf with raw argument bytes (for file names that are not UTF-8), through
  /// `launcher` when given (a command that runs the rest of its arguments, e.g. `prlimit`).
  static func run(
    bytes arguments: [[UInt8]], environment: [String: String] = [:], stdinPath: String? = nil,
    launcher: [String] = [], timeout: Double = 120
  ) throws -> ShelfResult {
    let scratch = try TemporaryDirectory()
    let outPath = scratch.path + "/stdout"
    let errPath = scratch.path + "/stderr"
    let program = launcher.isEmpty ? binary : "/usr/bin/env"
    let prefix = launcher.isEmpty ? [] : ["env"] + launcher
    let pid = try spawn(
      program, (prefix + [binary]).map { Array($0.utf8) } + arguments,
      environment: ["COLUMNS": "80"].merging(environment) { $1 }, stdinPath: stdinPath,
      stdoutPath: outPath, stderrPath: errPath)

    guard let exitStatus = wait(for: pid, timeout: timeout) else {
      throw ShelfProcessError.timeout(arguments.map { String(decoding: $0, as: UTF8.self) })
    }
    return ShelfResult(
      status: exitStatus,
      stdoutBytes: Array(FileManager.default.contents(atPath: outPath) ?? Data()),
      stderrBytes: Array(FileManager.default.contents(atPath: errPath) ?? Data()))
  }
}

extension ShelfProcess {
  /// Starts `program` with exact argument bytes (`argv[0]` included), the test's environment
  /// plus `NO_COLOR`, no session bus and `environment`, stdin from `stdinPath` (else /dev/null), and stdout and
  /// stderr written to files; returns its pid.
  static func spawn(
    _ program: String, _ argvBytes: [[UInt8]], environment: [String: String], stdinPath: String?,
    stdoutPath: String, stderrPath: String
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var merged = ProcessInfo.processInfo.environment
    merged["NO_COLOR"] = "1"
    // Never the user's catalogue: the default one lives in this run's own data folder.
    merged["SHELF_DB"] = nil
    merged["XDG_DATA_HOME"] = isolatedDataHome
    // Nor the user's resume points.
    merged["XDG_STATE_HOME"] = isolatedDataHome + "/state"
    // Never the machine's session bus, where a playing shelf would show (MPRIS): the MPRIS
    // tests give a private bus of their own.
    merged["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
    for (key, value) in environment { merged[key] = value }
    let argv = argvBytes.map(cString) + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let code = withDefaultSignals { posix_spawn(&pid, program, &actions, &$0, argv, envp) }
    guard code == 0 else { throw ShelfProcessError.spawn(program, code) }
    return pid
  }

  /// Runs `body` with spawn attributes that give the child an empty signal mask and default
  /// handling of every signal: tests run on libdispatch's worker threads, which block most
  /// signals, and a child spawned without these attributes keeps that mask (SIGTERM would
  /// never reach it, and tmux's event loop would never see SIGCHLD).
  static func withDefaultSignals<Result>(_ body: (inout posix_spawnattr_t) throws -> Result) rethrows
    -> Result
  {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
  }

  /// Waits for `pid` to exit and returns its status (128 + signal when killed); after
  /// `timeout` seconds it kills the process with SIGKILL and returns nil.
  static func wait(for pid: pid_t, timeout: Double) -> Int32? {
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(timeout)
    while waitpid(pid, &status, WNOHANG) == 0 {
      if Date() > deadline {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
      }
      usleep(2000)
    }
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
  }
}

/// A malloc'd NUL-terminated copy of exact bytes (strdup of a String would repair bad UTF-8).
private func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
  let copy = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
  for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
  copy[bytes.count] = 0
  return copy
}

enum ShelfProcessError: Error {
  case spawn(String, Int32)
  case timeout([String])
}

extension TemporaryDirectory {
  /// Copies a file or folder of the repository (e.g. "SampleMedia") into this folder.
  @discardableResult
  func copy(fromRepository relativePath: String, as name: String? = nil) throws -> String {
    let source = ShelfProcess.repositoryRoot.appendingPathComponent(relativePath).path
    let destination = path + "/" + (name ?? (relativePath as NSString).lastPathComponent)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
    return destination
  }

}
