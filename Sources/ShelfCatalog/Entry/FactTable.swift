import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfFacts

// The fact fields, one row each (see `FactField`). The order is the order `info` prints them
// in and, within each JSON object, the order of its keys. A new fact: its type's property, its
// reader, and a row here (with `since` the schema version that adds its column).

extension FactField {
  /// Every field, in the order `info` shows them.
  public static let table: [FactField] = entryFields + pictureAndSoundFields + tagFields + otherKindFields

  /// Where the file is, what it is and how it was read: the keys at the top of a JSON record.
  private static let entryFields: [FactField] = [
    .written("root_id", .integer) { _, row in .integer(row.rootID) },
    FactField(
      "path", [.entry],
      column: .files(
        "path", .blob, notNull: true, { .blob($0.path.bytes) }, read: { $0.path = RawPath(bytes: $1.bytes) }),
      query: QueryBinding(names: ["path"], type: .glob, sql: "f.path_text", bytes: ("f.path", false)),
      listed: true, compared: true
    ) { .path($0.path) },
    .written("path_text", .text) { entry, _ in .text(String(decoding: entry.path.bytes, as: UTF8.self)) },
    FactField(
      "name", [],
      column: Column(
        name: "name", type: .text, notNull: true,
        write: { entry, _ in .text(String(decoding: entry.path.lastComponent.bytes, as: UTF8.self)) },
        read: nil),
      query: QueryBinding(
        names: ["name"], type: .glob, bytes: ("f.path", true), help: "name (the file name)"),
      json: .none
    ) { .path($0.path.lastComponent) },
    FactField(
      "ext", [],
      column: Column(
        name: "ext", type: .text, notNull: true, write: { entry, _ in .text(entry.fileExtension) }, read: nil),
      query: QueryBinding(names: ["ext"], type: .name), json: .none
    ) { $0.fileExtension.isEmpty ? nil : .text($0.fileExtension) },
    FactField(
      "root", [.entry],
      column: Column(
        name: "r.path", type: .blob, source: .selected(sqlite: "r.path", postgres: "r.path"), write: nil,
        read: { $0.root = RawPath(bytes: $1.bytes) }),
      query: QueryBinding(names: ["root"], type: .glob, sql: "r.path_text", bytes: ("r.path", false)),
      json: .whenPresent, compared: true
    ) { $0.root.map { .path($0) } },
    FactField(
      "area", [.entry],
      column: .files(
        "area", .text, notNull: true, { .text($0.area.rawValue) },
        read: { $0.area = $1.text.flatMap(CatalogArea.init(rawValue:)) ?? .other }),
      query: QueryBinding(names: ["area"], type: .name, choices: CatalogArea.allCases.map(\.rawValue)),
      listed: true, compared: true
    ) { .text($0.area.rawValue) },
    FactField(
      "kind", [.entry],
      column: .files(
        "kind", .text, notNull: true, { .text($0.facts.kind.rawValue) },
        read: { $0.facts.kind = FileKind(rawValue: $1.text ?? "") ?? .other }),
      query: QueryBinding(names: ["kind"], type: .name, choices: FileKind.allCases.map(\.rawValue)),
      listed: true, compared: true
    ) { .text($0.facts.kind.rawValue) },
    FactField(
      "mime", [.entry],
      column: .files(
        "mime", .text, notNull: true, { .text($0.facts.mime) }, read: { $0.facts.mime = $1.text ?? "" }),
      query: QueryBinding(names: ["type", "mime"], type: .name, help: "type (MIME)"), listed: true
    ) { .text($0.facts.mime) },
    FactField(
      "size", [.entry],
      column: .files(
        "size", .integer, notNull: true, { .integer($0.size) }, read: { $0.size = $1.integer ?? 0 }),
      query: QueryBinding(names: ["size"], type: .size), template: .number, listed: true, compared: true
    ) { .integer($0.size) },
    FactField(
      "mtime", [.entry],
      column: .files(
        "mtime_ns", .integer, notNull: true, { .integer($0.mtimeNanoseconds) },
        read: { $0.mtimeNanoseconds = $1.integer ?? 0 }),
      query: QueryBinding(names: ["mtime", "modified"], type: .time),
      template: .date(
        text: { Timestamp.local(nanoseconds: $0.mtimeNanoseconds) },
        time: { Timestamp(localNanoseconds: $0.mtimeNanoseconds) }),
      listed: true, compared: true
    ) { .text(Timestamp.local(nanoseconds: $0.mtimeNanoseconds)) },
    status("ctime_ns") { $0.ctimeNanoseconds = $1 },
    status("inode") { $0.inode = UInt64(bitPattern: $1) },
    status("device") { $0.device = UInt64(bitPattern: $1) },
    FactField(
      "detected_by", [.entry],
      column: .files(
        "detected_by", .text, notNull: true, { .text($0.facts.detectedBy.rawValue) },
        read: { $0.facts.detectedBy = DetectionMethod(rawValue: $1.text ?? "") ?? .content }),
      query: QueryBinding(
        names: ["detected"], type: .name, choices: ["content", "extension", "content+extension"])
    ) { .text($0.facts.detectedBy.rawValue) },
    FactField(
      "extension_mismatch", [.entry],
      column: .files(
        "ext_mismatch", .integer, notNull: true, { .from($0.facts.extensionMismatch) },
        read: { $0.facts.extensionMismatch = $1.bool ?? false }),
      query: QueryBinding(
        names: ["mismatch"], type: .boolean, help: "mismatch (extension disagrees with content)"),
      json: .whenPresent
    ) { .bool($0.facts.extensionMismatch) },
    .written("trusted", .integer) { _, row in .from(row.trusted) },
    FactField(
      "extractor_version", [],
      column: .files(
        "extractor_version", .integer, notNull: true, { .integer(Int64($0.extractorVersion)) },
        read: { $0.extractorVersion = $1.int ?? 0 }),
      json: .none, template: .none
    ) { _ in nil },
    FactField(
      "error", [.entry],
      column: .files(
        "error", .text, { .from($0.facts.error?.reason) },
        // The catalogue keeps a problem's reason only: it was one of the content.
        read: { $0.facts.error = $1.text.map { FileFactsError(reason: $0, failure: .badInput) } }),
      query: QueryBinding(names: ["error"], type: .text), json: .whenPresent, listed: true
    ) { .string($0.facts.error?.reason) },
    // The machine holding the file (PostgreSQL); a listing names it when there are several.
    FactField(
      "host", [],
      column: Column(
        name: "host", type: .text, source: .selected(sqlite: "NULL", postgres: "r.host"), write: nil,
        read: { $0.host = $1.text }),
      json: .none, template: .none, listed: true, compared: true
    ) { _ in nil },
  ]

  /// A number of the file's status kept to tell a changed file, not shown.
  private static func status(_ name: String, _ read: @escaping @Sendable (inout CatalogEntry, Int64) -> Void)
    -> FactField
  {
    let write: @Sendable (CatalogEntry) -> DatabaseValue =
      switch name {
      case "ctime_ns": { .integer($0.ctimeNanoseconds) }
      case "inode": { .integer(Int64(bitPattern: $0.inode)) }
      default: { .integer(Int64(bitPattern: $0.device)) }
      }
    return FactField(
      name, [], column: .files(name, .integer, notNull: true, write, read: { read(&$0, $1.integer ?? 0) }),
      json: .none, template: .none, compared: true
    ) { _ in nil }
  }

  /// The picture and the sound of images, sounds and videos. A video shares the picture and
  /// sound columns (width, duration, rate…) so that one query (`width>=1920`, `duration>60`)
  /// finds images, sounds and videos alike.
  private static let pictureAndSoundFields: [FactField] = [
    FactField(
      "duration", [.audio, .video],
      column: .files(
        "duration", .real, { .from($0.facts.video?.duration ?? $0.facts.audio?.duration) },
        read: readShared({ $0.real ?? 0 }, video: \.duration) { entry, value in
          entry.withAudio { $0.duration = value }
        }),
      query: QueryBinding(names: ["duration"], type: .duration), jsonHelp: "(seconds)",
      template: .text { duration($0).map { Quantities.formatDuration($0) } },
      info: InfoLine("duration:") { entry in
        duration(entry).map {
          "\(Quantities.formatDuration($0)) (\(Quantities.formatFixed($0, decimals: 3)) s)"
        }
      },
      listed: true, compared: true
    ) { .number(duration($0)) },
    FactField(
      "seconds", [], json: .none,
      template: .text { duration($0).map { Quantities.formatFixed($0, decimals: 3) } }
    ) { _ in nil },
    FactField(
      "format", [.audio, .video],
      column: .files(
        "format", .text, { .from($0.facts.audio?.container ?? $0.facts.video?.container) },
        read: readShared({ $0.text ?? "" }, video: \.container) { $0.facts.audio?.container = $1 }),
      query: QueryBinding(
        names: ["format"], type: .name, sql: "coalesce(f.format, f.image_format, f.plist_format)"),
      // An encoding the catalogue does not know reads as empty.
      info: InfoLine("format:") { entry in
        entry.facts.audio.map { $0.container + ($0.encodingName.isEmpty ? "" : ", \($0.encodingName)") }
          ?? entry.facts.video?.container
      },
      listed: true, compared: true
    ) { .string($0.facts.audio?.container ?? $0.facts.video?.container) },
    FactField(
      "width", [.image, .video],
      column: .files(
        "width", .integer, { .from($0.facts.video?.width ?? $0.facts.image?.width) },
        read: readShared({ $0.int ?? 0 }, video: \.width) { entry, value in
          entry.withImage { $0.width = value }
        }),
      query: QueryBinding(names: ["width"], type: .number), template: .number,
      info: InfoLine("dimensions:") { entry in
        (entry.facts.image.map { ($0.width, $0.height) } ?? entry.facts.video.map { ($0.width, $0.height) })
          .map {
            "\($0.0)×\($0.1) pixels"
          }
      },
      listed: true, compared: true
    ) { .int($0.facts.image?.width ?? $0.facts.video?.width) },
    FactField(
      "height", [.image, .video],
      column: .files(
        "height", .integer, { .from($0.facts.video?.height ?? $0.facts.image?.height) },
        read: readShared({ $0.int ?? 0 }, video: \.height) { entry, value in
          entry.withImage { $0.height = value }
        }),
      query: QueryBinding(names: ["height"], type: .number), template: .number, listed: true, compared: true
    ) { .int($0.facts.image?.height ?? $0.facts.video?.height) },
    // The bits per sample of a picture, or of a sound as FFmpeg or libsndfile reads them.
    FactField(
      "bit_depth", [.image, .audio],
      column: .files(
        "bit_depth", .integer, { .from($0.facts.image?.bitDepth ?? $0.facts.audio?.bitsPerSample) },
        read: { entry, value in
          if entry.facts.image != nil {
            entry.facts.image?.bitDepth = value.int
          } else {
            entry.facts.audio?.bitsPerSample = value.int
          }
        }),
      query: QueryBinding(names: ["depth"], type: .number, help: "depth (bits per sample)"),
      template: .number,
      info: InfoLine("bit depth:") {
        ($0.facts.image?.bitDepth ?? $0.facts.audio?.bitsPerSample).map { "\($0)" }
      },
      listed: true
    ) { .int($0.facts.image?.bitDepth ?? $0.facts.audio?.bitsPerSample) },
    FactField(
      "color_type", [.image],
      column: .files(
        "color_type", .text, { .from($0.facts.image?.colorType?.rawValue) },
        read: { $0.facts.image?.colorType = $1.text.flatMap(ImageColorType.init(rawValue:)) }),
      query: QueryBinding(names: ["color"], type: .name, help: "color (color type)"),
      info: InfoLine("color type:") { $0.facts.image?.colorType?.rawValue }, listed: true
    ) { .string($0.facts.image?.colorType?.rawValue) },
    FactField(
      "alpha", [.image],
      column: .files(
        "alpha", .integer, { .from($0.facts.image?.alpha) }, read: { $0.facts.image?.alpha = $1.bool }),
      query: QueryBinding(names: ["alpha"], type: .boolean),
      info: InfoLine("alpha:") { entry in entry.facts.image.map { yesNo($0.alpha) } }
    ) { .yesNo($0.facts.image?.alpha) },
    FactField(
      "interlaced", [.image],
      column: .files(
        "interlaced", .integer, { .from($0.facts.image?.interlaced) },
        read: { $0.facts.image?.interlaced = $1.bool }),
      query: QueryBinding(names: ["interlaced"], type: .boolean),
      info: InfoLine("interlaced:") { entry in entry.facts.image.map { yesNo($0.interlaced) } }
    ) { .yesNo($0.facts.image?.interlaced) },
    FactField(
      "cgbi", [.image],
      column: .files(
        "cgbi", .integer, { .from($0.facts.image?.cgbi) }, read: { $0.facts.image?.cgbi = $1.bool }),
      query: QueryBinding(names: ["cgbi"], type: .boolean),
      template: .text { $0.facts.image?.cgbi.map { $0 ? "yes" : "no" } },
      info: InfoLine("CgBI:") { entry in
        entry.facts.image.flatMap { $0.format == "png" ? yesNo($0.cgbi) : nil }
      },
      listed: true
    ) { entry in entry.facts.image.map { .bool($0.cgbi ?? false) } },
    FactField(
      "frames", [.image],
      column: .files(
        "frames", .integer, { .from($0.facts.image?.frames) }, read: { $0.facts.image?.frames = $1.int }),
      query: QueryBinding(names: ["frames"], type: .number), template: .number,
      info: InfoLine("frames:") { $0.facts.image?.frames.map { "\($0)" } }, listed: true
    ) { .int($0.facts.image?.frames) },
    FactField(
      "loop", [.image],
      column: .files(
        "loop_count", .integer, since: 9, { .from($0.facts.image?.loop) },
        read: { $0.facts.image?.loop = $1.int }),
      query: QueryBinding(
        names: ["loop"], type: .number, help: "loop (times a GIF or WebP animation plays, 0 forever)"),
      template: .number,
      info: InfoLine("loop:") { $0.facts.image?.loop.map { $0 == 0 ? "forever (0)" : "\($0) plays" } }
    ) { .int($0.facts.image?.loop) },
    FactField(
      "format", [.image],
      column: .files(
        "image_format", .text, { .from($0.facts.image?.format) },
        read: { $0.facts.image?.format = $1.text ?? "" })
    ) { .string($0.facts.image?.format) },
    FactField(
      "chunks", [.image],
      column: .files(
        "chunks", .text,
        { entry in entry.facts.image.map { .text($0.chunks.joined(separator: " ")) } ?? .null },
        read: { $0.facts.image?.chunks = ($1.text ?? "").split(separator: " ").map(String.init) }),
      json: .whenPresent, jsonHelp: "(a PNG's chunk names)", template: .none,
      info: InfoLine("chunks:") { entry in
        entry.facts.image.flatMap { $0.chunks.isEmpty ? nil : $0.chunks.joined(separator: " ") }
      }
    ) { entry in entry.facts.image.map { .list($0.chunks) } },
    FactField(
      "encoding", [.audio],
      column: .files(
        "subtype", .text, { .from($0.facts.audio?.encodingName) },
        read: { $0.facts.audio?.encodingName = $1.text ?? "" }),
      jsonHelp: "(sample encoding)", template: .none, compared: true
    ) { entry in entry.facts.audio.flatMap { $0.encodingName.isEmpty ? nil : .text($0.encodingName) } },
    FactField(
      "codec", [.audio, .video],
      column: .files(
        "codec", .text, since: 7, { .from($0.facts.audio?.codec ?? $0.facts.video?.codec) },
        read: readShared({ $0.text ?? "" }, video: \.codec) { $0.facts.audio?.codec = $1 }),
      query: QueryBinding(
        names: ["codec"], type: .name, help: "codec (FFmpeg's name: aac, alac, mp3, flac, h264…)"),
      // A codec the catalogue does not know reads as empty.
      info: InfoLine("codec:") { entry in
        entry.facts.audio.flatMap { $0.codec.isEmpty ? nil : $0.codec } ?? entry.facts.video?.codec
      },
      listed: true, compared: true
    ) { entry in
      entry.facts.audio.flatMap { $0.codec.isEmpty ? nil : .text($0.codec) }
        ?? entry.facts.video.map { .text($0.codec) }
    },
    FactField(
      "frame_rate", [.video],
      column: .files(
        "frame_rate", .real, since: 7, { .from($0.facts.video?.frameRate) },
        read: { $0.facts.video?.frameRate = $1.real }
      ),
      query: QueryBinding(names: ["fps", "frame_rate"], type: .number, help: "fps (frame_rate)"),
      template: .text { $0.facts.video?.frameRate.map { Quantities.formatFixed($0, decimals: 3) } },
      info: InfoLine("frame rate:") {
        $0.facts.video?.frameRate.map { "\(Quantities.formatFixed($0, decimals: 3)) per second" }
      }
    ) { .number($0.facts.video?.frameRate) },
    FactField(
      "rotation", [.video],
      column: .files(
        "rotation", .integer, since: 7, { .from($0.facts.video?.rotation) },
        read: { $0.facts.video?.rotation = $1.int ?? 0 }),
      query: QueryBinding(names: ["rotation"], type: .number, help: "rotation (degrees clockwise)"),
      template: .number,
      info: InfoLine("rotation:") { $0.facts.video.map { "\($0.rotation)°" } }, listed: true
    ) { .int($0.facts.video?.rotation) },
    FactField(
      "bitrate", [.audio, .video],
      column: .files(
        "bitrate", .integer, since: 7, { .from($0.facts.audio?.bitrate ?? $0.facts.video?.bitrate) },
        read: readShared({ $0.int }, video: \.bitrate) { $0.facts.audio?.bitrate = $1 }),
      query: QueryBinding(names: ["bitrate"], type: .bitrate, help: "bitrate (bits/s)"), template: .number,
      info: InfoLine("bit rate:") { ($0.facts.audio?.bitrate ?? $0.facts.video?.bitrate).map(formatBitrate) },
      compared: true
    ) { .int($0.facts.audio?.bitrate ?? $0.facts.video?.bitrate) },
    FactField(
      "audio_codec", [.video],
      column: .files(
        "audio_codec", .text, since: 7, { .from($0.facts.video?.audioCodec) },
        read: { $0.facts.video?.audioCodec = $1.text }),
      query: QueryBinding(names: ["audio_codec"], type: .name, help: "audio_codec (a video's sound)"),
      info: InfoLine("sound:") { entry in
        entry.facts.video.map { video in
          guard var sound = video.audioCodec else { return "none" }
          if let rate = video.sampleRate { sound += ", \(rate) Hz" }
          if let channels = video.channels { sound += ", \(channels) channel\(channels == 1 ? "" : "s")" }
          return sound
        }
      },
      listed: true
    ) { .string($0.facts.video?.audioCodec) },
    FactField(
      "sample_rate", [.audio, .video],
      column: .files(
        "sample_rate", .integer, { .from($0.facts.video?.sampleRate ?? $0.facts.audio?.sampleRate) },
        read: readShared({ $0.int }, video: \.sampleRate) { entry, value in
          entry.withAudio { $0.sampleRate = value ?? 0 }
        }),
      query: QueryBinding(names: ["rate"], type: .number, help: "rate (sample rate)"), template: .number,
      info: InfoLine("sample rate:") { $0.facts.audio.map { "\($0.sampleRate) Hz" } }, listed: true,
      compared: true
    ) { .int($0.facts.audio?.sampleRate ?? $0.facts.video?.sampleRate) },
    FactField(
      "channels", [.audio, .video],
      column: .files(
        "channels", .integer, { .from($0.facts.video?.channels ?? $0.facts.audio?.channels) },
        read: readShared({ $0.int }, video: \.channels) { $0.facts.audio?.channels = $1 ?? 0 }),
      query: QueryBinding(names: ["channels"], type: .number), template: .number,
      info: InfoLine("channels:") { $0.facts.audio.map { "\($0.channels)" } }, listed: true, compared: true
    ) { .int($0.facts.audio?.channels ?? $0.facts.video?.channels) },
    FactField(
      "frames", [.audio],
      column: .files(
        "audio_frames", .integer, { .from($0.facts.audio?.frames) },
        read: { $0.facts.audio?.frames = $1.integer ?? 0 }),
      template: .number, info: InfoLine("frames:") { $0.facts.audio.map { "\($0.frames)" } }, compared: true
    ) { .int($0.facts.audio?.frames) },
    // A photo's EXIF facts; `taken` is shared with videos.
    FactField(
      "taken", [.exif, .video],
      column: .files(
        "taken", .text, since: 7, { .from($0.facts.video?.taken ?? $0.facts.exif?.taken) },
        read: readShared({ $0.text }, video: \.taken) { entry, value in entry.withEXIF { $0.taken = value } }),
      query: QueryBinding(
        names: ["taken"], type: .localTime, sql: "substr(f.taken, 1, 19)",
        help: "taken (when a photo was taken or a video filmed)"),
      template: .date(
        text: { taken($0) },
        time: { entry in
          (entry.facts.video?.taken ?? entry.facts.exif?.taken).flatMap { Timestamp(parsing: $0) }
        }),
      info: InfoLine("taken:") { taken($0) }
    ) { .string(taken($0)) },
    exifText("camera", help: "camera (EXIF make and model)", \.camera),
    exifText("lens", \.lens),
    FactField(
      "orientation", [.exif],
      column: .files(
        "orientation", .integer, since: 8, { .from($0.facts.exif?.orientation) },
        read: { entry, value in entry.withEXIF { $0.orientation = value.int } }),
      query: QueryBinding(names: ["orientation"], type: .number, help: "orientation (EXIF, 1-8)"),
      template: .number,
      info: InfoLine("orientation:") { entry in
        entry.facts.exif?.orientation.map {
          (1...8).contains($0) ? "\($0) (\(orientationNames[$0 - 1]))" : "\($0)"
        }
      }
    ) { .int($0.facts.exif?.orientation) },
    FactField(
      "gps", [.exif],
      query: QueryBinding(
        names: ["gps"], type: .boolean, sql: "(f.gps_lat IS NOT NULL)",
        help: "gps (yes when the photo has a position)"),
      jsonHelp: "{lat, lon, alt}",
      template: .text { entry in entry.facts.exif?.gps.map { "\($0.latitude),\($0.longitude)" } },
      info: InfoLine("GPS:") { entry in
        entry.facts.exif?.gps.map { gps in
          Quantities.formatFixed(gps.latitude, decimals: 6) + ", "
            + Quantities.formatFixed(gps.longitude, decimals: 6)
            + (gps.altitude.map { ", \(Quantities.formatFixed($0, decimals: 1)) m" } ?? "")
        }
      }
    ) { entry in
      entry.facts.exif?.gps.map {
        .object([("lat", .real($0.latitude)), ("lon", .real($0.longitude)), ("alt", .number($0.altitude))])
      }
    },
    FactField(
      "lat", [],
      column: .files(
        "gps_lat", .real, since: 8, { .from($0.facts.exif?.gps?.latitude) },
        read: { entry, value in
          entry.withEXIF {
            $0.gps = GPSPosition(latitude: value.real ?? 0, longitude: $0.gps?.longitude ?? 0)
          }
        }),
      query: QueryBinding(names: ["lat"], type: .number), json: .none,
      template: .text { entry in entry.facts.exif?.gps.map { "\($0.latitude)" } }
    ) { .number($0.facts.exif?.gps?.latitude) },
    FactField(
      "lon", [],
      column: .files(
        "gps_lon", .real, since: 8, { .from($0.facts.exif?.gps?.longitude) },
        read: { $0.facts.exif?.gps?.longitude = $1.real ?? 0 }),
      query: QueryBinding(names: ["lon"], type: .number), json: .none,
      template: .text { entry in entry.facts.exif?.gps.map { "\($0.longitude)" } }
    ) { .number($0.facts.exif?.gps?.longitude) },
    FactField(
      "alt", [],
      column: .files(
        "gps_alt", .real, since: 8, { .from($0.facts.exif?.gps?.altitude) },
        read: { $0.facts.exif?.gps?.altitude = $1.real }),
      query: QueryBinding(
        names: ["alt"], type: .number,
        help: "alt (degrees and metres, south, west and below sea level negative)"),
      json: .none, template: .text { entry in entry.facts.exif?.gps?.altitude.map { "\($0)" } }
    ) { .number($0.facts.exif?.gps?.altitude) },
    exifText("software", \.software),
    FactField(
      "content_id", [],
      column: .files(
        "content_id", .text, since: 8, { .from($0.facts.contentIdentifier) },
        read: readShared({ $0.text }, video: \.contentIdentifier) { entry, value in
          entry.withEXIF { $0.contentIdentifier = value }
        }),
      json: .none, template: .none
    ) { _ in nil },
  ]

  /// Reads a column a video shares with another kind (a sound's duration, a picture's width, a
  /// photo's date): into the video of a video, else through `other`.
  static func readShared<Value>(
    _ convert: @escaping @Sendable (DatabaseValue) -> Value,
    video: WritableKeyPath<VideoFileInfo, Value> & Sendable,
    _ other: @escaping @Sendable (inout CatalogEntry, Value) -> Void
  ) -> @Sendable (inout CatalogEntry, DatabaseValue) -> Void {
    { entry, stored in
      let value = convert(stored)
      if entry.facts.kind == .video {
        entry.withVideo { $0[keyPath: video] = value }
      } else {
        other(&entry, value)
      }
    }
  }

  /// A text fact of a photo's EXIF block.
  private static func exifText(
    _ name: String, help: String? = nil, _ property: WritableKeyPath<EXIFFacts, String?> & Sendable
  ) -> FactField {
    FactField(
      name, [.exif],
      column: .files(
        name, .text, since: 8, { .from($0.facts.exif?[keyPath: property]) },
        read: { entry, value in entry.withEXIF { $0[keyPath: property] = value.text } }),
      query: QueryBinding(names: [name], type: .text, help: help),
      info: InfoLine(name + ":") { $0.facts.exif?[keyPath: property] }
    ) { .string($0.facts.exif?[keyPath: property]) }
  }

  // MARK: Presentation helpers

  /// A sound's or a video's length in seconds.
  static func duration(_ entry: CatalogEntry) -> Double? {
    entry.facts.audio?.duration ?? entry.facts.video?.duration
  }

  /// When a photo was taken or a video filmed, in RFC 3339 with the offset the camera recorded
  /// (QuickTime's `+0200` as `+02:00`), or none when it recorded none.
  static func taken(_ entry: CatalogEntry) -> String? {
    (entry.facts.video?.taken ?? entry.facts.exif?.taken).map { Timestamp.normalized($0) }
  }

  static func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }

  /// `256 kb/s`, `1.41 Mb/s`.
  public static func formatBitrate(_ bits: Int) -> String {
    if bits >= 1_000_000 { return "\(Quantities.formatFixed(Double(bits) / 1e6, decimals: 2)) Mb/s" }
    return "\(Int((Double(bits) / 1000).rounded())) kb/s"
  }

  /// What each EXIF orientation asks of a viewer, in exiftool's words.
  static let orientationNames = [
    "horizontal (normal)", "mirror horizontal", "rotate 180", "mirror vertical",
    "mirror horizontal and rotate 270 CW", "rotate 90 CW", "mirror horizontal and rotate 90 CW",
    "rotate 270 CW",
  ]
}
