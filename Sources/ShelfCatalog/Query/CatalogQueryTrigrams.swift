import ShelfCore

/// Path trigrams: the rows a glob or a bare word may match, narrowed through SQLite's trigram table.
extension CatalogQuery {
  /// The rows whose path holds some trigrams, read from SQLite's path trigram table
  /// (`files_paths`) alone: a superset, always ANDed with the exact condition.
  static let pathTrigramsSQL = "f.id IN (SELECT rowid FROM files_paths WHERE files_paths MATCH ?)"

  /// The most trigrams a lookup names: each is a list of rows to intersect, and a few spread
  /// over the runs narrow the rows about as well as all of them.
  static let trigramLimit = 8

  /// An FTS5 query (`"lig" "hth" "use"`, ANDed) for trigrams that every path matching the
  /// literal runs of `units` holds, for `pathTrigramsSQL`; nil when no run of ASCII is three
  /// characters long. Only ASCII goes in: SQLite's trigram table folds case as the glob does
  /// there (KELVIN SIGN included), while its folding of other letters may differ.
  static func trigramQuery(_ units: [UInt32]) -> String? {
    trigramQuery(units.map { PathGlob.Element.unit($0) })
  }

  static func trigramQuery(_ elements: [PathGlob.Element]) -> String? {
    var runs: [[Unicode.Scalar]] = [[]]
    for element in elements {
      if case .unit(let unit) = element, unit < 0x80, let scalar = Unicode.Scalar(unit) {
        runs[runs.count - 1].append(scalar)
      } else if !runs[runs.count - 1].isEmpty {
        runs.append([])
      }
    }
    var trigrams: [String] = []
    for run in runs where run.count >= 3 {
      // Trigrams that do not overlap, and the run's last one.
      var starts = Array(stride(from: 0, through: run.count - 3, by: 3))
      if starts.last != run.count - 3 { starts.append(run.count - 3) }
      for start in starts {
        var trigram = String.UnicodeScalarView()
        trigram.append(contentsOf: run[start..<start + 3])
        trigrams.append("\"" + String(trigram).replacingAll("\"", with: "\"\"") + "\"")
      }
    }
    guard !trigrams.isEmpty else { return nil }
    // Spread over the whole pattern when there are more than the limit.
    let step = max(1, (trigrams.count + trigramLimit - 1) / trigramLimit)
    return stride(from: 0, to: trigrams.count, by: step).map { trigrams[$0] }.joined(separator: " ")
  }
}
