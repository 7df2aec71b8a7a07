import ShelfCore
import ShelfFacts

/// What the parent reads from an extraction worker (`WireFormat`): the bytes taken as a file's
/// facts. A worker that misbehaved must cost its file an error, never the parent a trap.
enum WireTarget: FuzzTarget {
  static let name = "wire"
  static func run(_ input: [UInt8]) {
    _ = try? WireFormat.decode(FileFacts.self, from: input)
  }
}
