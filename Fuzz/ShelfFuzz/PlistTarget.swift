import ShelfCatalog
import ShelfCore

/// Binary and XML property lists: `PropertyList.parse`, then the catalogue's facts of the result.
enum PlistTarget: FuzzTarget {
  static let name = "plist"
  static func run(_ input: [UInt8]) {
    guard let plist = try? PropertyList.parse(input) else { return }
    _ = plist.facts
    _ = plist.root == plist.root
  }
}
