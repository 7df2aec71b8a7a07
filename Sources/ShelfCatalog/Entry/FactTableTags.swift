import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfFacts

// The rows of `FactField.table` for the tags of sounds and their gains (see FactTable.swift).

extension FactField {
  /// The tags of a sound (a video's title too), then its gains.
  static let tagFields: [FactField] =
    [
      FactField(
        "title", [.audio, .video],
        column: .files(
          "title", .text, { .from($0.facts.audio?.tags.title ?? $0.facts.video?.tags.title) },
          read: readShared({ $0.text }, video: \.tags.title) { $0.facts.audio?.tags.title = $1 }),
        query: QueryBinding(names: ["title"], type: .text),
        info: InfoLine("title:") { $0.facts.audio?.tags.title ?? $0.facts.video?.tags.title },
        searched: true, listed: true
      ) { .string($0.facts.audio?.tags.title ?? $0.facts.video?.tags.title) },
      tag("artist", \.artist, listed: true),
      tag("album", \.album),
      tag("album_artist", \.albumArtist, since: 7, label: "album artist:"),
      tag("date", \.date, queried: false),
      FactField(
        "year", [],
        column: Column(
          name: "year", type: .integer, write: { entry, _ in .from(entry.facts.audio?.tags.year) }, read: nil),
        query: QueryBinding(names: ["year"], type: .number), json: .none, template: .number
      ) { .int($0.facts.audio?.tags.year) },
      FactField(
        "track", [.audio],
        column: .files(
          "track", .text, { .from($0.facts.audio?.tags.track) },
          read: { $0.facts.audio?.tags.track = $1.text }),
        query: QueryBinding(names: ["track"], type: .number, sql: "f.track_no"), template: .number,
        info: InfoLine("track:") { entry in
          entry.facts.audio.flatMap { audio in
            audio.tags.trackNumber.map { "\($0)" + (audio.tags.trackTotal.map { " of \($0)" } ?? "") }
              ?? audio.tags.track
          }
        }
      ) { .int($0.facts.audio?.tags.trackNumber) },
      .written("track_no", .integer, notNull: false) { entry, _ in .from(entry.facts.audio?.tags.trackNumber)
      },
      tagNumber("track_total", \.trackTotal),
      FactField(
        "disc", [.audio],
        column: .files(
          "disc", .integer, since: 7, { .from($0.facts.audio?.tags.disc) },
          read: { $0.facts.audio?.tags.disc = $1.int }),
        query: QueryBinding(names: ["disc"], type: .number), template: .number,
        info: InfoLine("disc:") { entry in
          entry.facts.audio?.tags.disc.map {
            "\($0)" + (entry.facts.audio?.tags.discTotal.map { " of \($0)" } ?? "")
          }
        }
      ) { .int($0.facts.audio?.tags.disc) },
      tagNumber("disc_total", \.discTotal),
      tag("genre", \.genre),
      tag("comment", \.comment),
      FactField(
        "artwork", [.audio],
        column: .files(
          "artwork", .integer, since: 7, { .from($0.facts.audio?.hasArtwork) },
          read: { $0.facts.audio?.hasArtwork = $1.bool ?? false }),
        query: QueryBinding(names: ["artwork"], type: .boolean, help: "artwork (cover art embedded)"),
        info: InfoLine("artwork:") { $0.facts.audio.map { $0.hasArtwork ? "yes" : "no" } }
      ) { .yesNo($0.facts.audio?.hasArtwork) },
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
        name, .text, since: since, { .from($0.facts.audio?.tags[keyPath: property]) },
        read: { $0.facts.audio?.tags[keyPath: property] = $1.text }),
      query: queried ? QueryBinding(names: [name], type: .text) : nil,
      info: InfoLine(label ?? name + ":") { $0.facts.audio?.tags[keyPath: property] }, searched: true,
      listed: listed
    ) { .string($0.facts.audio?.tags[keyPath: property]) }
  }

  /// A number of a sound's tags that `info` shows with another (`3 of 10`).
  private static func tagNumber(_ name: String, _ property: WritableKeyPath<AudioTags, Int?> & Sendable)
    -> FactField
  {
    FactField(
      name, [.audio],
      column: .files(
        name, .integer, since: 7, { .from($0.facts.audio?.tags[keyPath: property]) },
        read: { $0.facts.audio?.tags[keyPath: property] = $1.int }),
      query: QueryBinding(names: [name], type: .number), template: .number
    ) { .int($0.facts.audio?.tags[keyPath: property]) }
  }

  /// A ReplayGain value: the tag's column, and the file's gain as `--json` shows it.
  private static func gain(
    _ name: String, _ property: WritableKeyPath<ReplayGain, Double?> & Sendable, column: String,
    measured: String
  ) -> FactField {
    FactField(
      name, [.replayGain],
      column: .files(
        column, .real, since: 15, { .from($0.facts.audio?.tags.replayGain?[keyPath: property]) },
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
}
