import ShelfCatalog
import ShelfCore

/// `shelf stats`: counts, total size and total duration by kind and by area.
enum StatsCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let json = Flag("json", help: "Print the summary as one JSON object.")

  static let command = Command(
    name: "stats",
    abstract: "Summarise the catalogue by kind and by area.",
    discussion: """
      Prints the number of files, their total size and the total duration of the audio and video, by \
      kind (image, audio, video, text, plist, other) and by sandbox area (bundle, documents, \
      preferences, caches, library, tmp, other), the photos (images with an EXIF date) by the year \
      they were taken (photos_by_year in --json), then the catalogued roots with their \
      application bundle, if any (for an iPhone backup: the device, iOS version, date and \
      whether it is encrypted), and when they were last scanned.

      A duration that is not finite, negative or longer than a week comes from a header that \
      lies: it is left out of every total, and the number of such files is printed \
      (implausible_durations in --json). The catalogue is opened read-only.

      With QUERY terms (the query language of shelf ls, see QUERY SYNTAX) only the matching \
      entries are counted, and only the roots that hold one are listed; when nothing \
      matches, the empty summary is printed and the exit status is 1, as for shelf ls.
      """,
    arguments: [QueryTerms.argument(optional: true)],
    options: [json],
    examples: [
      Example("shelf stats", "Summarise the catalogue."),
      Example("shelf stats --json | jq .by_kind.audio.duration", "Total audio duration in seconds."),
      Example("shelf stats area:camera-roll taken:2024", "The photos of 2024 in the backups' camera rolls."),
    ],
    manSections: [QueryTerms.syntax],
    acceptsNegatedTerms: true,
    run: run)

  /// The options of one `shelf stats` run.
  struct Options {
    /// `--json`: one JSON object instead of tables.
    var json: Bool
    /// The entries counted (all without terms).
    var query: CatalogQuery

    init(_ invocation: Invocation) throws {
      let arguments = invocation.arguments
      json = arguments[StatsCommand.json]
      query = try QueryTerms.query(arguments.positionals.map(\.string), environment: invocation.environment)
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try Options(invocation)
    let stats = try await invocation.openCatalogue(for: options.query).stats(matching: options.query)
    if options.json {
      invocation.console.write(json(stats).serialized(pretty: invocation.console.stdoutIsTerminal) + "\n")
    } else {
      invocation.console.write(text(stats))
    }
    return stats.files == 0 && !options.query.groups.isEmpty ? .partialFailure : .success
  }

  static func json(_ stats: CatalogStats) -> JSONValue {
    func groups(_ list: [CatalogGroupStats]) -> JSONValue {
      .object(
        list.map {
          (
            $0.name,
            .object([
              ("files", .int(Int64($0.count))), ("size", .int($0.size)), ("duration", .double($0.duration)),
            ])
          )
        })
    }
    let roots: [JSONValue] = stats.roots.map { root in
      var fields = JSONValue.pathFields(root.path)
      fields.append(("sandbox", .bool(root.isSandbox)))
      if let bundle = root.bundle {
        fields.append(
          (
            "bundle",
            .object([
              ("path", .string(String(decoding: bundle.bundlePath.bytes, as: UTF8.self))),
              ("identifier", bundle.identifier.map { .string($0) } ?? .null),
              ("name", bundle.name.map { .string($0) } ?? .null),
              ("version", bundle.version.map { .string($0) } ?? .null),
            ])
          ))
      }
      if let backup = root.backup { fields.append(("backup", BackupPresentation.json(backup))) }
      fields.append(
        ("last_scan", root.lastScanNanoseconds.map { .string(CatalogPresentation.isoDate($0)) } ?? .null))
      return .object(fields)
    }
    return .object([
      ("files", .int(Int64(stats.files))), ("size", .int(stats.size)), ("duration", .double(stats.duration)),
      ("errors", .int(Int64(stats.errors))), ("extension_mismatches", .int(Int64(stats.mismatches))),
      ("implausible_durations", .int(Int64(stats.implausibleDurations))),
      ("by_kind", groups(stats.byKind)), ("by_area", groups(stats.byArea)),
      (
        "photos_by_year",
        .object(
          stats.photosByYear.map {
            ($0.name, .object([("files", .int(Int64($0.count))), ("size", .int($0.size))]))
          })
      ),
      ("roots", .array(roots)),
    ])
  }

  static func text(_ stats: CatalogStats) -> String {
    func table(_ title: String, _ list: [CatalogGroupStats]) -> [String] {
      var rows = [[title, "files", "size", "duration"]]
      for group in list {
        rows.append([
          group.name, "\(group.count)", Quantities.formatByteSize(group.size),
          group.duration > 0 ? Quantities.formatDuration(group.duration) : "",
        ])
      }
      rows.append([
        "total", "\(stats.files)", Quantities.formatByteSize(stats.size),
        stats.duration > 0 ? Quantities.formatDuration(stats.duration) : "",
      ])
      return TableRenderer(alignments: [.left, .right, .right, .right]).render(rows)
    }
    var lines = table("kind", stats.byKind) + [""] + table("area", stats.byArea)
    if !stats.photosByYear.isEmpty {
      var rows = [["taken", "photos", "size"]]
      for year in stats.photosByYear {
        rows.append([year.name, "\(year.count)", Quantities.formatByteSize(year.size)])
      }
      lines +=
        [""]
        + TableRenderer(alignments: [.left, .right, .right]).render(rows)
    }
    if stats.errors > 0 || stats.mismatches > 0 {
      lines += [
        "", "\(stats.errors) with extraction errors, \(stats.mismatches) with a misleading extension",
      ]
    }
    if stats.implausibleDurations > 0 {
      let count = stats.implausibleDurations
      lines += [
        "",
        "\(count) with an implausible duration (not finite, negative or over a week): left out of the durations",
      ]
    }
    if !stats.roots.isEmpty {
      lines += ["", "roots:"]
      for root in stats.roots {
        var line = "  " + root.path.escaped
        if let bundle = root.bundle {
          let details = [bundle.identifier, bundle.version.map { "version \($0)" }].compactMap { $0 }
          line +=
            "  (sandbox: \(bundle.bundlePath.escaped)"
            + (details.isEmpty ? "" : ", " + details.joined(separator: ", ")) + ")"
        } else if root.isSandbox {
          line += "  (sandbox)"
        } else if let backup = root.backup {
          line += "  (backup: \(BackupPresentation.describe(backup)))"
        }
        if let scanned = root.lastScanNanoseconds {
          line += "  scanned \(CatalogPresentation.isoDate(scanned))"
        }
        lines.append(line)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
