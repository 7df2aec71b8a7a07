import ShelfCatalog
import ShelfCore
import ShelfFacts
import ShelfWorkers

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf info FILE…`: what a file is, sniffed from its content, and everything the catalogue
/// knows about it.
enum InfoCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let json = Flag(
    "json",
    help:
      "Print one JSON object per file (an array when there are several), with the fields of shelf ls --json.")

  static let command = Command(
    name: "info",
    abstract: "Show what files are: kind, MIME type, size and the facts of their kind.",
    discussion: """
      The type is decided by the file's first bytes (magic numbers), not by its name; the \
      extension only breaks ties. Kinds are image, audio, video, text, plist and other.

      When the file is catalogued (see shelf index), everything the catalogue knows is shown: \
      root, sandbox area, and the facts of its kind (image size and colour, a photo's EXIF \
      facts, audio duration, format and tags, text encoding and counts, plist format and \
      keys: the fields of shelf-ls(1)), and the other half of a Live Photo. A file that is not \
      catalogued, or that changed since it was, is read live from its headers.

      Images are read from their headers: PNG, JPEG, GIF, WebP, TIFF, HEIF/HEIC/AVIF, BMP and \
      DIB, ICO/CUR, ICNS, PSD, TGA, QOI, PBM/PGM/PPM/PAM, XPM, JPEG 2000, SVG, PCX/DCX, SGI, \
      Sun raster, XBM, DDS, EPS and FITS. Frames are animation frames, TIFF pages, a HEIF's \
      top-level images or a sequence's samples, icon entries, PSD layers or DCX pages. An \
      animated GIF or WebP gives how many times it plays (loop; 0: forever): a WebP's loop \
      count, a GIF's NETSCAPE2.0 repeat count plus one (a GIF without one plays once and has \
      none).

      A CUE sheet (.cue) also lists its album, performer and tracks: number, title, \
      performer, start and length in seconds (the last track of each audio file runs to the \
      file's end, read from the file; unknown when it cannot be read) and audio file, found as \
      shelf play finds it (the same name with another audio extension when the one written is \
      missing); with --json in a cue object.

      A catalogued path inside an iPhone backup (BACKUP/DOMAIN/relativePath, see shelf index) \
      is described from the catalogue, or from its content read (and decrypted) from the \
      backup when it is not catalogued.

      '-' reads standard input (up to 1 GiB) into a temporary file that is unlinked at once, \
      and reports every fact a file gets, without a name, a modification time or an \
      extension to break ties.

      Directories, FIFOs, sockets and devices are refused without being opened for reading, \
      and so are empty files (exit 66 and 65). A file that reports a size of 0 but has content \
      (those of /proc and /sys) is read through, up to 16 MiB, and described by what it holds, \
      as file -s and cat see it. A file whose header is truncated or corrupt is \
      shown with what could be read and its error, and counts as bad input (exit 65). Paths \
      that are not valid UTF-8 or hold control characters are printed escaped; with --json \
      the exact bytes are kept in a path_b64 field.
      """,
    arguments: [
      ArgumentSpec("file", help: "Files to describe; '-' reads standard input.", repeating: true)
    ],
    options: [json],
    examples: [
      Example("shelf info Documents/photo.png", "Describe one file."),
      Example("shelf info --json Documents/*", "Describe several files as a JSON array."),
      Example("curl -s URL | shelf info -", "Describe data read from standard input."),
    ],
    manSections: FactsManual.infoSections,
    run: run)

  /// The most bytes read from standard input.
  static let standardInputLimit: Int64 = 1 << 30

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = InfoOptions(invocation)
    let console = invocation.console
    let interrupts = InterruptExit.install()
    defer { interrupts.cancel() }
    // The catalogue is optional here: without one, files are read live.
    let store = try? invocation.openCatalogueForReading()
    var outcome = BatchOutcome()
    var records: [JSONValue] = []
    var first = true
    let backupFiles = BackupEntryFiles(invocation)
    // Files are read in a sandboxed worker: a crash or hang costs that file its facts.
    let extractors = invocation.extractionWorkers()
    for input in options.inputs {
      do {
        var description: Description
        switch Operand(input.path, accepting: [.standardInput, .backupEntries]) {
        case .standardInput:
          description = try describeStandardInput(
            temporaryFolder: options.temporaryFolder, extractors: extractors)
        case .backupEntry(let path):
          description =
            try describeBackupEntry(path, store: store, files: backupFiles, extractors: extractors)
            ?? describe(
              path: path, store: store, extractors: extractors, temporaryFolder: options.temporaryFolder)
        case .file, .folder, .playlist, .queryTerm, .missing:
          description = try describe(
            path: input.path, store: store, extractors: extractors, temporaryFolder: options.temporaryFolder)
        }
        // A CUE sheet's tracks, besides its text facts.
        if let path = description.path, description.entry.backup == nil, path.lowercasedExtension == "cue" {
          description.cueSheet = CueSheetDescription(path: path, extractors: extractors)
        }
        // What could be read is still shown; a header that failed to parse (a truncated
        // or corrupt file) is bad input all the same.
        if let error = description.entry.error {
          outcome.failed(
            FileError(path: input.path, reason: error.reason, failure: .badInput), console: console)
        } else {
          outcome.succeeded()
        }
        if options.json {
          records.append(description.json)
        } else {
          if !first { console.write("\n") }
          console.write(description.text)
        }
        first = false
      } catch {
        outcome.failed(AdvisedBackupError.advising(error), console: console)
      }
    }
    if options.json && !records.isEmpty {
      let value = options.inputs.count == 1 ? records[0] : .array(records)
      console.write(value.serialized(pretty: console.stdoutIsTerminal) + "\n")
    }
    return outcome.exitStatus
  }

  /// What `info` reports about one input.
  struct Description {
    /// The file's absolute path; nil for standard input.
    var path: RawPath?
    /// The catalogue entry, or a live extraction shaped like one.
    var entry: CatalogEntry
    var catalogued = false
    /// The tracks of a CUE sheet.
    var cueSheet: CueSheetDescription?

    var json: JSONValue {
      var record = CatalogPresentation.record(entry, catalogued: catalogued)
      if let cueSheet, case .object(let fields) = record {
        record = .object(fields + [("cue", cueSheet.json)])
      }
      // A stream has no name and no modification time of its own.
      guard path == nil, case .object(let fields) = record else { return record }
      return .object(fields.filter { $0.0 != "mtime" })
    }

    var text: String {
      var rows: [[String]] = [
        ["path:", path?.escaped ?? "-"], ["kind:", entry.kind.rawValue], ["mime:", entry.mime],
        ["size:", "\(Quantities.formatByteSize(entry.size)) (\(entry.size) bytes)"],
        ["detected by:", entry.detectedBy.rawValue],
      ]
      if entry.extensionMismatch { rows.append(["warning:", "the extension does not match the content"]) }
      if path != nil { rows.append(["modified:", CatalogPresentation.isoDate(entry.mtimeNanoseconds)]) }
      if catalogued, let root = entry.root {
        rows.append(["catalogue:", "root \(root.escaped), area \(entry.area.rawValue)"])
      } else {
        rows.append(["catalogue:", "not catalogued (read live)"])
      }
      rows += Self.factRows(entry)
      rows += cueSheet?.rows ?? []
      if let error = entry.error { rows.append(["error:", error.reason]) }
      return TableRenderer(alignments: [.left, .left]).render(rows).joined(separator: "\n") + "\n"
    }

    /// The lines of the facts of `entry`, each field's of `FactField.table` in its order.
    static func factRows(_ entry: CatalogEntry) -> [[String]] {
      FactField.table.compactMap { field in
        guard let line = field.info, let text = line.text(entry) else { return nil }
        return [line.label, text]
      }
    }
  }

  /// Describes standard input with every fact a file gets: it is spooled to an unlinked
  /// temporary file and read as one.
  static func describeStandardInput(temporaryFolder: RawPath, extractors: ExtractorPool?) throws
    -> Description
  {
    Description(
      path: nil,
      entry: try CatalogEntry.describingStandardInput(
        limit: standardInputLimit, temporaryFolder: temporaryFolder, extractors: extractors))
  }

  /// The catalogue's entry for a file when it is current, else the facts read live
  /// (`CatalogEntry.describing(file:)`).
  static func describe(
    path: RawPath, store: CatalogStore?, extractors: ExtractorPool? = nil, temporaryFolder: RawPath
  ) throws -> Description {
    let (entry, catalogued) = try CatalogEntry.describing(
      file: path, store: store, extractors: extractors, temporaryFolder: temporaryFolder)
    return Description(path: path.absolute, entry: entry, catalogued: catalogued)
  }
}

/// The options of one `shelf info`, read once from the command line.
struct InfoOptions {
  /// The files to describe; `-` is standard input.
  var inputs: [CommandLineArgument]
  var json: Bool
  /// Where standard input is spooled: `$TMPDIR`, else `/tmp`.
  var temporaryFolder: RawPath

  /// Reads the options.
  init(_ invocation: Invocation) {
    inputs = invocation.arguments.positionals
    json = invocation.arguments[InfoCommand.json]
    temporaryFolder = invocation.temporaryFolder
  }
}
