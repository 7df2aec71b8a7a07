import ShelfCore

/// A process exit status following sysexits(3), as documented in shelf(1).
package struct ExitStatus: Equatable, Sendable, CustomStringConvertible {
  /// The numeric code handed to `exit`.
  package var code: Int32

  package init(code: Int32) { self.code = code }

  package static let success = ExitStatus(code: 0)
  /// Some inputs failed, the rest were done.
  package static let partialFailure = ExitStatus(code: 1)
  package static let usage = ExitStatus(code: 64)
  package static let dataError = ExitStatus(code: 65)
  package static let noInput = ExitStatus(code: 66)
  /// The catalogue's database server cannot be reached.
  package static let unavailable = ExitStatus(code: 69)
  package static let cannotCreate = ExitStatus(code: 73)
  package static let ioError = ExitStatus(code: 74)
  /// The catalogue is busy (another writer holds it).
  package static let busy = ExitStatus(code: 75)
  /// Access refused: a wrong or missing password for an encrypted backup.
  package static let noPermission = ExitStatus(code: 77)
  package static let interrupted = ExitStatus(code: 130)

  /// The exit status for a kind of failure.
  package init(failure: FailureKind) {
    switch failure {
    case .badInput: self = .dataError
    case .missingInput: self = .noInput
    case .unavailable: self = .unavailable
    case .cannotCreate: self = .cannotCreate
    case .io: self = .ioError
    case .busy: self = .busy
    case .interrupted: self = .interrupted
    case .usage: self = .usage
    case .noPermission: self = .noPermission
    }
  }

  package var description: String { String(code) }

  /// The table printed in help and man pages, in order.
  static let documented: [(ExitStatus, String)] = [
    (.success, "Success."),
    (
      .partialFailure,
      "Partial failure: some inputs failed, the rest were done (or, for ls, nothing matched)."
    ),
    (.usage, "Usage error: unknown command or option, bad option value."),
    (.dataError, "Bad input data: corrupt, truncated or unsupported content."),
    (.noInput, "An input is missing or unreadable, or is not a regular file."),
    (.unavailable, "The catalogue's PostgreSQL server cannot be reached."),
    (.cannotCreate, "An output file or folder cannot be created."),
    (.ioError, "Input/output error: reading or writing failed part way, device gone."),
    (.busy, "The catalogue is busy: another shelf index holds it."),
    (.noPermission, "Permission denied: wrong or missing password for an encrypted backup."),
    (.interrupted, "Interrupted by Ctrl-C or SIGTERM."),
  ]
}

/// Collects the results of a batch of inputs and derives the exit status: 0 when every input
/// succeeded, 1 when some did and some failed, and when every input failed, the failure's own
/// code (the most severe of them when they differ), so that a script can tell "nothing was
/// done, because…" from a partial run.
struct BatchOutcome: Sendable {
  private(set) var successes = 0
  private(set) var failures: [FailureKind] = []

  /// Records one input done.
  mutating func succeeded() { successes += 1 }

  /// Records one failed input and prints its one-line error.
  mutating func failed(_ error: any Error, console: Console) {
    console.error(String(describing: error))
    failures.append((error as? any ShelfError)?.failure ?? .io)
  }

  /// Records one failed input whose error was already reported (in a summary or a listing).
  mutating func failed(_ failure: FailureKind) { failures.append(failure) }

  /// Records one input left as it is because it changed while shelf worked on it (replaced
  /// or rewritten since it was read), with a one-line warning: nothing is wrong with it, but
  /// the run did not do all it was asked, so the batch exits 1 at least.
  mutating func changed(_ warning: String, console: Console) {
    console.warning(warning)
    changedInputs += 1
  }
  private(set) var changedInputs = 0

  /// The exit status of the batch so far.
  var exitStatus: ExitStatus {
    let status = Self.exitStatus(successes: successes, failures: failures)
    return status == .success && changedInputs > 0 ? .partialFailure : status
  }

  /// The exit status of a batch with `successes` inputs done and `failures` failed (the rule
  /// of every batch command, `play` included).
  static func exitStatus(successes: Int, failures: [FailureKind]) -> ExitStatus {
    guard let worst = failures.max(by: { severity($0) < severity($1) }) else { return .success }
    return successes == 0 ? ExitStatus(failure: worst) : .partialFailure
  }

  /// How much a failure says about the whole run, for choosing one code among several: a
  /// stop and a refused password first (nothing else could have worked), then a failing
  /// device or server, outputs that cannot be written, missing inputs, and bad data last
  /// (77 > 74 > 73 > 66 > 65).
  static func severity(_ failure: FailureKind) -> Int {
    switch failure {
    case .interrupted: 10
    case .noPermission: 9
    case .io: 8
    case .unavailable: 7
    case .busy: 6
    case .cannotCreate: 5
    case .missingInput: 4
    case .badInput: 3
    case .usage: 2
    }
  }
}
