import ShelfCatalog

/// Path globs (`PathGlob`): the first byte chooses case folding and literal mode, then the
/// pattern and the subjects are cut at zero bytes.
enum GlobTarget: FuzzTarget {
  static let name = "glob"
  static func run(_ input: [UInt8]) {
    guard let flags = input.first else { return }
    let parts = input.dropFirst().split(separator: 0, omittingEmptySubsequences: false)
    let glob = PathGlob(pattern: Array(parts[0]), foldCase: flags & 1 != 0, literal: flags & 2 != 0)
    for subject in parts.dropFirst().prefix(4) { _ = glob.matches(Array(subject)) }
    _ = PathGlob.hasCapitals(String(decoding: parts[0], as: UTF8.self))
  }
}
