/// The columns of one SELECT, a case each in the order they are selected: the SELECT list is
/// made from the cases and each value is read at its case's `rawValue`, so no column position
/// is written by hand and the list and the reading cannot drift apart.
package protocol SelectedColumn: CaseIterable, RawRepresentable where RawValue == Int {
  /// The column's expression in the SELECT list.
  var sql: String { get }
}

extension SelectedColumn {
  /// Every case's expression, in order: the SELECT list the cases are read from.
  package static var selectList: String { allCases.map(\.sql).joined(separator: ", ") }
}
