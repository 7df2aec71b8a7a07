import ShelfCore
import ShelfDatabase

/// The read statements both stores run, built once for either dialect.
enum CatalogReading {
  /// The SELECT of `columns` (over `files f` and `roots r`) for the entries matching `query`,
  /// in the order `CatalogSort.orderBy` or `CatalogQuery.relevanceOrder` gives, at most
  /// `limit` of them.
  ///
  /// With a limit, either database first picks the ids alone (from an index that holds the sort
  /// keys and the path, where there is one: PostgreSQL's `files_size_path`) and reads only
  /// those rows whole: a row read for every match just to be sorted away costs more than the
  /// whole listing.
  static func select(
    _ columns: String, matching query: CatalogQuery, sort: [CatalogSort], limit: Int?, _ dialect: SQLDialect
  ) throws -> (String, [DatabaseValue]) {
    let (whereSQL, whereParameters) = try query.sql(dialect)
    var order = CatalogSort.orderBy(sort, dialect)
    var orderParameters: [DatabaseValue] = []
    if sort.isEmpty, let relevance = query.relevanceOrder(dialect) {
      order = relevance.keys + ", " + order
      orderParameters = relevance.parameters
    }
    let roots = " JOIN roots r ON r.id = f.root_id"
    guard let limit else {
      return (
        "SELECT \(columns) FROM files f\(roots) WHERE \(whereSQL) ORDER BY \(order)",
        whereParameters + orderParameters
      )
    }
    let chosen =
      "SELECT f.id FROM files f\(query.namesRoots ? roots : "") WHERE \(whereSQL) ORDER BY \(order) LIMIT \(max(limit, 0))"
    return (
      "SELECT \(columns) FROM files f\(roots) WHERE f.id IN (\(chosen)) ORDER BY \(order)",
      whereParameters + orderParameters + orderParameters
    )
  }
}

/// The totals of `stats`, summed from the rows of `sql(_:)`: one pass over the catalogue,
/// grouped by kind and area, and added up here into the totals, the kinds and the areas.
struct CatalogTotals {
  /// Count, size, plausible duration, errors, mismatches and implausible durations per kind
  /// and area. PostgreSQL reads its table once for everything, the years of the photos
  /// included (the `photoYear` column); SQLite reads its `files_totals` index alone, in the
  /// order of kind and area, which grouping by year would break, and counts the photos by year
  /// from the same index apart (`photosByYear`).
  static func sql(_ dialect: SQLDialect) -> String {
    let carriesYears = dialect.totalsCarryPhotoYears
    let columns = Column.allCases.filter { $0 != .rootID }.map {
      $0 == .photoYear && !carriesYears ? "NULL" : $0.sql(in: "")
    }
    return "SELECT \(columns.joined(separator: ", ")) FROM files GROUP BY kind, area"
      + (carriesYears ? ", \(Column.photoYear.position)" : "")
  }

  /// The rows of `sql` for the entries matching `query` alone (`stats QUERY`), in either
  /// dialect: the years of the photos, and the root, so that only the roots holding a match are
  /// listed.
  static func sql(matching query: CatalogQuery, _ dialect: SQLDialect) throws -> (String, [DatabaseValue]) {
    let (whereSQL, parameters) = try query.sql(dialect)
    let columns = Column.allCases.map { $0.sql(in: "f.") }.joined(separator: ", ")
    return (
      "SELECT \(columns) FROM files f JOIN roots r ON r.id = f.root_id WHERE \(whereSQL) "
        + "GROUP BY f.kind, f.area, \(Column.photoYear.position), \(Column.rootID.position)",
      parameters
    )
  }

  /// The columns of `sql`'s rows, in the order selected (`rootID` by `sql(matching:_:)` alone).
  enum Column: Int, CaseIterable {
    case kind, area, count, size, duration, errors, mismatches, implausibleDurations, photoYear, rootID

    /// The column's expression, its columns of `files` named with `table` ("f." or nothing).
    func sql(in table: String) -> String {
      switch self {
      case .kind: "\(table)kind"
      case .area: "\(table)area"
      case .count: "count(*)"
      case .size: "coalesce(sum(\(table)size), 0)"
      case .duration: "coalesce(sum(\(plausibleDuration)), 0)"
      case .errors: "count(\(table)error)"
      case .mismatches: "coalesce(sum(\(table)ext_mismatch), 0)"
      case .implausibleDurations: "count(\(table)duration) - count(\(plausibleDuration))"
      case .photoYear: CatalogTotals.photoYear
      case .rootID: "\(table)root_id"
      }
    }

    /// Its number in SQL's `GROUP BY`, which counts from 1.
    var position: Int { rawValue + 1 }
  }

  /// Images with an EXIF date by the year it names (SQLite's `stats`, from `files_totals`
  /// alone), in the order of `YearColumn`.
  static let photosByYear =
    "SELECT \(YearColumn.selectList) FROM files WHERE kind = 'image' AND taken IS NOT NULL GROUP BY y ORDER BY y"

  /// The columns of `photosByYear`, in the order selected.
  enum YearColumn: Int, SelectedColumn {
    case year, count, size

    var sql: String {
      switch self {
      case .year: "substr(taken, 1, 4) AS y"
      case .count: "count(*)"
      case .size: "coalesce(sum(size), 0)"
      }
    }
  }

  /// The year a photo was taken in, NULL for other entries.
  private static let photoYear = "CASE WHEN kind = 'image' THEN substr(taken, 1, 4) END"

  /// The duration where it is plausible (see `CatalogStore.longestPlausibleDuration`), else NULL.
  static let plausibleDuration =
    "CASE WHEN duration BETWEEN 0 AND \(CatalogStore.longestPlausibleDuration) THEN duration END"

  private var files = 0
  private var size: Int64 = 0
  private var duration = 0.0
  private var errors = 0
  private var mismatches = 0
  private var implausibleDurations = 0
  private var kinds: [String: CatalogGroupStats] = [:]
  private var areas: [String: CatalogGroupStats] = [:]
  private var photoYears: [String: CatalogGroupStats] = [:]

  /// Adds a row of `sql`.
  mutating func add(_ row: some DatabaseRow) {
    func integer(_ column: Column) -> Int64? { row.integer(at: column.rawValue) }
    func text(_ column: Column) -> String? { row.text(at: column.rawValue) }
    let count = Int(integer(.count) ?? 0)
    let rowSize = integer(.size) ?? 0
    let rowDuration = row.real(at: Column.duration.rawValue) ?? 0
    files += count
    size += rowSize
    duration += rowDuration
    errors += Int(integer(.errors) ?? 0)
    mismatches += Int(integer(.mismatches) ?? 0)
    implausibleDurations += Int(integer(.implausibleDurations) ?? 0)
    func add(_ name: String, to groups: inout [String: CatalogGroupStats]) {
      var group = groups[name] ?? CatalogGroupStats(name: name, count: 0, size: 0, duration: 0)
      group.count += count
      group.size += rowSize
      group.duration += rowDuration
      groups[name] = group
    }
    add(text(.kind) ?? "", to: &kinds)
    add(text(.area) ?? "", to: &areas)
    if let year = text(.photoYear) { add(year, to: &photoYears) }
    // The rows of `sql(_:)` have no root column: reading past a row's end gives NULL.
    if let root = integer(.rootID) { rootIDs.insert(root) }
  }

  /// The roots of the rows added, when they carried them (`sql(matching:_:)`).
  private(set) var rootIDs = Set<Int64>()

  /// The statistics, kinds, areas and years in the order of their names' bytes (as SQLite
  /// sorts); `photosByYear` when the rows did not carry the years.
  func stats(photosByYear: [CatalogGroupStats]? = nil, roots: [CatalogRoot]) -> CatalogStats {
    func sorted(_ groups: [String: CatalogGroupStats]) -> [CatalogGroupStats] {
      groups.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
    return CatalogStats(
      files: files, size: size, duration: duration, implausibleDurations: implausibleDurations,
      errors: errors, mismatches: mismatches, byKind: sorted(kinds), byArea: sorted(areas),
      photosByYear: photosByYear
        ?? sorted(photoYears).map {
          CatalogGroupStats(name: $0.name, count: $0.count, size: $0.size, duration: 0)
        }, roots: roots)
  }
}
