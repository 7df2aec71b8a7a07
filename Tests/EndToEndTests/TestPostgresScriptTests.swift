import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The throwaway PostgreSQL server of `make test` (scripts/test-postgres.sh): the tests get a
/// working server with the store's extensions, listening only where promised, and nothing of
/// it is left once the run ends, fails, is interrupted or its script is killed.
@Suite(.serialized) struct TestPostgresScriptTests {
  /// What a stand-in test command saw of the server, written to `report` by the script that
  /// `commandScript` returns: the URL, the data folder, the extensions, the listen addresses,
  /// the socket folder, then the stand-in's pid.
  struct ServerReport {
    var lines: [String]
    var url: String { lines[0] }
    /// The script's temporary folder (the data folder's parent).
    var folder: String { (lines[1] as NSString).deletingLastPathComponent }
  }

  /// A shell script that describes the server it was given, then exits with `status`, or with
  /// `status` nil stays running (a test run still going when it is interrupted).
  static func commandScript(in scratch: TemporaryDirectory, report: String, status: Int32?) throws -> String {
    let ending = status.map { "exit \($0)" } ?? "exec sleep 600"
    return try scratch.write(
      "command",
      Array(
        """
        #!/bin/bash
        if [ "$1" = format ]; then exit 0; fi
        {
          echo "$SHELF_TEST_POSTGRES_URL"
          psql "$SHELF_TEST_POSTGRES_URL" -X -A -t -c 'SHOW data_directory' \\
            -c "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension" \\
            -c 'SHOW listen_addresses' -c 'SHOW unix_socket_directories'
          echo $$
        } > '\(report).partial'
        mv '\(report).partial' '\(report)'
        \(ending)

        """.utf8))
  }

  static func readReport(_ path: String) throws -> ServerReport {
    #expect(ObservableWait.until { FileManager.default.fileExists(atPath: path) })
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return ServerReport(lines: text.split(separator: "\n").map(String.init))
  }

  /// True when something still answers at `url` (pg_isready: 0 accepting, 1 rejecting).
  static func serverAnswers(_ url: String) throws -> Bool {
    try ExternalTool.run(["pg_isready", "-q", "-d", url]).status < 2
  }

  /// Starts bash with `arguments`, output discarded, with default signal handling (see
  /// `ShelfProcess.withDefaultSignals`).
  static func startScript(_ arguments: [String], environment: [String: String] = [:]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
      posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
    }
    // Empty: test.sh starts a server of its own even inside `make test`.
    let merged = ProcessInfo.processInfo.environment
      .merging(["SHELF_TEST_POSTGRES_URL": ""].merging(environment) { $1 }) { $1 }
    let argv = (["bash"] + arguments).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let code = ShelfProcess.withDefaultSignals { posix_spawn(&pid, "/bin/bash", &actions, &$0, argv, envp) }
    guard code == 0 else { throw ShelfProcessError.spawn("/bin/bash", code) }
    return pid
  }

  static let script = ShelfProcess.repositoryRoot.appendingPathComponent("scripts/test-postgres.sh").path

  /// A run of the script whose stand-in command stays up: the script's pid, what the command
  /// saw of the server, and the scratch folder holding the command.
  struct StandingRun {
    let scratch: TemporaryDirectory
    let pid: pid_t
    let server: ServerReport
  }

  /// Starts `test-postgres.sh run` with a stand-in command that stays running, and waits for
  /// the command's report of the server.
  static func startStandingRun() throws -> StandingRun {
    let scratch = try TemporaryDirectory()
    let report = scratch.path + "/report"
    let command = try commandScript(in: scratch, report: report, status: nil)
    let pid = try startScript([script, "run", "bash", command])
    let server = try readReport(report)
    try #require(server.lines.count == 6)
    return StandingRun(scratch: scratch, pid: pid, server: server)
  }

  @Test func makeTestServesAServerWithTheExtensionsAndRemovesItWhenTestsFail() throws {
    let scratch = try TemporaryDirectory()
    let report = scratch.path + "/report"
    let fakeSwift = try Self.commandScript(in: scratch, report: report, status: 1)
    chmod(fakeSwift, 0o755)
    let testScript = ShelfProcess.repositoryRoot.appendingPathComponent("scripts/test.sh").path
    let run = try Self.startScript([testScript], environment: ["SWIFT": fakeSwift])
    #expect(ShelfProcess.wait(for: run, timeout: 120) == 1)

    let server = try Self.readReport(report)
    try #require(server.lines.count == 6)
    #expect(server.url.hasPrefix("postgresql://postgres@127.0.0.1:"))
    #expect(server.url.hasSuffix("/shelf_test"))
    #expect(server.lines[2] == "pg_trgm,plpgsql,unaccent")
    #expect(server.lines[3] == "127.0.0.1")
    #expect(server.lines[4] == server.folder)
    #expect(server.folder.contains("/shelf-pg."))
    #expect(!FileManager.default.fileExists(atPath: server.folder))
    #expect(try !Self.serverAnswers(server.url))
  }

  @Test func aTerminatedRunStopsItsCommandAndRemovesTheServer() throws {
    let standing = try Self.startStandingRun()
    let (run, server) = (standing.pid, standing.server)
    #expect(try Self.serverAnswers(server.url))

    kill(run, SIGTERM)
    #expect(ShelfProcess.wait(for: run, timeout: 120) == 143)
    let commandPID = pid_t(server.lines[5])!
    #expect(kill(commandPID, 0) == -1 && errno == ESRCH)
    #expect(!FileManager.default.fileExists(atPath: server.folder))
    #expect(try !Self.serverAnswers(server.url))
  }

  @Test func aKilledRunStillRemovesTheServer() throws {
    let standing = try Self.startStandingRun()
    let (run, server) = (standing.pid, standing.server)
    // The stand-in outlives a SIGKILL of the script; end it when the test does.
    defer { kill(pid_t(server.lines[5])!, SIGKILL) }

    kill(run, SIGKILL)
    #expect(ShelfProcess.wait(for: run, timeout: 120) == 128 + SIGKILL)
    // The watcher notices the script is gone and stops the server.
    #expect(ObservableWait.until { !FileManager.default.fileExists(atPath: server.folder) })
    #expect(try !Self.serverAnswers(server.url))
  }

  @Test func aCommandsFailureIsTheRunsStatus() throws {
    let scratch = try TemporaryDirectory()
    let report = scratch.path + "/report"
    let command = try Self.commandScript(in: scratch, report: report, status: 3)
    let run = try Self.startScript([Self.script, "run", "bash", command])
    #expect(ShelfProcess.wait(for: run, timeout: 120) == 3)
    let server = try Self.readReport(report)
    #expect(!FileManager.default.fileExists(atPath: server.folder))
  }
}
