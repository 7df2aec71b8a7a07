import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf info FILE…`: what a file is, sniffed from its content.
enum InfoCommand {
  static let command = Command(
    name: "info",
    abstract: "Show what files are: kind, MIME type and size, detected from their content.",
    discussion: """
      The type is decided by the file's first bytes (magic numbers), not by its name; the \
      extension only breaks ties. Kinds are image, audio, text, plist and other.

      Directories, FIFOs, sockets and devices are refused without being opened for reading, \
      and so are empty files. Paths that are not valid UTF-8 or hold control characters are \
      printed escaped; with --json the exact bytes are kept in a path_b64 field.
      """,
    arguments: [
      ArgumentSpec("file", help: "Files to describe; '-' reads standard input.", repeating: true)
    ],
    options: [
      OptionSpec("json", help: "Print one JSON object per file (an array when there are several).")
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
    var outcome = BatchOutcome()
    var records: [JSONValue] = []
    var first = true
    for input in inputs {
      do {
        let description = try describe(input)
        outcome.succeeded()
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

    var json: JSONValue {
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
      return TableRenderer(alignments: [.left, .left]).render(rows).joined(separator: "\n") + "\n"
    }
  }

  static func describe(_ input: CommandLineArgument) throws -> Description {
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
    let prefix = try file.read(count: ContentSniffer.preferredPrefixLength)
    let sniff = ContentSniffer.sniff(prefix: prefix, fileExtension: input.path.lowercasedExtension)
    return Description(path: input.path.absolute, sniff: sniff, size: file.status.size)
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
