/// A mistake in how a command was invoked; printed as `error: …`, the usage line and a hint,
/// with exit status 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public let message: String
  /// The command whose usage to print, or nil for the top level.
  public var commandName: String?

  public init(_ message: String, command: String? = nil) {
    self.message = message
    self.commandName = command
  }

  public var description: String { message }
}
