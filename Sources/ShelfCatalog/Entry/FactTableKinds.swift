import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfFacts

// The rows of `FactField.table` for Live Photos, texts, backup entries and property lists
// (see FactTable.swift).

extension FactField {
  /// A Live Photo's other half, texts, property lists and backup entries.
  static let otherKindFields: [FactField] = [
    FactField(
      "live_photo", [.livePhoto],
      column: Column(
        name: "live_photo", type: .blob, since: 8, write: nil,
        read: { $0.livePhoto = RawPath(bytes: $1.bytes) }),
      query: QueryBinding(
        names: ["live_photo"], type: .linkedPath, sql: "f.live_photo_text", bytes: ("f.live_photo", false),
        help: "live_photo (the other half of a Live Photo)"),
      json: .whenPresent, info: InfoLine("Live Photo:") { $0.livePhoto?.escaped }
    ) { entry in entry.livePhoto.map { .text(String(decoding: $0.bytes, as: UTF8.self)) } },
    FactField(
      "live_photo_text", [],
      column: Column(name: "live_photo_text", type: .text, since: 8, write: nil, read: nil),
      json: .none, template: .none
    ) { _ in nil },
    FactField(
      "encoding", [.text],
      column: .files(
        "encoding", .text, { .from($0.facts.text?.encoding.rawValue) },
        read: { entry, value in
          if let encoding = value.text.flatMap(TextEncoding.init(rawValue:)) {
            entry.facts.text = TextFacts(
              encoding: encoding, bom: false, lineEndings: .noBreak, lines: 0, words: 0, chars: 0,
              firstLine: "")
          }
        }),
      query: QueryBinding(names: ["encoding"], type: .name),
      info: InfoLine("encoding:") { entry in
        entry.facts.text.map { $0.encoding.rawValue + ($0.bom ? " with BOM" : "") }
      },
      listed: true
    ) { .string($0.facts.text?.encoding.rawValue) },
    FactField(
      "bom", [.text],
      column: .files(
        "bom", .integer, { .from($0.facts.text?.bom) }, read: { $0.facts.text?.bom = $1.bool ?? false }),
      query: QueryBinding(names: ["bom"], type: .boolean), listed: true
    ) { .yesNo($0.facts.text?.bom) },
    FactField(
      "line_endings", [.text],
      column: .files(
        "line_endings", .text, { .from($0.facts.text?.lineEndings.rawValue) },
        read: { $0.facts.text?.lineEndings = $1.text.flatMap(LineEndings.init(rawValue:)) ?? .noBreak }),
      query: QueryBinding(
        names: ["endings"], type: .name, choices: LineEndings.allCases.map(\.rawValue),
        help: "endings (line endings)"),
      info: InfoLine("endings:") { $0.facts.text?.lineEndings.rawValue }
    ) { .string($0.facts.text?.lineEndings.rawValue) },
    textCount("lines", \.lines, label: "lines:", listed: true),
    textCount("words", \.words, label: "words:"),
    textCount("chars", \.chars, label: "characters:"),
    FactField(
      "first_line", [.text],
      column: .files(
        "first_line", .text, { .from($0.facts.text?.firstLine) },
        read: { $0.facts.text?.firstLine = $1.text ?? "" }),
      info: InfoLine("first line:") { entry in
        entry.facts.text.flatMap { $0.firstLine.isEmpty ? nil : RawPath($0.firstLine).escaped }
      }
    ) { .string($0.facts.text?.firstLine) },
    FactField(
      "domain", [.backup],
      column: .files(
        "backup_domain", .text, since: 6, { .from($0.backup?.domain) },
        read: { entry, value in
          entry.backup = BackupFacts(
            domain: value.text ?? "", app: nil, fileID: "", protectionClass: nil, mode: 0)
        }),
      query: QueryBinding(names: ["domain"], type: .name, help: "domain (CameraRollDomain, AppDomain-…)"),
      info: InfoLine("domain:") { $0.backup?.domain }, compared: true
    ) { .string($0.backup?.domain) },
    FactField(
      "app", [.backup],
      column: .files(
        "backup_app", .text, since: 6, { .from($0.backup?.app) }, read: { $0.backup?.app = $1.text }),
      query: QueryBinding(names: ["app"], type: .name, help: "app (a bundle identifier)"),
      info: InfoLine("app:") { $0.backup?.app }, compared: true
    ) { .string($0.backup?.app) },
    FactField(
      "file_id", [.backup],
      column: .files(
        "backup_file_id", .text, since: 6, { .from($0.backup?.fileID) },
        read: { $0.backup?.fileID = $1.text ?? "" }),
      query: QueryBinding(names: ["file_id"], type: .name, help: "file_id (the stored name)"),
      info: InfoLine("file id:") { $0.backup?.fileID }, compared: true
    ) { .string($0.backup?.fileID) },
    FactField(
      "protection_class", [.backup],
      column: .files(
        "backup_protection", .integer, since: 6, { .from($0.backup?.protectionClass) },
        read: { $0.backup?.protectionClass = $1.int }),
      query: QueryBinding(
        names: ["protection"], type: .number, help: "protection (the data-protection class)"),
      template: .number,
      info: InfoLine("protection:") { $0.backup?.protectionClass.map { "class \($0)" } }, compared: true
    ) { .int($0.backup?.protectionClass) },
    FactField(
      "mode", [.backup],
      column: .files(
        "backup_mode", .integer, since: 6, { .from($0.backup.map { Int($0.mode) }) },
        read: { $0.backup?.mode = UInt32(truncatingIfNeeded: $1.integer ?? 0) }),
      template: .text { entry in entry.backup.map { "0" + String($0.mode, radix: 8) } }, compared: true
    ) { .int($0.backup?.mode) },
    FactField(
      "format", [.plist],
      column: .files(
        "plist_format", .text, { .from($0.facts.plist?.format.rawValue) },
        read: { entry, value in
          if let format = value.text.flatMap(PlistFormat.init(rawValue:)) {
            entry.facts.plist = PlistFacts(format: format, root: "", keys: [])
          }
        }),
      query: QueryBinding(
        names: ["plist"], type: .name, choices: PlistFormat.allCases.map(\.rawValue),
        help: "plist (xml or binary)"),
      info: InfoLine("plist:") { entry in entry.facts.plist.map { "\($0.format.rawValue), \($0.root) root" }
      },
      listed: true
    ) { .string($0.facts.plist?.format.rawValue) },
    FactField(
      "root", [.plist],
      column: .files(
        "plist_root", .text, { .from($0.facts.plist?.root) }, read: { $0.facts.plist?.root = $1.text ?? "" }),
      jsonHelp: "(the root object's type)", template: .none, listed: true
    ) { .string($0.facts.plist?.root) },
    FactField(
      "keys", [.plist],
      column: .files(
        "plist_keys", .text,
        { entry in entry.facts.plist.map { .text($0.keys.joined(separator: "\n")) } ?? .null },
        read: { entry, value in
          let keys = value.text ?? ""
          entry.facts.plist?.keys =
            keys.isEmpty ? [] : keys.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }),
      query: QueryBinding(names: ["key"], type: .keys, help: "key (a top-level plist key)"),
      info: InfoLine("keys:") { entry in
        entry.facts.plist.flatMap { $0.keys.isEmpty ? nil : $0.keys.joined(separator: ", ") }
      },
      searched: true, listed: true
    ) { entry in entry.facts.plist.map { .list($0.keys) } },
    // Other catalogued files with the same content, from the tables `prepareCopyFields` fills.
    FactField(
      "copies", [],
      query: QueryBinding(
        names: ["copies"], type: .number,
        sql: "coalesce((SELECT c.copies FROM copy_facts c WHERE c.id = f.id), 0)"),
      json: .none, template: .none
    ) { _ in nil },
    FactField(
      "copy-in", [], query: QueryBinding(names: ["copy-in"], type: .copyFolder, sql: "f.id"), json: .none,
      template: .none
    ) { _ in nil },
  ]

  /// A count of a text's.
  private static func textCount(
    _ name: String, _ property: WritableKeyPath<TextFacts, Int> & Sendable, label: String,
    listed: Bool = false
  ) -> FactField {
    FactField(
      name, [.text],
      column: .files(
        name, .integer, { .from($0.facts.text?[keyPath: property]) },
        read: { $0.facts.text?[keyPath: property] = $1.int ?? 0 }),
      query: QueryBinding(names: [name], type: .number), template: .number,
      info: InfoLine(label) { entry in entry.facts.text.map { "\($0[keyPath: property])" } }, listed: listed
    ) { .int($0.facts.text?[keyPath: property]) }
  }
}
