import ShelfCatalog

/// The catalogue query language (`CatalogQuery`): the input cut at zero bytes into arguments,
/// parsed and turned into SQL for both dialects.
enum QueryTarget: FuzzTarget {
  static let name = "query"
  static func run(_ input: [UInt8]) {
    guard let query = try? CatalogQuery(arguments: FuzzInput.strings(input), now: 1_750_000_000) else {
      return
    }
    _ = try? query.sql(.postgres)
  }
}
