import ShelfCore

/// One command-line argument with its exact bytes, so that file names that are not UTF-8
/// reach the file system unchanged.
package struct CommandLineArgument: Sendable, Equatable {
  /// The argument as text (invalid UTF-8 repaired), for options and queries.
  package let string: String
  /// The argument's exact bytes as a path.
  package let path: RawPath

  package init(bytes: [UInt8]) {
    self.path = RawPath(bytes: bytes)
    self.string = String(decoding: bytes, as: UTF8.self)
  }

  package init(_ string: String) {
    self.path = RawPath(string)
    self.string = string
  }

  /// The process's arguments after the program name, read from argv byte for byte.
  static var processArguments: [CommandLineArgument] {
    (1..<Int(CommandLine.argc)).map { index in
      let pointer = CommandLine.unsafeArgv[index]!
      let length = strlen(pointer)
      return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
        CommandLineArgument(bytes: Array(UnsafeBufferPointer(start: $0, count: length)))
      }
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
