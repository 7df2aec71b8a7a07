public import ShelfAudio
public import ShelfCore
import ShelfDatabase
public import ShelfFacts

/// One field of a catalogue entry, as one row of `FactField.table`: its column in `files`, how
/// the value is written there and read back, its names in queries, `-f` templates and `--json`,
/// how `info` shows it, and whether bare words search it. The column lists, the row values and
/// their decoding, the query fields, the template fields, the JSON records and the field lists
/// of the manual all derive from the table, so that a new fact is its type, its reader and one
/// row (as beets' `_fields` table of a model, from which columns, queries and formatting come).
public struct FactField: Sendable {
  /// The name in `--json` (within the object of its group) and in `-f` templates.
  public let name: String
  /// The JSON objects the field is shown in (a video's width and an image's are one column).
  public let groups: [FactGroup]
  /// The `files` column, or what is selected in its place; nil for a field shown from others.
  let column: Column?
  /// How queries name and compare the field; nil when no query names it.
  let query: QueryBinding?
  /// The value shown in `--json` and, unless `template` says otherwise, in templates; nil when
  /// the entry lacks it.
  public let value: @Sendable (CatalogEntry) -> FactValue?
  /// How a `-f` template writes the value.
  let template: TemplateForm
  /// When `--json` prints the field (within its group's object, or at the top).
  public let json: JSONForm
  /// What the field's JSON means, for the manual (`duration (seconds)`); nil when its name says it.
  let jsonHelp: String?
  /// The line `info` prints for it: label and text, nil when the entry has none.
  public let info: InfoLine?
  /// True for the tags bare words find (`ls beatles`): indexed as full text and ranked first.
  let searched: Bool
  /// True when an `ls` listing reads it (`CatalogPresentation.keyFacts` shows it).
  let listed: Bool
  /// True when comparing contents reads it (`dupes`, `copies`): where the file is and its status,
  /// what tells a backup entry, the facts that rank look-alikes.
  let compared: Bool

  /// The `files` column of a field: its SQL type, the schema version that added it, how an
  /// entry's value is written there and how it is read back.
  struct Column: Sendable {
    /// The column's name in `files`; for a column selected from elsewhere, its SQL.
    let name: String
    let type: CatalogSchema.ColumnType
    let notNull: Bool
    /// The schema version that added it (from schema 7 on, its migration adds it).
    let since: Int
    /// Where the value is read from: a column of `files`, or a SQL expression selected in its
    /// place (the root's path, the measured gains), which an upsert does not write.
    let source: Source
    /// The value written for an entry; nil for a column the scan does not write with the facts
    /// (the Live Photo links) or that is not in `files`.
    let writer: Writer?
    /// Sets the entry's fact from the stored value (never NULL); nil for a column only
    /// written (the name, the path's text).
    let reader: Reader?

    init(
      name: String, type: CatalogSchema.ColumnType, notNull: Bool = false, since: Int = 1,
      source: Source = .files, write: (@Sendable (CatalogEntry, FileRowContext) -> DatabaseValue)?,
      read: (@Sendable (inout CatalogEntry, DatabaseValue) -> Void)?
    ) {
      self.name = name
      self.type = type
      self.notNull = notNull
      self.since = since
      self.source = source
      writer = write.map(Writer.init)
      reader = read.map(Reader.init)
    }

    // A function kept in a struct of its own is stored and called as written: one held bare in
    // an Optional or an Array is called through a thunk that copies the whole entry, once per
    // column (a tenth of a fresh index's time).

    /// How a column's value is written.
    struct Writer: Sendable {
      let write: @Sendable (CatalogEntry, FileRowContext) -> DatabaseValue
    }

    /// How a column's value is read back.
    struct Reader: Sendable {
      let read: @Sendable (inout CatalogEntry, DatabaseValue) -> Void
    }

    enum Source: Sendable, Equatable {
      case files
      /// SQL selected with the entry (`r.path`), per dialect.
      case selected(sqlite: String, postgres: String)
    }

    /// The SQL an entry query selects for it.
    func selected(_ dialect: SQLDialect) -> String {
      switch source {
      case .files: "f." + name
      case .selected(let sqlite, let postgres): dialect == .sqlite ? sqlite : postgres
      }
    }
  }

  /// The query names of a field and how `:` and the comparisons treat its value.
  struct QueryBinding: Sendable {
    /// The names queries use, the first the field's own (`mime`, then `type`).
    let names: [String]
    let type: CatalogQuery.FieldType
    /// The SQL compared, when not the column (`coalesce(…)`, `substr(f.taken, 1, 19)`).
    var sql: String? = nil
    /// For globs: the BLOB of the raw bytes, and whether only its last component counts.
    var bytes: (column: String, lastComponent: Bool)? = nil
    /// The values a field with a closed set takes, in documented order.
    var choices: [String]? = nil
    /// What the field is, for the manual's list of fields (`depth (bits per sample)`).
    var help: String? = nil
  }

  /// How a template writes a field.
  enum TemplateForm: Sendable {
    /// As the value reads (text, yes or no, a path's bytes, a list with spaces).
    case value
    /// A whole number, which `{field:02}` pads with zeros.
    case number
    /// Written by the closure (a duration as `3:25`, a mode in octal).
    case text(@Sendable (CatalogEntry) -> String?)
    /// A date and time, which `{field:FORMAT}` formats with strftime(3).
    case date(text: @Sendable (CatalogEntry) -> String?, time: @Sendable (CatalogEntry) -> Timestamp?)
    /// Not in templates.
    case none
  }

  /// When `--json` prints a field.
  public enum JSONForm: Sendable {
    /// Always, null when the entry lacks it.
    case always
    /// Only when the entry has it (a top-level `error`, a PNG's `chunks`).
    case whenPresent
    /// Never (a column of another field's value, `seconds`).
    case none
  }

  /// A line of `info`: its label and the text for an entry (nil: no line).
  public struct InfoLine: Sendable {
    public let label: String
    public let text: @Sendable (CatalogEntry) -> String?
  }

  /// The values an upsert writes besides the entry's own: its root and whether its facts came
  /// from a trusted reading.
  struct FileRowContext {
    var rootID: Int64
    var trusted: Bool
  }
}

/// A field's value as `--json` and templates show it.
public enum FactValue: Sendable {
  case text(String)
  case integer(Int64)
  case real(Double)
  case bool(Bool)
  /// A path, raw bytes: JSON prints it as text (with `_b64` bytes when not UTF-8).
  case path(RawPath)
  case list([String])
  /// An object of named values (a GPS position), nil members printed as null.
  case object([(String, FactValue?)])

  /// A whole number's value, nil when absent.
  static func int(_ value: (some BinaryInteger)?) -> FactValue? { value.map { .integer(Int64($0)) } }
  static func string(_ value: String?) -> FactValue? { value.map { .text($0) } }
  static func yesNo(_ value: Bool?) -> FactValue? { value.map { .bool($0) } }
  static func number(_ value: Double?) -> FactValue? { value.map { .real($0) } }
}

/// Where a field shows in an entry's `--json` record, in the record's order: the entry's own
/// keys at the top, then one object per kind (an image's EXIF in the `image` object).
public enum FactGroup: CaseIterable, Sendable {
  case entry, image, exif, livePhoto, audio, replayGain, video, text, plist, backup

  /// The key of the group's object; nil for keys at the top of the record.
  public var object: String? {
    switch self {
    case .entry, .livePhoto: nil
    case .image, .exif: "image"
    case .audio: "audio"
    case .replayGain: "replaygain"
    case .video: "video"
    case .text: "text"
    case .plist: "plist"
    case .backup: "backup"
    }
  }

  /// True when `entry` has the group's facts (its object is printed).
  public func isPresent(in entry: CatalogEntry) -> Bool {
    switch self {
    case .entry, .livePhoto: true
    case .image: entry.facts.image != nil
    case .exif: entry.facts.image != nil || entry.facts.exif != nil
    case .audio: entry.facts.audio != nil
    case .replayGain: entry.replayGain != nil
    case .video: entry.facts.video != nil
    case .text: entry.facts.text != nil
    case .plist: entry.facts.plist != nil
    case .backup: entry.backup != nil
    }
  }
}

// MARK: What derives from the table

extension FactField {
  /// The fields of `group`, in table order.
  public static func fields(in group: FactGroup) -> [FactField] { byGroup[group] ?? [] }

  private static let byGroup = Dictionary(
    grouping: table.flatMap { field in field.groups.map { ($0, field) } }, by: \.0
  ).mapValues { $0.map(\.1) }

  /// The `files` columns after `id`, in table order.
  static let fileColumns: [Column] = table.compactMap { $0.column }.filter { $0.source == .files }

  /// The fields an entry is read back from, in the order `CatalogSchema.entryColumns` selects them.
  static let readFields: [FactField] = table.filter { $0.column?.reader != nil }

  /// The fields a template may write by `name`: the field's own name and its query
  /// names, first field first (a template's `format` is a sound's, else a video's, image's or
  /// property list's).
  static let byName: [String: [FactField]] = {
    var named: [String: [FactField]] = [:]
    for field in table {
      // Once per name: a field's own name is often its query name too.
      for name in Set([field.name] + (field.query?.names ?? [])) {
        named[name, default: []].append(field)
      }
    }
    return named
  }()

  /// The columns of the fields bare words search (`f.title`…), in table order.
  static let searchedColumns = table.filter(\.searched).compactMap { $0.column.map { "f." + $0.name } }

  /// What the full-text index holds for an entry: its tags (the searched fields: audio tags, a
  /// video's title, plist keys) and, for a text file, the beginning of its text, both folded for
  /// search (`SearchTextFolding`). Most files have neither.
  static func searchWords(_ entry: CatalogEntry) -> (tags: String, body: String) {
    let body = entry.facts.text != nil ? SearchTextFolding.indexed(entry.facts.searchText) : ""
    // Only sounds, videos and property lists have searched fields.
    guard entry.facts.audio != nil || entry.facts.video != nil || entry.facts.plist != nil else {
      return ("", body)
    }
    var words: [String] = []
    for index in searchedFields.indices {
      switch searchedFields[index].value(entry) {
      case .text(let text): words.append(text)
      case .list(let items): words += items
      default: break
      }
    }
    return (SearchTextFolding.indexed(words.joined(separator: " ")), body)
  }

  /// The fields bare words search, in table order (read by index: a copy of a field retains
  /// each of its functions).
  private static let searchedFields = table.filter(\.searched)
}

// MARK: Building rows

extension FactField {
  init(
    _ name: String, _ groups: [FactGroup], column: Column? = nil, query: QueryBinding? = nil,
    json: JSONForm = .always, jsonHelp: String? = nil, template: TemplateForm = .value, info: InfoLine? = nil,
    searched: Bool = false, listed: Bool = false, compared: Bool = false,
    value: @escaping @Sendable (CatalogEntry) -> FactValue?
  ) {
    self.name = name
    self.groups = groups
    self.column = column
    self.query = query
    self.value = value
    self.template = template
    self.json = json
    self.jsonHelp = jsonHelp
    self.info = info
    self.searched = searched
    self.listed = listed
    self.compared = compared
  }

  /// A column only written (the file's name, its extension, the path's text): no field shows it.
  static func written(
    _ name: String, _ type: CatalogSchema.ColumnType, notNull: Bool = true,
    _ write: @escaping @Sendable (CatalogEntry, FileRowContext) -> DatabaseValue
  ) -> FactField {
    FactField(
      name, [], column: Column(name: name, type: type, notNull: notNull, write: write, read: nil),
      json: .none,
      template: .none, value: { _ in nil })
  }
}

extension FactField.Column {
  /// A column of `files` written from and read into the entry.
  static func files(
    _ name: String, _ type: CatalogSchema.ColumnType, notNull: Bool = false, since: Int = 1,
    write: @escaping @Sendable (CatalogEntry, FactField.FileRowContext) -> DatabaseValue,
    read: @escaping @Sendable (inout CatalogEntry, DatabaseValue) -> Void
  ) -> Self {
    Self(name: name, type: type, notNull: notNull, since: since, write: write, read: read)
  }

  /// A column of `files` whose value is `write(entry)`.
  static func files(
    _ name: String, _ type: CatalogSchema.ColumnType, notNull: Bool = false, since: Int = 1,
    _ write: @escaping @Sendable (CatalogEntry) -> DatabaseValue,
    read: @escaping @Sendable (inout CatalogEntry, DatabaseValue) -> Void
  ) -> Self {
    Self(
      name: name, type: type, notNull: notNull, since: since, write: { entry, _ in write(entry) }, read: read)
  }
}

extension FactField.InfoLine {
  init(_ label: String, _ text: @escaping @Sendable (CatalogEntry) -> String?) {
    self.label = label
    self.text = text
  }
}

extension DatabaseValue {
  /// A whole number's value, read back as an `Int` (nil for another type).
  var int: Int? { integer.map { Int(truncatingIfNeeded: $0) } }
  var bool: Bool? { integer.map { $0 != 0 } }
  /// A byte string's bytes (a text's UTF-8), empty for another type.
  var bytes: [UInt8] {
    switch self {
    case .blob(let bytes): bytes
    case .text(let text): Array(text.utf8)
    default: []
    }
  }
}

// MARK: Reading an entry back

extension CatalogEntry {
  /// An entry with nothing known yet, filled in from a row (`FactField.Column.read`).
  init(blankForRow: ()) {
    self.init(
      path: RawPath(bytes: []), root: nil, area: .other, size: 0, mtimeNanoseconds: 0,
      facts: FileFacts(kind: .other, mime: "", detectedBy: .content, extensionMismatch: false),
      extractorVersion: 0)
  }

  /// Sets a fact of the image, which the first of its columns read creates.
  mutating func withImage(_ body: (inout ImageFacts) -> Void) {
    if self.facts.image == nil {
      self.facts.image = ImageFacts(
        format: "", width: 0, height: 0, bitDepth: nil, colorType: nil, alpha: nil, interlaced: nil,
        cgbi: nil,
        frames: nil, loop: nil, chunks: [])
    }
    body(&self.facts.image!)
  }

  /// Sets a fact of the sound, which the first of its columns read creates.
  mutating func withAudio(_ body: (inout AudioFileInfo) -> Void) {
    if self.facts.audio == nil {
      self.facts.audio = AudioFileInfo(
        duration: 0, sampleRate: 0, channels: 0, frames: 0, formatName: "", encodingName: "",
        bitsPerSample: nil,
        isLossless: false, tags: AudioTags())
    }
    body(&self.facts.audio!)
  }

  /// Sets a fact of the video, which the first of its columns read creates.
  mutating func withVideo(_ body: (inout VideoFileInfo) -> Void) {
    if self.facts.video == nil {
      self.facts.video = VideoFileInfo(duration: 0, width: 0, height: 0, codec: "")
    }
    body(&self.facts.video!)
  }

  /// Sets an EXIF fact, which the first of them read creates.
  mutating func withEXIF(_ body: (inout EXIFFacts) -> Void) {
    if self.facts.exif == nil { self.facts.exif = EXIFFacts() }
    body(&self.facts.exif!)
  }

  /// Sets a gain of the sound's tags (kept only when it has a gain, see `finishReading`).
  mutating func withTagGain(_ body: (inout ReplayGain) -> Void) {
    guard self.facts.audio != nil else { return }
    var gain = self.facts.audio?.tags.replayGain ?? ReplayGain(source: .tags)
    body(&gain)
    self.facts.audio?.tags.replayGain = gain
  }

  /// Sets a gain `shelf gain` measured (kept only when it has a gain).
  mutating func withMeasuredGain(_ body: (inout ReplayGain) -> Void) {
    var gain = measuredReplayGain ?? ReplayGain(source: .measured)
    body(&gain)
    measuredReplayGain = gain
  }

  /// Drops the gains read with peaks alone, once every column is read.
  mutating func finishReading() {
    if self.facts.audio?.tags.replayGain?.hasGain == false { self.facts.audio?.tags.replayGain = nil }
    if measuredReplayGain?.hasGain == false { measuredReplayGain = nil }
  }
}

// MARK: Templates

extension FactField {
  /// The names a `-f` template may use: each field's own and its query names, sorted.
  public static let templateNames: [String] = byName.filter { _, fields in
    fields.contains { $0.isInTemplates }
  }.keys.sorted()

  /// True when templates may write the field.
  private var isInTemplates: Bool {
    if case .none = template { return false }
    return true
  }

  /// True when the field named `name` is a whole number, which a template pads with zeros.
  public static func isWholeNumber(_ name: String) -> Bool {
    byName[name]?.contains { if case .number = $0.template { true } else { false } } ?? false
  }

  /// True when the field named `name` is a date and time, which a template formats.
  public static func isDate(_ name: String) -> Bool {
    byName[name]?.contains { if case .date = $0.template { true } else { false } } ?? false
  }

  /// The names of the date fields, sorted.
  public static var dateNames: [String] { templateNames.filter(isDate) }

  /// The bytes a template writes for the field named `name` of `entry`: those of the first field
  /// of that name that has a value; nil when none has.
  public static func templateBytes(_ name: String, of entry: CatalogEntry) -> [UInt8]? {
    for field in byName[name] ?? [] {
      if let bytes = field.templateBytes(entry) { return bytes }
    }
    return nil
  }

  /// The time of the date field named `name` of `entry`, for `{field:FORMAT}`.
  public static func templateTime(_ name: String, of entry: CatalogEntry) -> Timestamp? {
    for field in byName[name] ?? [] {
      if case .date(_, let time) = field.template, let value = time(entry) { return value }
    }
    return nil
  }

  /// What a template writes for this field of `entry`.
  private func templateBytes(_ entry: CatalogEntry) -> [UInt8]? {
    switch template {
    case .none: return nil
    case .text(let text): return text(entry).map { Array($0.utf8) }
    case .date(let text, _): return text(entry).map { Array($0.utf8) }
    case .value, .number:
      switch value(entry) {
      case .text(let text): return Array(text.utf8)
      case .integer(let number): return Array("\(number)".utf8)
      case .real(let number): return Array("\(number)".utf8)
      case .bool(let flag): return Array((flag ? "yes" : "no").utf8)
      case .path(let path): return path.bytes
      case .list(let items): return Array(items.joined(separator: " ").utf8)
      case .object, nil: return nil
      }
    }
  }
}

// MARK: The manual's field lists

extension FactField {
  /// How a query compares a field, as the manual groups them.
  public enum QueryMatching: String, CaseIterable, Sendable {
    case names, globs, text, numbers, yesOrNo = "yes or no", other
  }

  /// The names queries use for the field (none when no query names it).
  public var queryNames: [String] { query?.names ?? [] }

  /// What the field is, for the manual's list (`depth (bits per sample)`), or its name alone.
  public var queryDescription: String? {
    query.map { $0.help ?? $0.names[0] }
  }

  /// The values of a field with a closed set, in documented order.
  public var queryChoices: [String]? { query?.choices }

  /// How a query compares the field.
  public var queryMatching: QueryMatching? {
    switch query?.type {
    case nil: nil
    case .name: .names
    case .glob: .globs
    case .text: .text
    case .number, .size, .duration, .time, .localTime, .bitrate: .numbers
    case .boolean: .yesOrNo
    case .keys, .linkedPath, .copyFolder: .other
    }
  }

  /// The field's JSON key with what it means (`duration (seconds)`).
  public var jsonDescription: String { jsonHelp.map { "\(name) \($0)" } ?? name }

  /// The JSON keys of a kind's object (`image`, `audio`…) with what they mean, in order: the
  /// manual's list of the fields of `--json`.
  public static func jsonKeys(ofObject key: String) -> [String] {
    var keys: [String] = []
    for group in FactGroup.allCases where group.object == key {
      for field in fields(in: group) where field.json != .none {
        keys.append(field.jsonDescription)
      }
    }
    return keys
  }
}

extension FactField.JSONForm: Equatable {}
