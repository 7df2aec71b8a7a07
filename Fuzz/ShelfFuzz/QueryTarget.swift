import ShelfCatalog

/// The catalogue query language (`CatalogQuery`): the input cut at zero bytes into arguments,
/// parsed and turned into SQL for both dialects; and each argument folded as the full-text
/// index folds a file's text (`SearchTextFolding`), which comes from files' bytes.
enum QueryTarget: FuzzTarget {
  static let name = "query"
  static func run(_ input: [UInt8]) {
    let arguments = FuzzInput.strings(input)
    for argument in arguments { _ = SearchTextFolding.indexed(argument) }
    guard let query = try? CatalogQuery(arguments: arguments, now: 1_750_000_000) else {
      return
    }
    _ = try? query.sql(.postgres)
  }
}
