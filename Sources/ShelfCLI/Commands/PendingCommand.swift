import ShelfCore

/// The error of a command whose implementation has not landed yet; removed once every
/// command runs for real.
struct PendingCommandError: ShelfError {
  let name: String
  var failure: FailureKind { .io }
  var description: String { "shelf \(name) is not available in this build yet" }
}
