import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf info FILE…`: what a file is, sniffed from its content, and everything the catalogue
/// knows about it.
enum InfoCommand {
  static let command = Command(
    name: "info",
    abstract: "Show what files are: kind, MIME type, size and the facts of their kind.",
    discussion: """
      The type is decided by the file's first bytes (magic numbers), not by its name; the \
      extension only breaks ties. Kinds are image, audio, text, plist and other.

      When the file is catalogued (see shelf index), everything the catalogue knows is shown: \
      root, sandbox area, and the facts of its kind (image size and colour, audio duration, \
      format and tags, text encoding and counts, plist format and keys). A file that is not \
      catalogued, or that changed since it was, is read live from its headers.

      Directories, FIFOs, sockets and devices are refused without being opened for reading, \
      and so are empty files (exit 66 and 65). A file whose header is truncated or corrupt is \
      shown with what could be read and its error, and counts as bad input (exit 65). Paths \
      that are not valid UTF-8 or hold control characters are printed escaped; with --json \
      the exact bytes are kept in a path_b64 field.
      """,
    arguments: [
      ArgumentSpec("file", help: "Files to describe; '-' reads standard input.", repeating: true)
    ],
    options: [
      OptionSpec(
        "json",
        help:
          "Print one JSON object per file (an array when there are several), with the fields of shelf ls --json."
      )
    ],
    examples: [
      Example("shelf info Documents/photo.png", "Describe one file."),
      Example("shelf info --json Documents/*", "Describe several files as a JSON array."),
      Example("curl -s URL | shelf info -", "Describe data read from standard input."),
    ],
    run: run)

  /// The most bytes read from standard input.
  static let standardInputLimit: Int64 = 1 << 30

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let json = invocation.arguments.flag("json")
    let inputs = invocation.arguments.positionals
    // The catalogue is optional here: without one, files are read live.
    let store = try? invocation.openCatalogueForReading()
    var outcome = BatchOutcome()
    var records: [JSONValue] = []
    var first = true
    for input in inputs {
      do {
        let description = try describe(input, store: store)
        // What could be read is still shown; a header that failed to parse (a truncated
        // or corrupt file) is bad input all the same.
        if let reason = description.entry?.error {
          outcome.failed(
            FileError(path: input.path, reason: reason, failure: .badInput), console: invocation.console)
        } else {
          outcome.succeeded()
        }
        if json {
          records.append(description.json)
        } else {
          if !first { invocation.console.write("\n") }
          invocation.console.write(description.text)
        }
        first = false
      } catch {
        outcome.failed(error, console: invocation.console)
      }
    }
    if json && !records.isEmpty {
      let value = inputs.count == 1 ? records[0] : .array(records)
      invocation.console.write(value.serialized(pretty: invocation.console.stdoutIsTerminal) + "\n")
    }
    return outcome.exitStatus
  }

  /// What `info` reports about one input.
  struct Description {
    var path: RawPath?
    var sniff: SniffResult
    var size: Int64
    /// The catalogue entry, or a live extraction shaped like one.
    var entry: CatalogEntry?
    var catalogued = false

    var json: JSONValue {
      if let entry { return CatalogPresentation.record(entry, catalogued: catalogued) }
      var fields = path.map { JSONValue.pathFields($0) } ?? [("path", .string("-"))]
      fields += [
        ("kind", .string(sniff.kind.rawValue)), ("mime", .string(sniff.mime)),
        ("size", .int(size)), ("detected_by", .string(sniff.detectedBy.rawValue)),
      ]
      if sniff.extensionMismatch { fields.append(("extension_mismatch", .bool(true))) }
      return .object(fields)
    }

    var text: String {
      var rows: [[String]] = [
        ["path:", path?.escaped ?? "-"], ["kind:", sniff.kind.rawValue], ["mime:", sniff.mime],
        ["size:", "\(Quantities.formatByteSize(size)) (\(size) bytes)"],
        ["detected by:", sniff.detectedBy.rawValue],
      ]
      if sniff.extensionMismatch { rows.append(["warning:", "the extension does not match the content"]) }
      if let entry {
        rows.append(["modified:", CatalogPresentation.isoDate(entry.mtimeNanoseconds)])
        if catalogued, let root = entry.root {
          rows.append(["catalogue:", "root \(root.escaped), area \(entry.area)"])
        } else {
          rows.append(["catalogue:", "not catalogued (read live)"])
        }
        rows += Self.factRows(entry)
        if let error = entry.error { rows.append(["error:", error]) }
      }
      return TableRenderer(alignments: [.left, .left]).render(rows).map { line in
        var trimmed = Substring(line)
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        return String(trimmed)
      }.joined(separator: "\n") + "\n"
    }

    static func factRows(_ entry: CatalogEntry) -> [[String]] {
      var rows: [[String]] = []
      func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
      if let image = entry.image {
        rows.append(["dimensions:", "\(image.width)×\(image.height) pixels"])
        if let depth = image.bitDepth { rows.append(["bit depth:", "\(depth)"]) }
        if let color = image.colorType { rows.append(["color type:", color]) }
        rows.append(["alpha:", yesNo(image.alpha)])
        rows.append(["interlaced:", yesNo(image.interlaced)])
        if image.format == "png" { rows.append(["CgBI:", yesNo(image.cgbi)]) }
        if let frames = image.frames { rows.append(["frames:", "\(frames)"]) }
        if !image.chunks.isEmpty { rows.append(["chunks:", image.chunks.joined(separator: " ")]) }
      }
      if let audio = entry.audio {
        rows.append([
          "duration:",
          "\(Quantities.formatDuration(audio.duration)) (\(Quantities.formatFixed(audio.duration, decimals: 3)) s)",
        ])
        rows.append(["format:", audio.format + (audio.subtype.map { ", \($0)" } ?? "")])
        rows.append(["sample rate:", "\(audio.sampleRate) Hz"])
        rows.append(["channels:", "\(audio.channels)"])
        rows.append(["frames:", "\(audio.frames)"])
        for (label, value) in [
          ("title:", audio.title), ("artist:", audio.artist), ("album:", audio.album), ("date:", audio.date),
          ("track:", audio.track), ("genre:", audio.genre), ("comment:", audio.comment),
        ] {
          if let value { rows.append([label, value]) }
        }
      }
      if let text = entry.text {
        rows.append(["encoding:", text.encoding.rawValue + (text.bom ? " with BOM" : "")])
        rows.append(["endings:", text.lineEndings])
        rows.append(["lines:", "\(text.lines)"])
        rows.append(["words:", "\(text.words)"])
        rows.append(["characters:", "\(text.chars)"])
        if !text.firstLine.isEmpty { rows.append(["first line:", RawPath(text.firstLine).escaped]) }
      }
      if let plist = entry.plist {
        rows.append(["plist:", "\(plist.format), \(plist.root) root"])
        if !plist.keys.isEmpty { rows.append(["keys:", plist.keys.joined(separator: ", ")]) }
      }
      return rows
    }
  }

  static func describe(_ input: CommandLineArgument, store: CatalogStore?) throws -> Description {
    if input.string == "-" {
      let bytes = try readStandardInput()
      guard !bytes.isEmpty else {
        throw FileError(path: RawPath("-"), reason: "standard input is empty", failure: .badInput)
      }
      let sniff = ContentSniffer.sniff(
        prefix: Array(bytes.prefix(ContentSniffer.preferredPrefixLength)), fileExtension: "")
      return Description(path: nil, sniff: sniff, size: Int64(bytes.count))
    }
    let file = try RegularFile(path: input.path)
    guard file.status.size > 0 else {
      throw FileError(path: input.path, reason: "file is empty", failure: .badInput)
    }
    let absolute = input.path.absolute
    // The catalogue knows files by their resolved path.
    let resolved = (try? TreeWalker.realPath(absolute)) ?? absolute
    if let store, let entry = (try? store.entry(path: absolute)) ?? (try? store.entry(path: resolved)),
      entry.size == file.status.size, entry.mtimeNanoseconds == file.status.mtimeNanoseconds,
      entry.extractorVersion == MetadataExtractor.version
    {
      let sniff = SniffResult(
        kind: entry.kind, mime: entry.mime, detectedBy: entry.detectedBy,
        extensionMismatch: entry.extensionMismatch)
      var shown = entry
      shown.path = absolute
      return Description(path: absolute, sniff: sniff, size: entry.size, entry: shown, catalogued: true)
    }
    let extraction = try MetadataExtractor.extract(path: absolute, followLinks: true)
    // Inside a catalogued root (but not catalogued yet, or changed since), the area still
    // follows the root's sandbox layout.
    var area = "other"
    if let roots = try? store?.roots(),
      let root = roots.filter({ resolved.bytes.starts(with: $0.path.bytes + [UInt8(ascii: "/")]) })
        .max(by: { $0.path.bytes.count < $1.path.bytes.count })
    {
      area = SandboxLayout.detect(root: root.path).area(
        of: Array(resolved.bytes.dropFirst(root.path.bytes.count + 1)))
    }
    let entry = CatalogEntry(
      path: absolute, root: nil, area: area, kind: extraction.sniff.kind, mime: extraction.sniff.mime,
      detectedBy: extraction.sniff.detectedBy, extensionMismatch: extraction.sniff.extensionMismatch,
      size: extraction.status.size, mtimeNanoseconds: extraction.status.mtimeNanoseconds,
      ctimeNanoseconds: extraction.status.ctimeNanoseconds, inode: extraction.status.inode,
      device: extraction.status.device, error: extraction.error, image: extraction.image,
      audio: extraction.audio,
      text: extraction.text, plist: extraction.plist)
    return Description(path: absolute, sniff: extraction.sniff, size: extraction.status.size, entry: entry)
  }

  /// Reads standard input to its end (up to `standardInputLimit` bytes).
  private static func readStandardInput() throws -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileError(path: RawPath("-"), errno: errno, doing: "read failed")
      }
      if count == 0 { break }
      bytes += chunk[..<count]
      guard Int64(bytes.count) <= standardInputLimit else {
        throw FileError(path: RawPath("-"), reason: "standard input is larger than 1 GiB", failure: .badInput)
      }
    }
    return bytes
  }
}
