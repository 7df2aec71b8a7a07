/// A mistake in how a command was invoked; printed as `error: …`, the usage line and a hint,
/// with exit status 64.
package struct UsageError: Error, Equatable, CustomStringConvertible {
  package let message: String
  /// The command whose usage to print, or nil for the top level.
  package var commandName: String?

  package init(_ message: String, command: String? = nil) {
    self.message = message
    self.commandName = command
  }

  package var description: String { message }
}
