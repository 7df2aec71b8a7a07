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
        "kind", .text, notNull: true, { .text($0.kind.rawValue) },
        read: { $0.kind = FileKind(rawValue: $1.text ?? "") ?? .other }),
      query: QueryBinding(names: ["kind"], type: .name, choices: FileKind.allCases.map(\.rawValue)),
      listed: true, compared: true
    ) { .text($0.kind.rawValue) },
    FactField(
      "mime", [.entry],
      column: .files("mime", .text, notNull: true, { .text($0.mime) }, read: { $0.mime = $1.text ?? "" }),
      query: QueryBinding(names: ["type", "mime"], type: .name, help: "type (MIME)"), listed: true
    ) { .text($0.mime) },
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
        "detected_by", .text, notNull: true, { .text($0.detectedBy.rawValue) },
        read: { $0.detectedBy = DetectionMethod(rawValue: $1.text ?? "") ?? .content }),
      query: QueryBinding(
        names: ["detected"], type: .name, choices: ["content", "extension", "content+extension"])
    ) { .text($0.detectedBy.rawValue) },
    FactField(
      "extension_mismatch", [.entry],
      column: .files(
        "ext_mismatch", .integer, notNull: true, { .from($0.extensionMismatch) },
        read: { $0.extensionMismatch = $1.bool ?? false }),
      query: QueryBinding(
        names: ["mismatch"], type: .boolean, help: "mismatch (extension disagrees with content)"),
      json: .whenPresent
    ) { .bool($0.extensionMismatch) },
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
        "error", .text, { .from($0.error?.reason) },
        // The catalogue keeps a problem's reason only: it was one of the content.
        read: { $0.error = $1.text.map { FileFactsError(reason: $0, failure: .badInput) } }),
      query: QueryBinding(names: ["error"], type: .text), json: .whenPresent, listed: true
    ) { .string($0.error?.reason) },
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
        "duration", .real, { .from($0.video?.duration ?? $0.audio?.duration) },
        read: { entry, value in
          if entry.kind == .video {
            entry.withVideo { $0.duration = value.real ?? 0 }
          } else {
            entry.withAudio { $0.duration = value.real ?? 0 }
          }
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
        "format", .text, { .from($0.audio?.container ?? $0.video?.container) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.container = value.text ?? ""
          } else {
            entry.audio?.container = value.text ?? ""
          }
        }),
      query: QueryBinding(
        names: ["format"], type: .name, sql: "coalesce(f.format, f.image_format, f.plist_format)"),
      // An encoding the catalogue does not know reads as empty.
      info: InfoLine("format:") { entry in
        entry.audio.map { $0.container + ($0.encodingName.isEmpty ? "" : ", \($0.encodingName)") }
          ?? entry.video?.container
      },
      listed: true, compared: true
    ) { .string($0.audio?.container ?? $0.video?.container) },
    FactField(
      "width", [.image, .video],
      column: .files(
        "width", .integer, { .from($0.video?.width ?? $0.image?.width) },
        read: { entry, value in
          if entry.kind == .video {
            entry.withVideo { $0.width = value.int ?? 0 }
          } else {
            entry.withImage { $0.width = value.int ?? 0 }
          }
        }),
      query: QueryBinding(names: ["width"], type: .number), template: .number,
      info: InfoLine("dimensions:") { entry in
        (entry.image.map { ($0.width, $0.height) } ?? entry.video.map { ($0.width, $0.height) }).map {
          "\($0.0)×\($0.1) pixels"
        }
      },
      listed: true, compared: true
    ) { .int($0.image?.width ?? $0.video?.width) },
    FactField(
      "height", [.image, .video],
      column: .files(
        "height", .integer, { .from($0.video?.height ?? $0.image?.height) },
        read: { entry, value in
          if entry.kind == .video {
            entry.withVideo { $0.height = value.int ?? 0 }
          } else {
            entry.withImage { $0.height = value.int ?? 0 }
          }
        }),
      query: QueryBinding(names: ["height"], type: .number), template: .number, listed: true, compared: true
    ) { .int($0.image?.height ?? $0.video?.height) },
    // The bits per sample of a picture, or of a sound as FFmpeg or libsndfile reads them.
    FactField(
      "bit_depth", [.image, .audio],
      column: .files(
        "bit_depth", .integer, { .from($0.image?.bitDepth ?? $0.audio?.bitsPerSample) },
        read: { entry, value in
          if entry.image != nil {
            entry.image?.bitDepth = value.int
          } else {
            entry.audio?.bitsPerSample = value.int
          }
        }),
      query: QueryBinding(names: ["depth"], type: .number, help: "depth (bits per sample)"),
      template: .number,
      info: InfoLine("bit depth:") { ($0.image?.bitDepth ?? $0.audio?.bitsPerSample).map { "\($0)" } },
      listed: true
    ) { .int($0.image?.bitDepth ?? $0.audio?.bitsPerSample) },
    FactField(
      "color_type", [.image],
      column: .files(
        "color_type", .text, { .from($0.image?.colorType?.rawValue) },
        read: { $0.image?.colorType = $1.text.flatMap(ImageColorType.init(rawValue:)) }),
      query: QueryBinding(names: ["color"], type: .name, help: "color (color type)"),
      info: InfoLine("color type:") { $0.image?.colorType?.rawValue }, listed: true
    ) { .string($0.image?.colorType?.rawValue) },
    FactField(
      "alpha", [.image],
      column: .files("alpha", .integer, { .from($0.image?.alpha) }, read: { $0.image?.alpha = $1.bool }),
      query: QueryBinding(names: ["alpha"], type: .boolean),
      info: InfoLine("alpha:") { entry in entry.image.map { yesNo($0.alpha) } }
    ) { .yesNo($0.image?.alpha) },
    FactField(
      "interlaced", [.image],
      column: .files(
        "interlaced", .integer, { .from($0.image?.interlaced) }, read: { $0.image?.interlaced = $1.bool }),
      query: QueryBinding(names: ["interlaced"], type: .boolean),
      info: InfoLine("interlaced:") { entry in entry.image.map { yesNo($0.interlaced) } }
    ) { .yesNo($0.image?.interlaced) },
    FactField(
      "cgbi", [.image],
      column: .files("cgbi", .integer, { .from($0.image?.cgbi) }, read: { $0.image?.cgbi = $1.bool }),
      query: QueryBinding(names: ["cgbi"], type: .boolean),
      template: .text { $0.image?.cgbi.map { $0 ? "yes" : "no" } },
      info: InfoLine("CgBI:") { entry in entry.image.flatMap { $0.format == "png" ? yesNo($0.cgbi) : nil } },
      listed: true
    ) { entry in entry.image.map { .bool($0.cgbi ?? false) } },
    FactField(
      "frames", [.image],
      column: .files("frames", .integer, { .from($0.image?.frames) }, read: { $0.image?.frames = $1.int }),
      query: QueryBinding(names: ["frames"], type: .number), template: .number,
      info: InfoLine("frames:") { $0.image?.frames.map { "\($0)" } }, listed: true
    ) { .int($0.image?.frames) },
    FactField(
      "loop", [.image],
      column: .files(
        "loop_count", .integer, since: 9, { .from($0.image?.loop) }, read: { $0.image?.loop = $1.int }),
      query: QueryBinding(
        names: ["loop"], type: .number, help: "loop (times a GIF or WebP animation plays, 0 forever)"),
      template: .number,
      info: InfoLine("loop:") { $0.image?.loop.map { $0 == 0 ? "forever (0)" : "\($0) plays" } }
    ) { .int($0.image?.loop) },
    FactField(
      "format", [.image],
      column: .files(
        "image_format", .text, { .from($0.image?.format) }, read: { $0.image?.format = $1.text ?? "" })
    ) { .string($0.image?.format) },
    FactField(
      "chunks", [.image],
      column: .files(
        "chunks", .text, { entry in entry.image.map { .text($0.chunks.joined(separator: " ")) } ?? .null },
        read: { $0.image?.chunks = ($1.text ?? "").split(separator: " ").map(String.init) }),
      json: .whenPresent, jsonHelp: "(a PNG's chunk names)", template: .none,
      info: InfoLine("chunks:") { entry in
        entry.image.flatMap { $0.chunks.isEmpty ? nil : $0.chunks.joined(separator: " ") }
      }
    ) { entry in entry.image.map { .list($0.chunks) } },
    FactField(
      "encoding", [.audio],
      column: .files(
        "subtype", .text, { .from($0.audio?.encodingName) }, read: { $0.audio?.encodingName = $1.text ?? "" }),
      jsonHelp: "(sample encoding)", template: .none, compared: true
    ) { entry in entry.audio.flatMap { $0.encodingName.isEmpty ? nil : .text($0.encodingName) } },
    FactField(
      "codec", [.audio, .video],
      column: .files(
        "codec", .text, since: 7, { .from($0.audio?.codec ?? $0.video?.codec) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.codec = value.text ?? ""
          } else {
            entry.audio?.codec = value.text ?? ""
          }
        }),
      query: QueryBinding(
        names: ["codec"], type: .name, help: "codec (FFmpeg's name: aac, alac, mp3, flac, h264…)"),
      // A codec the catalogue does not know reads as empty.
      info: InfoLine("codec:") { entry in
        entry.audio.flatMap { $0.codec.isEmpty ? nil : $0.codec } ?? entry.video?.codec
      },
      listed: true, compared: true
    ) { entry in
      entry.audio.flatMap { $0.codec.isEmpty ? nil : .text($0.codec) } ?? entry.video.map { .text($0.codec) }
    },
    FactField(
      "frame_rate", [.video],
      column: .files(
        "frame_rate", .real, since: 7, { .from($0.video?.frameRate) }, read: { $0.video?.frameRate = $1.real }
      ),
      query: QueryBinding(names: ["fps", "frame_rate"], type: .number, help: "fps (frame_rate)"),
      template: .text { $0.video?.frameRate.map { Quantities.formatFixed($0, decimals: 3) } },
      info: InfoLine("frame rate:") {
        $0.video?.frameRate.map { "\(Quantities.formatFixed($0, decimals: 3)) per second" }
      }
    ) { .number($0.video?.frameRate) },
    FactField(
      "rotation", [.video],
      column: .files(
        "rotation", .integer, since: 7, { .from($0.video?.rotation) },
        read: { $0.video?.rotation = $1.int ?? 0 }),
      query: QueryBinding(names: ["rotation"], type: .number, help: "rotation (degrees clockwise)"),
      template: .number,
      info: InfoLine("rotation:") { $0.video.map { "\($0.rotation)°" } }, listed: true
    ) { .int($0.video?.rotation) },
    FactField(
      "bitrate", [.audio, .video],
      column: .files(
        "bitrate", .integer, since: 7, { .from($0.audio?.bitrate ?? $0.video?.bitrate) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.bitrate = value.int
          } else {
            entry.audio?.bitrate = value.int
          }
        }),
      query: QueryBinding(names: ["bitrate"], type: .bitrate, help: "bitrate (bits/s)"), template: .number,
      info: InfoLine("bit rate:") { ($0.audio?.bitrate ?? $0.video?.bitrate).map(formatBitrate) },
      compared: true
    ) { .int($0.audio?.bitrate ?? $0.video?.bitrate) },
    FactField(
      "audio_codec", [.video],
      column: .files(
        "audio_codec", .text, since: 7, { .from($0.video?.audioCodec) },
        read: { $0.video?.audioCodec = $1.text }),
      query: QueryBinding(names: ["audio_codec"], type: .name, help: "audio_codec (a video's sound)"),
      info: InfoLine("sound:") { entry in
        entry.video.map { video in
          guard var sound = video.audioCodec else { return "none" }
          if let rate = video.sampleRate { sound += ", \(rate) Hz" }
          if let channels = video.channels { sound += ", \(channels) channel\(channels == 1 ? "" : "s")" }
          return sound
        }
      },
      listed: true
    ) { .string($0.video?.audioCodec) },
    FactField(
      "sample_rate", [.audio, .video],
      column: .files(
        "sample_rate", .integer, { .from($0.video?.sampleRate ?? $0.audio?.sampleRate) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.sampleRate = value.int
          } else {
            entry.withAudio { $0.sampleRate = value.int ?? 0 }
          }
        }),
      query: QueryBinding(names: ["rate"], type: .number, help: "rate (sample rate)"), template: .number,
      info: InfoLine("sample rate:") { $0.audio.map { "\($0.sampleRate) Hz" } }, listed: true, compared: true
    ) { .int($0.audio?.sampleRate ?? $0.video?.sampleRate) },
    FactField(
      "channels", [.audio, .video],
      column: .files(
        "channels", .integer, { .from($0.video?.channels ?? $0.audio?.channels) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.channels = value.int
          } else {
            entry.audio?.channels = value.int ?? 0
          }
        }),
      query: QueryBinding(names: ["channels"], type: .number), template: .number,
      info: InfoLine("channels:") { $0.audio.map { "\($0.channels)" } }, listed: true, compared: true
    ) { .int($0.audio?.channels ?? $0.video?.channels) },
    FactField(
      "frames", [.audio],
      column: .files(
        "audio_frames", .integer, { .from($0.audio?.frames) }, read: { $0.audio?.frames = $1.integer ?? 0 }),
      template: .number, info: InfoLine("frames:") { $0.audio.map { "\($0.frames)" } }, compared: true
    ) { .int($0.audio?.frames) },
    // A photo's EXIF facts; `taken` is shared with videos.
    FactField(
      "taken", [.exif, .video],
      column: .files(
        "taken", .text, since: 7, { .from($0.video?.taken ?? $0.exif?.taken) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.taken = value.text
          } else {
            entry.withEXIF { $0.taken = value.text }
          }
        }),
      query: QueryBinding(
        names: ["taken"], type: .localTime, sql: "substr(f.taken, 1, 19)",
        help: "taken (when a photo was taken or a video filmed)"),
      template: .date(
        text: { taken($0) },
        time: { entry in (entry.video?.taken ?? entry.exif?.taken).flatMap { Timestamp(parsing: $0) } }),
      info: InfoLine("taken:") { taken($0) }
    ) { .string(taken($0)) },
    exifText("camera", help: "camera (EXIF make and model)", \.camera),
    exifText("lens", \.lens),
    FactField(
      "orientation", [.exif],
      column: .files(
        "orientation", .integer, since: 8, { .from($0.exif?.orientation) },
        read: { entry, value in entry.withEXIF { $0.orientation = value.int } }),
      query: QueryBinding(names: ["orientation"], type: .number, help: "orientation (EXIF, 1-8)"),
      template: .number,
      info: InfoLine("orientation:") { entry in
        entry.exif?.orientation.map { (1...8).contains($0) ? "\($0) (\(orientationNames[$0 - 1]))" : "\($0)" }
      }
    ) { .int($0.exif?.orientation) },
    FactField(
      "gps", [.exif],
      query: QueryBinding(
        names: ["gps"], type: .boolean, sql: "(f.gps_lat IS NOT NULL)",
        help: "gps (yes when the photo has a position)"),
      jsonHelp: "{lat, lon, alt}",
      template: .text { entry in entry.exif?.gps.map { "\($0.latitude),\($0.longitude)" } },
      info: InfoLine("GPS:") { entry in
        entry.exif?.gps.map { gps in
          Quantities.formatFixed(gps.latitude, decimals: 6) + ", "
            + Quantities.formatFixed(gps.longitude, decimals: 6)
            + (gps.altitude.map { ", \(Quantities.formatFixed($0, decimals: 1)) m" } ?? "")
        }
      }
    ) { entry in
      entry.exif?.gps.map {
        .object([("lat", .real($0.latitude)), ("lon", .real($0.longitude)), ("alt", .number($0.altitude))])
      }
    },
    FactField(
      "lat", [],
      column: .files(
        "gps_lat", .real, since: 8, { .from($0.exif?.gps?.latitude) },
        read: { entry, value in
          entry.withEXIF {
            $0.gps = GPSPosition(latitude: value.real ?? 0, longitude: $0.gps?.longitude ?? 0)
          }
        }),
      query: QueryBinding(names: ["lat"], type: .number), json: .none,
      template: .text { entry in entry.exif?.gps.map { "\($0.latitude)" } }
    ) { .number($0.exif?.gps?.latitude) },
    FactField(
      "lon", [],
      column: .files(
        "gps_lon", .real, since: 8, { .from($0.exif?.gps?.longitude) },
        read: { $0.exif?.gps?.longitude = $1.real ?? 0 }),
      query: QueryBinding(names: ["lon"], type: .number), json: .none,
      template: .text { entry in entry.exif?.gps.map { "\($0.longitude)" } }
    ) { .number($0.exif?.gps?.longitude) },
    FactField(
      "alt", [],
      column: .files(
        "gps_alt", .real, since: 8, { .from($0.exif?.gps?.altitude) },
        read: { $0.exif?.gps?.altitude = $1.real }),
      query: QueryBinding(
        names: ["alt"], type: .number,
        help: "alt (degrees and metres, south, west and below sea level negative)"),
      json: .none, template: .text { entry in entry.exif?.gps?.altitude.map { "\($0)" } }
    ) { .number($0.exif?.gps?.altitude) },
    exifText("software", \.software),
    FactField(
      "content_id", [],
      column: .files(
        "content_id", .text, since: 8, { .from($0.contentIdentifier) },
        read: { entry, value in
          if entry.kind == .video {
            entry.video?.contentIdentifier = value.text
          } else {
            entry.withEXIF { $0.contentIdentifier = value.text }
          }
        }),
      json: .none, template: .none
    ) { _ in nil },
  ]

  /// A text fact of a photo's EXIF block.
  private static func exifText(
    _ name: String, help: String? = nil, _ property: WritableKeyPath<EXIFFacts, String?> & Sendable
  ) -> FactField {
    FactField(
      name, [.exif],
      column: .files(
        name, .text, since: 8, { .from($0.exif?[keyPath: property]) },
        read: { entry, value in entry.withEXIF { $0[keyPath: property] = value.text } }),
      query: QueryBinding(names: [name], type: .text, help: help),
      info: InfoLine(name + ":") { $0.exif?[keyPath: property] }
    ) { .string($0.exif?[keyPath: property]) }
  }

  /// The tags of a sound (a video's title too), then its gains.
  private static let tagFields: [FactField] =
    [
      FactField(
        "title", [.audio, .video],
        column: .files(
          "title", .text, { .from($0.audio?.title ?? $0.video?.title) },
          read: { entry, value in
            if entry.kind == .video {
              entry.video?.tags.title = value.text
            } else {
              entry.audio?.tags.title = value.text
            }
          }),
        query: QueryBinding(names: ["title"], type: .text),
        info: InfoLine("title:") { $0.audio?.title ?? $0.video?.title },
        searched: true, listed: true
      ) { .string($0.audio?.title ?? $0.video?.title) },
      tag("artist", \.artist, listed: true),
      tag("album", \.album),
      tag("album_artist", \.albumArtist, since: 7, label: "album artist:"),
      tag("date", \.date, queried: false),
      FactField(
        "year", [],
        column: Column(
          name: "year", type: .integer, write: { entry, _ in .from(entry.audio?.year) }, read: nil),
        query: QueryBinding(names: ["year"], type: .number), json: .none, template: .number
      ) { .int($0.audio?.year) },
      FactField(
        "track", [.audio],
        column: .files("track", .text, { .from($0.audio?.track) }, read: { $0.audio?.tags.track = $1.text }),
        query: QueryBinding(names: ["track"], type: .number, sql: "f.track_no"), template: .number,
        info: InfoLine("track:") { entry in
          entry.audio.flatMap { audio in
            audio.trackNumber.map { "\($0)" + (audio.trackTotal.map { " of \($0)" } ?? "") } ?? audio.track
          }
        }
      ) { .int($0.audio?.trackNumber) },
      .written("track_no", .integer, notNull: false) { entry, _ in .from(entry.audio?.trackNumber) },
      tagNumber("track_total", \.trackTotal),
      FactField(
        "disc", [.audio],
        column: .files(
          "disc", .integer, since: 7, { .from($0.audio?.tags.disc) }, read: { $0.audio?.tags.disc = $1.int }),
        query: QueryBinding(names: ["disc"], type: .number), template: .number,
        info: InfoLine("disc:") { entry in
          entry.audio?.tags.disc.map { "\($0)" + (entry.audio?.tags.discTotal.map { " of \($0)" } ?? "") }
        }
      ) { .int($0.audio?.tags.disc) },
      tagNumber("disc_total", \.discTotal),
      tag("genre", \.genre),
      tag("comment", \.comment),
      FactField(
        "artwork", [.audio],
        column: .files(
          "artwork", .integer, since: 7, { .from($0.audio?.hasArtwork) },
          read: { $0.audio?.hasArtwork = $1.bool ?? false }),
        query: QueryBinding(names: ["artwork"], type: .boolean, help: "artwork (cover art embedded)"),
        info: InfoLine("artwork:") { $0.audio.map { $0.hasArtwork ? "yes" : "no" } }
      ) { .yesNo($0.audio?.hasArtwork) },
      // The file's own ReplayGain tags, else what `shelf gain` measured (`entry.replayGain`).
      gain("track_gain", \.trackGain, column: "rg_track_gain", measured: "track_gain"),
      gain("track_peak", \.trackPeak, column: "rg_track_peak", measured: "track_peak"),
      gain("album_gain", \.albumGain, column: "rg_album_gain", measured: "album_gain"),
      gain("album_peak", \.albumPeak, column: "rg_album_peak", measured: "album_peak"),
    ] + measuredGainFields + [
      FactField(
        "source", [.replayGain], template: .none,
        info: InfoLine("replaygain:") { entry in
          entry.replayGain.map { gain in
            // Track and album gain (dB) and peak.
            func part(_ label: String, _ value: Double?, _ peak: Double?) -> String? {
              value.map {
                "\(label) \(Quantities.formatFixed($0, decimals: 2)) dB"
                  + (peak.map { ", peak \(Quantities.formatFixed($0, decimals: 6))" } ?? "")
              }
            }
            let parts = [
              part("track", gain.trackGain, gain.trackPeak), part("album", gain.albumGain, gain.albumPeak),
            ]
            return parts.compactMap { $0 }.joined(separator: "; ") + " (\(gain.source.rawValue))"
          }
        }
      ) { $0.replayGain.map { .text($0.source.rawValue) } }
    ]

  /// A text tag of a sound, which queries compare and bare words search.
  private static func tag(
    _ name: String, _ property: WritableKeyPath<AudioTags, String?> & Sendable, since: Int = 1,
    listed: Bool = false,
    label: String? = nil, queried: Bool = true
  ) -> FactField {
    FactField(
      name, [.audio],
      column: .files(
        name, .text, since: since, { .from($0.audio?.tags[keyPath: property]) },
        read: { $0.audio?.tags[keyPath: property] = $1.text }),
      query: queried ? QueryBinding(names: [name], type: .text) : nil,
      info: InfoLine(label ?? name + ":") { $0.audio?.tags[keyPath: property] }, searched: true,
      listed: listed
    ) { .string($0.audio?.tags[keyPath: property]) }
  }

  /// A number of a sound's tags that `info` shows with another (`3 of 10`).
  private static func tagNumber(_ name: String, _ property: WritableKeyPath<AudioTags, Int?> & Sendable)
    -> FactField
  {
    FactField(
      name, [.audio],
      column: .files(
        name, .integer, since: 7, { .from($0.audio?.tags[keyPath: property]) },
        read: { $0.audio?.tags[keyPath: property] = $1.int }),
      query: QueryBinding(names: [name], type: .number), template: .number
    ) { .int($0.audio?.tags[keyPath: property]) }
  }

  /// A ReplayGain value: the tag's column, and the file's gain as `--json` shows it.
  private static func gain(
    _ name: String, _ property: WritableKeyPath<ReplayGain, Double?> & Sendable, column: String,
    measured: String
  ) -> FactField {
    FactField(
      name, [.replayGain],
      column: .files(
        column, .real, since: 15, { .from($0.audio?.tags.replayGain?[keyPath: property]) },
        read: { entry, value in entry.withTagGain { $0[keyPath: property] = value.real } }),
      template: .none
    ) { .number($0.replayGain?[keyPath: property]) }
  }

  /// The gains `shelf gain` measured for the file as the catalogue knows it, read with the entry
  /// from `replay_gains` (NULL when the file changed since).
  private static let measuredGainFields: [FactField] = [
    (\ReplayGain.trackGain, "track_gain"), (\.trackPeak, "track_peak"), (\.albumGain, "album_gain"),
    (\.albumPeak, "album_peak"),
  ].map { (property: WritableKeyPath<ReplayGain, Double?> & Sendable, name: String) in
    let sql =
      "(SELECT g.\(name) FROM replay_gains g WHERE g.device = f.device AND g.inode = f.inode AND g.size = f.size AND g.mtime_ns = f.mtime_ns AND g.ctime_ns = f.ctime_ns)"
    return FactField(
      "measured_" + name, [],
      column: Column(
        name: "measured_" + name, type: .real, source: .selected(sqlite: sql, postgres: sql), write: nil,
        read: { entry, value in entry.withMeasuredGain { $0[keyPath: property] = value.real } }),
      json: .none, template: .none
    ) { _ in nil }
  }

  /// A Live Photo's other half, texts, property lists and backup entries.
  private static let otherKindFields: [FactField] = [
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
        "encoding", .text, { .from($0.text?.encoding.rawValue) },
        read: { entry, value in
          if let encoding = value.text.flatMap(TextEncoding.init(rawValue:)) {
            entry.text = TextFacts(
              encoding: encoding, bom: false, lineEndings: .noBreak, lines: 0, words: 0, chars: 0,
              firstLine: "")
          }
        }),
      query: QueryBinding(names: ["encoding"], type: .name),
      info: InfoLine("encoding:") { entry in
        entry.text.map { $0.encoding.rawValue + ($0.bom ? " with BOM" : "") }
      },
      listed: true
    ) { .string($0.text?.encoding.rawValue) },
    FactField(
      "bom", [.text],
      column: .files("bom", .integer, { .from($0.text?.bom) }, read: { $0.text?.bom = $1.bool ?? false }),
      query: QueryBinding(names: ["bom"], type: .boolean), listed: true
    ) { .yesNo($0.text?.bom) },
    FactField(
      "line_endings", [.text],
      column: .files(
        "line_endings", .text, { .from($0.text?.lineEndings.rawValue) },
        read: { $0.text?.lineEndings = $1.text.flatMap(LineEndings.init(rawValue:)) ?? .noBreak }),
      query: QueryBinding(
        names: ["endings"], type: .name, choices: LineEndings.allCases.map(\.rawValue),
        help: "endings (line endings)"),
      info: InfoLine("endings:") { $0.text?.lineEndings.rawValue }
    ) { .string($0.text?.lineEndings.rawValue) },
    textCount("lines", \.lines, label: "lines:", listed: true),
    textCount("words", \.words, label: "words:"),
    textCount("chars", \.chars, label: "characters:"),
    FactField(
      "first_line", [.text],
      column: .files(
        "first_line", .text, { .from($0.text?.firstLine) }, read: { $0.text?.firstLine = $1.text ?? "" }),
      info: InfoLine("first line:") { entry in
        entry.text.flatMap { $0.firstLine.isEmpty ? nil : RawPath($0.firstLine).escaped }
      }
    ) { .string($0.text?.firstLine) },
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
        "plist_format", .text, { .from($0.plist?.format.rawValue) },
        read: { entry, value in
          if let format = value.text.flatMap(PlistFormat.init(rawValue:)) {
            entry.plist = PlistFacts(format: format, root: "", keys: [])
          }
        }),
      query: QueryBinding(
        names: ["plist"], type: .name, choices: PlistFormat.allCases.map(\.rawValue),
        help: "plist (xml or binary)"),
      info: InfoLine("plist:") { entry in entry.plist.map { "\($0.format.rawValue), \($0.root) root" } },
      listed: true
    ) { .string($0.plist?.format.rawValue) },
    FactField(
      "root", [.plist],
      column: .files(
        "plist_root", .text, { .from($0.plist?.root) }, read: { $0.plist?.root = $1.text ?? "" }),
      jsonHelp: "(the root object's type)", template: .none, listed: true
    ) { .string($0.plist?.root) },
    FactField(
      "keys", [.plist],
      column: .files(
        "plist_keys", .text, { entry in entry.plist.map { .text($0.keys.joined(separator: "\n")) } ?? .null },
        read: { entry, value in
          let keys = value.text ?? ""
          entry.plist?.keys =
            keys.isEmpty ? [] : keys.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }),
      query: QueryBinding(names: ["key"], type: .keys, help: "key (a top-level plist key)"),
      info: InfoLine("keys:") { entry in
        entry.plist.flatMap { $0.keys.isEmpty ? nil : $0.keys.joined(separator: ", ") }
      },
      searched: true, listed: true
    ) { entry in entry.plist.map { .list($0.keys) } },
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
        name, .integer, { .from($0.text?[keyPath: property]) },
        read: { $0.text?[keyPath: property] = $1.int ?? 0 }),
      query: QueryBinding(names: [name], type: .number), template: .number,
      info: InfoLine(label) { entry in entry.text.map { "\($0[keyPath: property])" } }, listed: listed
    ) { .int($0.text?[keyPath: property]) }
  }

  // MARK: Presentation helpers

  /// A sound's or a video's length in seconds.
  private static func duration(_ entry: CatalogEntry) -> Double? {
    entry.audio?.duration ?? entry.video?.duration
  }

  /// When a photo was taken or a video filmed, in RFC 3339 with the offset the camera recorded
  /// (QuickTime's `+0200` as `+02:00`), or none when it recorded none.
  private static func taken(_ entry: CatalogEntry) -> String? {
    (entry.video?.taken ?? entry.exif?.taken).map { Timestamp.normalized($0) }
  }

  private static func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }

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
