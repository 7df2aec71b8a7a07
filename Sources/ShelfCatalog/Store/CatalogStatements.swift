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
  /// included (a ninth column); SQLite reads its `files_totals` index alone, in the order of
  /// kind and area, which grouping by year would break, and counts the photos by year from
  /// the same index apart (`CatalogSchema.photosByYear`).
  static func sql(_ dialect: SQLDialect) -> String {
    let year = dialect.totalsCarryPhotoYears ? photoYear : "NULL"
    return """
      SELECT kind, area, count(*), coalesce(sum(size), 0), coalesce(sum(\(plausibleDuration)), 0), count(error),
        coalesce(sum(ext_mismatch), 0), count(duration) - count(\(plausibleDuration)), \(year)
      FROM files GROUP BY kind, area\(dialect.totalsCarryPhotoYears ? ", 9" : "")
      """
  }

  /// The rows of `sql` for the entries matching `query` alone (`stats QUERY`), in either
  /// dialect: the years of the photos in the ninth column, the root in a tenth, so that only
  /// the roots holding a match are listed.
  static func sql(matching query: CatalogQuery, _ dialect: SQLDialect) throws -> (String, [DatabaseValue]) {
    let (whereSQL, parameters) = try query.sql(dialect)
    return (
      """
      SELECT f.kind, f.area, count(*), coalesce(sum(f.size), 0), coalesce(sum(\(plausibleDuration)), 0),
        count(f.error), coalesce(sum(f.ext_mismatch), 0), count(f.duration) - count(\(plausibleDuration)),
        \(photoYear), f.root_id
      FROM files f JOIN roots r ON r.id = f.root_id WHERE \(whereSQL) GROUP BY f.kind, f.area, 9, 10
      """, parameters
    )
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
    let count = Int(row.integer(at: 2) ?? 0)
    let rowSize = row.integer(at: 3) ?? 0
    let rowDuration = row.real(at: 4) ?? 0
    files += count
    size += rowSize
    duration += rowDuration
    errors += Int(row.integer(at: 5) ?? 0)
    mismatches += Int(row.integer(at: 6) ?? 0)
    implausibleDurations += Int(row.integer(at: 7) ?? 0)
    func add(_ name: String, to groups: inout [String: CatalogGroupStats]) {
      var group = groups[name] ?? CatalogGroupStats(name: name, count: 0, size: 0, duration: 0)
      group.count += count
      group.size += rowSize
      group.duration += rowDuration
      groups[name] = group
    }
    add(row.text(at: 0) ?? "", to: &kinds)
    add(row.text(at: 1) ?? "", to: &areas)
    if let year = row.text(at: 8) { add(year, to: &photoYears) }
    if let root = row.integer(at: 9) { rootIDs.insert(root) }
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
