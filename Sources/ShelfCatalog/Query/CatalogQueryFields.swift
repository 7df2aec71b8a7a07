import ShelfCore
import ShelfFacts

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The fields a query names (`kind:`, `width>`, `taken:`): their columns and value types.
extension CatalogQuery {

  /// How a field's values compare with `:`.
  enum FieldType {
    /// Free text (tags, comments): `:` finds the value anywhere in it.
    case text
    /// A name (a kind, an extension, a MIME type): `:` matches the whole value.
    case name
    /// A path or file name: `:` takes a shell glob over the raw bytes.
    case glob
    case number, size, duration, time, boolean, keys
    /// Bits per second: `256k`, `1.4M`, `320kbps`, `128000`.
    case bitrate
    /// An ISO-8601 text date compared by the wall-clock time it names (`taken`): a photo's
    /// local time as the camera recorded it, a video's as its container gives it.
    case localTime
    /// A path to another file (`live_photo`): yes or no for whether there is one, else a glob
    /// as for `path`.
    case linkedPath
    /// A folder where another catalogued file with the same content lies (`copy-in`), answered
    /// from the `copy_in` table `CatalogStore.prepareCopyFields` fills.
    case copyFolder
  }

  struct Field {
    /// The SQL value compared and sorted by.
    var column: String
    var type: FieldType
    /// For globs: the BLOB holding the raw path bytes, and whether only its last component
    /// counts.
    var bytes: (column: String, lastComponent: Bool)? = nil
  }

  /// The fields a query may name, with the SQL they stand for.
  static let fields: [String: Field] = [
    "kind": Field(column: "f.kind", type: .name),
    "type": Field(column: "f.mime", type: .name),
    "mime": Field(column: "f.mime", type: .name),
    "ext": Field(column: "f.ext", type: .name),
    "name": Field(column: "f.name", type: .glob, bytes: ("f.path", true)),
    "path": Field(column: "f.path_text", type: .glob, bytes: ("f.path", false)),
    "area": Field(column: "f.area", type: .name),
    "root": Field(column: "r.path_text", type: .glob, bytes: ("r.path", false)),
    "size": Field(column: "f.size", type: .size),
    "mtime": Field(column: "f.mtime_ns", type: .time),
    "modified": Field(column: "f.mtime_ns", type: .time),
    "width": Field(column: "f.width", type: .number),
    "height": Field(column: "f.height", type: .number),
    "depth": Field(column: "f.bit_depth", type: .number),
    "color": Field(column: "f.color_type", type: .name),
    "alpha": Field(column: "f.alpha", type: .boolean),
    "cgbi": Field(column: "f.cgbi", type: .boolean),
    "interlaced": Field(column: "f.interlaced", type: .boolean),
    "frames": Field(column: "f.frames", type: .number),
    "loop": Field(column: "f.loop_count", type: .number),
    "duration": Field(column: "f.duration", type: .duration),
    "rate": Field(column: "f.sample_rate", type: .number),
    "channels": Field(column: "f.channels", type: .number),
    "format": Field(column: "coalesce(f.format, f.image_format, f.plist_format)", type: .name),
    "codec": Field(column: "f.codec", type: .name),
    "audio_codec": Field(column: "f.audio_codec", type: .name),
    "bitrate": Field(column: "f.bitrate", type: .bitrate),
    "album_artist": Field(column: "f.album_artist", type: .text),
    "disc": Field(column: "f.disc", type: .number),
    "disc_total": Field(column: "f.disc_total", type: .number),
    "track_total": Field(column: "f.track_total", type: .number),
    "artwork": Field(column: "f.artwork", type: .boolean),
    "fps": Field(column: "f.frame_rate", type: .number),
    "frame_rate": Field(column: "f.frame_rate", type: .number),
    "rotation": Field(column: "f.rotation", type: .number),
    "taken": Field(column: "substr(f.taken, 1, 19)", type: .localTime),
    "camera": Field(column: "f.camera", type: .text),
    "lens": Field(column: "f.lens", type: .text),
    "software": Field(column: "f.software", type: .text),
    "orientation": Field(column: "f.orientation", type: .number),
    "gps": Field(column: "(f.gps_lat IS NOT NULL)", type: .boolean),
    "lat": Field(column: "f.gps_lat", type: .number),
    "lon": Field(column: "f.gps_lon", type: .number),
    "alt": Field(column: "f.gps_alt", type: .number),
    "live_photo": Field(column: "f.live_photo_text", type: .linkedPath, bytes: ("f.live_photo", false)),
    "artist": Field(column: "f.artist", type: .text),
    "album": Field(column: "f.album", type: .text),
    "title": Field(column: "f.title", type: .text),
    "genre": Field(column: "f.genre", type: .text),
    "comment": Field(column: "f.comment", type: .text),
    "year": Field(column: "f.year", type: .number),
    "track": Field(column: "f.track_no", type: .number),
    "encoding": Field(column: "f.encoding", type: .name),
    "bom": Field(column: "f.bom", type: .boolean),
    "endings": Field(column: "f.line_endings", type: .name),
    "lines": Field(column: "f.lines", type: .number),
    "words": Field(column: "f.words", type: .number),
    "chars": Field(column: "f.chars", type: .number),
    "plist": Field(column: "f.plist_format", type: .name),
    "key": Field(column: "f.plist_keys", type: .keys),
    "error": Field(column: "f.error", type: .text),
    "mismatch": Field(column: "f.ext_mismatch", type: .boolean),
    "detected": Field(column: "f.detected_by", type: .name),
    "domain": Field(column: "f.backup_domain", type: .name),
    "app": Field(column: "f.backup_app", type: .name),
    "file_id": Field(column: "f.backup_file_id", type: .name),
    "protection": Field(column: "f.backup_protection", type: .number),
    // Other catalogued files with the same content, from the tables `prepareCopyFields` fills.
    "copies": Field(
      column: "coalesce((SELECT c.copies FROM copy_facts c WHERE c.id = f.id), 0)", type: .number),
    "copy-in": Field(column: "f.id", type: .copyFolder),
  ]

  /// The names a query may use, sorted.
  public static var fieldNames: [String] { fields.keys.sorted() }

  /// The fields whose values come from a fixed list, with the list in documented order: a
  /// value outside it can match nothing, so it is a typo to point out (`kind:imag`), never an
  /// empty listing that a script would take for "none".
  static let fixedValues: [String: [String]] = [
    "kind": FileKind.allCases.map(\.rawValue),
    "area": SandboxLayout.areas + BackupLayout.areas,
    "endings": ["lf", "crlf", "cr", "mixed", "none"],
    "plist": ["xml", "binary"],
    "detected": ["content", "extension", "content+extension"],
  ]

  /// The values a field is completed with in the shells: its fixed list, yes and no for a
  /// boolean, else none (any value goes).
  public static func completionValues(of name: String) -> [String] {
    if let values = fixedValues[name] { return values }
    return fields[name]?.type == .boolean ? ["yes", "no"] : []
  }

  /// Refuses a value of a fixed-list field that is not in its list, suggesting the nearest.
  /// An empty value (`kind:`, "has one") and orderings (`kind>a`) are left to the SQL.
  static func checkValue(_ value: String, of name: String, op: Operator) throws {
    guard let allowed = fixedValues[name], !value.isEmpty, [.contains, .exact, .notEqual].contains(op)
    else { return }
    let lowered = value.lowercased()
    guard !allowed.contains(lowered) else { return }
    var message = "field '\(name)' has no value '\(value)'"
    if let suggestion = Suggestions.closest(to: lowered, among: allowed) {
      message += " (did you mean '\(suggestion)'?)"
    } else {
      message += " (it takes \(allowed.joined(separator: ", ")))"
    }
    throw QueryError(message: message)
  }
}
