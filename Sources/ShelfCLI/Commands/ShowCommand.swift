import ShelfAudio
import ShelfCatalog
import ShelfCore
import ShelfFacts
import ShelfImage
import ShelfPNG
import ShelfWorkers

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf show PATH`: renders a file's content for a terminal.
enum ShowCommand {
  // The options, declared once: the table below lists them, and they are read by these keys.
  static let json = Flag(
    "json",
    help:
      "Print a property list as JSON; for every other kind, its facts as JSON (the record of shelf info --json), without a preview."
  )
  static let raw = Flag("raw", help: "Print the file's bytes unchanged, without decoding or escaping.")
  static let width = TypedOption<Int?>(
    "width", value: "columns",
    help: "Draw images and waveforms <columns> wide (default: the terminal width).",
    parser: .integer(in: 4...1000), completion: Completion.none)
  static let color = TypedOption(
    "color", value: "when",
    help:
      "Colour the image preview: auto (on a terminal unless NO_COLOR is set), always or never.",
    parser: .cases, default: ShowOptions.ColorChoice.auto)
  /// Nil is `auto`: what the terminal announces.
  static let graphics = TypedOption(
    "graphics", value: "protocol",
    help:
      "Draw images with the kitty graphics protocol, sixels, half-block characters or not at all (auto: what the terminal announces).",
    parser: .choices([nil] + PreviewGraphics.allCases, named: { $0?.rawValue ?? "auto" }), default: nil)

  static let command = Command(
    name: "show",
    abstract: "Render a file for the terminal: text, plist, image preview, audio summary or video still.",
    discussion: """
      Text is decoded from its encoding (the one shelf info reports: UTF-8, UTF-16 and UTF-32, \
      ISO-8859, Windows, KOI8, Mac, Shift_JIS, EUC, ISO-2022, GB18030, Big5 and more) to the \
      terminal's encoding (UTF-8 unless LC_ALL, LC_CTYPE or LANG names another codeset) and, on \
      a terminal, paged through $PAGER (less by default) when it is longer than the screen. \
      Control characters other than tab and line feed are shown in caret notation (^[ for \
      escape; a carriage return before a line feed is kept into a pipe and dropped on a \
      terminal), bytes that do not decode as \
      \\xNN. Text is decoded and printed a block at a time, so a file of any size, even of \
      one line, takes little memory; a line longer than the screen counts as the rows it \
      wraps to. A file that reports a size of 0 but has content (those of /proc and /sys) is \
      read through, up to 16 MiB, and shown as cat shows it. With --raw the file's bytes are \
      printed unchanged, whatever its kind.

      Property lists (XML or binary) are pretty-printed, or printed as JSON with --json (data \
      as base64, dates as RFC 3339 text in the local zone).

      Images are drawn as a preview fitted to the terminal (a bitmap never enlarged), upright \
      by their EXIF orientation: JPEG, PNG (also iPhone-optimized CgBI), GIF and TIFF (the \
      first frame or page), WebP, HEIC and AVIF, BMP, ICO, CUR and ICNS (the largest entry), \
      PSD (the composite), TGA, QOI, PNM (P1-P7), JPEG 2000 and SVG (drawn by librsvg to \
      fill the width or height available, since a drawing has no pixel size to keep). Large \
      images are shrunk \
      while they are decoded (a 12-megapixel JPEG is read at an eighth of its size; a \
      30000x30000 picture is never held whole). The kitty graphics protocol is used under kitty \
      (TERM=xterm-kitty or KITTY_WINDOW_ID set), sixels on terminals whose device attributes \
      (asked with ESC [ c, a quarter of a second at most) list sixel graphics, half-block \
      characters otherwise, in 24-bit colour where the terminal announces it \
      (COLORTERM=truecolor or 24bit, or a terminfo entry with 16777216 colours), else in the \
      nearest of xterm's 256 colours (a terminfo entry, or a TERM name, with 256) or of the \
      16 ANSI colours; --graphics chooses. Where --color leaves colour \
      off (NO_COLOR, --color never, a pipe), half-blocks become grey shades of ASCII. Into a \
      pipe only the image's facts are printed (no preview, no escape sequences) unless \
      --color always or --graphics asks for a preview. An image cut short or damaged after \
      its header is drawn as far as it decodes (the rest as its decoder fills it, as libvips \
      and ImageMagick show it), with a one-line warning; one that cannot be decoded at all \
      draws nothing: a one-line error and exit status 65.

      Audio is summarised (container, named as info and ls name it, encoding, duration, rate, \
      channels, tags); on a terminal a waveform line of the peak level across the file follows. \
      The waveform is terminal graphics: into a pipe only the facts are printed, unless \
      --color always or --graphics asks for it.

      Videos show a still of their first frame (decoded by FFmpeg, upright by the stream's \
      display rotation), drawn as images are, above their facts; a frame that cannot be \
      decoded leaves a warning and the facts.

      A catalogued path inside an iPhone backup (BACKUP/DOMAIN/relativePath) is shown from its \
      content, read and decrypted from the backup into a private temporary file that is \
      removed at once; the backup is never written.

      With --json, property lists are printed as JSON and every other kind of file as its \
      facts (the JSON record of shelf info --json), never as a preview.

      Several files are shown one after the other, each under a '==> path <==' header with an \
      empty line before the next, as head(1) prints them, and without the pager; with --raw \
      their bytes follow each other as cat(1) writes them, with --json one JSON document per \
      file (jq reads them in turn). A file that fails is reported in one line and the rest are \
      still shown; the exit status is 0 when every file was shown, 1 when some were, and the \
      most severe failure's code when none was (77, 74, 73, 66, then 65), as for every batch.
      """,
    arguments: [ArgumentSpec("path", help: "The files to show.", repeating: true)],
    options: [json, raw, width, color, graphics, ShowOptions.maxDecodedBytesOption],
    examples: [
      Example("shelf show Documents/Notes/welcome-utf8.txt", "Show a note, converted to UTF-8."),
      Example("shelf show Demo.app/Info.plist", "Pretty-print a binary property list."),
      Example("shelf show --json Library/Preferences/com.example.plist | jq .", "A plist as JSON."),
      Example("shelf show Demo.app/AppIcon60x60@2x.png", "Preview an image in the terminal."),
      Example("shelf show --graphics sixel --width 60 IMG_0001.HEIC", "A photo as sixels, 60 columns wide."),
      Example("shelf show --json Documents/tone-440-mono.wav", "An audio file's facts as JSON."),
      Example("shelf show Documents/Notes/*.txt", "Several notes, each under a '==> name <==' header."),
    ],
    manSections: CatalogueManual.showSections,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try ShowOptions(invocation)
    let console = invocation.console
    let interrupts = InterruptExit.install()
    defer { interrupts.cancel() }
    // A backup entry's catalogued path is read from the backup (decrypted) through a spool.
    let backupFiles = BackupEntryFiles(invocation)
    guard options.paths.count > 1 else {
      do {
        return try show(
          options.paths[0], options: options, invocation: invocation, backupFiles: backupFiles,
          interrupts: interrupts, paging: true)
      } catch let error as any ShelfError {
        throw backupFiles.naming(error)
      }
    }
    // Several files: each under a header, as head(1) prints them; a failure is reported and
    // the rest are still shown. The exit status follows the batch rule.
    var outcome = BatchOutcome()
    for (index, path) in options.paths.enumerated() {
      if !options.raw && !options.json {
        console.write((index == 0 ? "" : "\n") + "==> \(path.escaped) <==\n")
      }
      do {
        let status = try show(
          path, options: options, invocation: invocation, backupFiles: backupFiles,
          interrupts: interrupts, paging: false)
        // The one unsuccessful status a shown file returns: its facts, with a defect reported.
        if status == .success { outcome.succeeded() } else { outcome.failed(.badInput) }
      } catch let error as any ShelfError {
        console.error(ErrorAdvice.message(for: backupFiles.naming(error), command: "show"))
        outcome.failed(error.failure)
      } catch {
        outcome.failed(error, console: console)
      }
    }
    return outcome.exitStatus
  }

  /// Shows one file; `paging` lets long text go through the pager (a single file only).
  static func show(
    _ path: RawPath, options: ShowOptions, invocation: Invocation, backupFiles: BackupEntryFiles,
    interrupts: InterruptExit, paging: Bool
  ) throws -> ExitStatus {
    let console = invocation.console
    var source: RawPath
    do {
      source = try backupFiles.readablePath(path) ?? path
    } catch {
      throw AdvisedBackupError.advising(error)
    }
    var file = try RegularFile(path: source)
    // A /proc or /sys file reports no size but has content: its copy is shown (the copy
    // lives as long as this call).
    var unsized: SpooledFile?
    if file.status.size == 0 {
      unsized = try UnsizedFile.spool(file, temporaryFolder: invocation.temporaryFolder)
      guard let copy = unsized else {
        throw FileError(path: path, reason: "file is empty", failure: .badInput)
      }
      file = try copy.open()
      source = copy.path
    }
    defer { withExtendedLifetime(unsized) {} }
    if options.raw {
      try showRaw(file, console: console)
      return .success
    }
    let sniff = try ContentSniffer.sniff(file, fileExtension: path.lowercasedExtension)
    if options.json && sniff.kind != .plist {
      // The facts info --json gives, with its verdict: a header that failed to parse is
      // still shown, and is bad input all the same.
      let description =
        try InfoCommand.describeBackupEntry(path, store: nil, files: backupFiles)
        ?? InfoCommand.describe(path: path, store: nil, temporaryFolder: invocation.temporaryFolder)
      console.write(description.json.serialized(pretty: true) + "\n")
      guard let reason = description.entry.error else { return .success }
      console.error("\(path.escaped): \(reason)")
      return .dataError
    }
    switch sniff.kind {
    case .text:
      try showText(
        file, encoding: sniff.textEncoding, console: console, environment: invocation.environment,
        interrupts: paging ? interrupts : nil)
    case .plist:
      let plist: PropertyList
      do {
        plist = try PropertyList.parse(file)
      } catch let error as HeaderError {
        throw FileError(path: path, reason: error.reason, failure: .badInput)
      }
      if options.json {
        console.write(json(plist.root).serialized(pretty: true) + "\n")
      } else {
        var out = ""
        pretty(plist.root, indent: 0, into: &out, terminal: console.stdoutIsTerminal)
        console.write(out + "\n")
      }
    case .image:
      try showImage(
        path: path, source: source, mime: sniff.mime, file: file, console: console, options: options,
        environment: invocation.environment)
    case .audio:
      // The waveform is terminal graphics: into a pipe the facts alone, unless a preview is
      // asked for (--graphics, --color always), as for images.
      let graphics = PreviewGraphics.choose(
        requested: options.graphics, color: options.color, console: console,
        environment: invocation.environment)
      try showAudio(
        path: path, source: source, mime: sniff.mime, console: console,
        waveformWidth: graphics == .none ? nil : options.width ?? max(console.width, 4))
    case .video:
      let description =
        try InfoCommand.describeBackupEntry(path, store: nil, files: backupFiles)
        ?? InfoCommand.describe(path: path, store: nil, temporaryFolder: invocation.temporaryFolder)
      if let error = description.entry.error, description.entry.video == nil {
        throw FileError(path: path, reason: error.reason, failure: .badInput)
      }
      // A still of the first frame, drawn as an image is, above the facts.
      let graphics = PreviewGraphics.choose(
        requested: options.graphics, color: options.color, console: console,
        environment: invocation.environment)
      if graphics != .none && description.entry.video != nil {
        do {
          try drawPreview(
            path: path, source: source, graphics: graphics, console: console, options: options,
            decode: ImagePreviewDecoder.videoStill)
        } catch let error as ImagePreviewError {
          console.warning("\(path.escaped): no still: \(error.message)")
        }
      }
      let rows =
        [["path:", path.escaped], ["kind:", description.entry.kind.rawValue]]
        + InfoCommand.Description.factRows(description.entry)
      console.write(
        TableRenderer(alignments: [.left, .left]).render(rows).joined(separator: "\n") + "\n")
    case .other:
      // Formats the sniffer does not name may still be pictures a decoder recognises.
      let graphics = PreviewGraphics.choose(
        requested: options.graphics, color: options.color, console: console,
        environment: invocation.environment)
      if graphics != .none {
        do {
          try drawPreview(path: path, source: source, graphics: graphics, console: console, options: options)
          return .success
        } catch let error as ImagePreviewError where error.reason == .unknownFormat {}
      }
      console.write(
        "\(path.escaped): \(sniff.mime), \(Quantities.formatByteSize(file.status.size)); no preview for this kind of file\n"
      )
    }
    return .success
  }

  // MARK: Text

  /// Copies the file's bytes to stdout in blocks.
  static func showRaw(_ file: RegularFile, console: Console) throws {
    var offset: Int64 = 0
    while offset < file.status.size {
      let block = try file.read(count: 1 << 20, at: offset)
      if block.isEmpty { break }
      console.writeBytes(block)
      offset += Int64(block.count)
    }
  }

  /// Decodes and prints text a block at a time; with `interrupts`, text longer than the
  /// screen is paged (nil: printed whole), the rest streamed to the pager as it is decoded.
  static func showText(
    _ file: RegularFile, encoding: DetectedEncoding?, console: Console, environment: [String: String],
    interrupts: InterruptExit?
  ) throws {
    let codeset = TerminalCodeset.nonUTF8(environment)
    var text = try VisibleText(
      file, encoding: encoding, terminal: console.stdoutIsTerminal, endWithNewline: codeset == nil)
    if let codeset {
      while let piece = try text.next() { console.writeBytes(TextTranscoder.encode(piece, to: codeset)) }
      return
    }
    guard let interrupts, console.stdoutIsTerminal else {
      while let piece = try text.next() { console.write(piece) }
      return
    }
    // Held until it is known to fill the screen: as many lines, or as many characters as the
    // screen holds (a long line wraps).
    var held = ""
    var lines = 0
    while let piece = try text.next() {
      held += piece
      lines += piece.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
      guard lines >= console.height || held.unicodeScalars.count >= console.height * console.width else {
        continue
      }
      // The pager in the foreground answers Ctrl-C itself; shelf waits for it to quit.
      let paged = try interrupts.ignoring {
        try Pager.page(held, then: { try text.next() }, environment: environment)
      }
      if paged { return }
      console.write(held)
      while let piece = try text.next() { console.write(piece) }
      return
    }
    console.write(held)
  }

  // MARK: Property lists

  static func json(_ value: PlistValue) -> JSONValue {
    switch value {
    case .string(let text): return .string(text)
    case .integer(let number): return .int(number)
    case .real(let number): return .double(number)
    case .boolean(let flag): return .bool(flag)
    case .date(let seconds): return .string(appleDate(seconds))
    case .dateText(let text): return .string(Timestamp.normalized(text, toLocal: true))
    case .data(let bytes): return .string(Base64.encode(bytes))
    case .array(let items): return .array(items.map(json))
    case .dictionary(let pairs): return .object(pairs.map { ($0.0, json($0.1)) })
    case .uid(let number): return .object([("CF$UID", .int(Int64(bitPattern: number)))])
    case .null: return .null
    }
  }

  /// Seconds since 2001-01-01 in RFC 3339, in the local zone; a date outside what nanoseconds
  /// in an `Int64` count (about 292 years either side of 1970) as the bare number.
  static func appleDate(_ seconds: Double) -> String {
    guard seconds.isFinite, abs(seconds) < 9e9 else { return "\(seconds)" }
    return CatalogPresentation.isoDate(Int64((seconds + 978_307_200) * 1e9))
  }

  static func quoted(_ text: String, terminal: Bool) -> String {
    JSONValue.string(text).serialized()
  }

  /// Pretty-prints like `plutil -p`: `"key" => value`, arrays with indices.
  static func pretty(_ value: PlistValue, indent: Int, into out: inout String, terminal: Bool) {
    let pad = String(repeating: "  ", count: indent + 1)
    let closePad = String(repeating: "  ", count: indent)
    switch value {
    case .string(let text): out += quoted(text, terminal: terminal)
    case .integer(let number): out += "\(number)"
    case .real(let number): out += "\(number)"
    case .boolean(let flag): out += flag ? "true" : "false"
    case .date(let seconds): out += appleDate(seconds)
    case .dateText(let text): out += Timestamp.normalized(text, toLocal: true)
    case .data(let bytes):
      let hex = bytes.prefix(32).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
      out += "{length = \(bytes.count), bytes = 0x\(hex)\(bytes.count > 32 ? "…" : "")}"
    case .uid(let number): out += "<CFKeyedArchiverUID>{value = \(number)}"
    case .null: out += "null"
    case .array(let items):
      if items.isEmpty {
        out += "[]"
        return
      }
      out += "[\n"
      for (index, item) in items.enumerated() {
        out += pad + "\(index) => "
        pretty(item, indent: indent + 1, into: &out, terminal: terminal)
        out += "\n"
      }
      out += closePad + "]"
    case .dictionary(let pairs):
      if pairs.isEmpty {
        out += "{}"
        return
      }
      out += "{\n"
      for (key, item) in pairs {
        out += pad + quoted(key, terminal: terminal) + " => "
        pretty(item, indent: indent + 1, into: &out, terminal: terminal)
        out += "\n"
      }
      out += closePad + "}"
    }
  }

  // MARK: Images

  static func showImage(
    path: RawPath, source: RawPath, mime: String, file: RegularFile, console: Console, options: ShowOptions,
    environment: [String: String]
  ) throws {
    let facts = try? ImageHeaderReader.read(file, mime: mime)
    // PNG only: other formats are shrunk while they load (a 30000x30000 JPEG is never whole).
    if let facts, mime == "image/png" {
      // RGBA at 8 or 16 bits a sample: what a decoder of the whole image would hold.
      let sampleBytes = (facts.bitDepth ?? 8) > 8 ? 2 : 1
      let (width, height) = (min(max(facts.width, 0), 1 << 31), min(max(facts.height, 0), 1 << 31))
      let decoded = width.multipliedReportingOverflow(by: height * 4 * sampleBytes)
      if decoded.overflow || decoded.partialValue > options.maxDecodedBytes {
        throw PNGError(
          .decodedSizeExceeds(
            bytes: decoded.overflow ? .max : decoded.partialValue, limit: options.maxDecodedBytes)
        ).at(path)
      }
    }
    let graphics = PreviewGraphics.choose(
      requested: options.graphics, color: options.color, console: console, environment: environment)
    // Into a pipe: plain facts, unless a preview is asked for.
    guard graphics != .none else {
      var line = "\(path.escaped): \(mime)"
      if let facts { line += ", \(facts.width)×\(facts.height)" }
      console.write(line + "\n")
      return
    }
    try drawPreview(path: path, source: source, graphics: graphics, console: console, options: options)
    if let facts { console.write("\(facts.width)×\(facts.height)\n") }
  }

  /// Decodes the image at `source` (with `decode`: a picture, or a video's first frame), fitted
  /// to the columns and rows available, and writes it in one piece (a file that fails to decode
  /// draws nothing).
  static func drawPreview(
    path: RawPath, source: RawPath, graphics: PreviewGraphics, console: Console, options: ShowOptions,
    decode: (RawPath, Int, Int) throws -> PreviewImage = {
      try ImagePreviewDecoder.preview(path: $0, maxWidth: $1, maxHeight: $2)
    }
  ) throws {
    let columns = options.width ?? max(console.width, 4)
    let rows = console.stdoutIsTerminal ? max(console.height - 2, 4) : 40
    // Sixel and kitty images are sized in pixels: the terminal's cell size, or a common 10×20.
    let cell = graphics == .blocks ? (width: 1, height: 2) : TerminalQuery.cellPixelSize() ?? (10, 20)
    let image: PreviewImage
    do {
      image = try decode(source, columns * cell.width, rows * cell.height)
    } catch let error as ImagePreviewError {
      throw ImagePreviewError(error.reason, path: path)
    }
    if let damage = image.damage { console.warning("\(path.escaped): \(damage); shown as far as it decodes") }
    switch graphics {
    case .kitty:
      let usedColumns = (image.width + cell.width - 1) / cell.width
      let usedRows = (image.height + cell.height - 1) / cell.height
      console.writeBytes(PreviewKitty.encode(image, columns: usedColumns, rows: usedRows) + [0x0A])
    case .sixel:
      console.writeBytes(PreviewSixel.encode(image) + [0x0A])
    case .blocks, .none:
      let colors = options.color.enabled(console) ? options.terminalColors : nil
      console.write(PreviewHalfBlocks.render(image, colors: colors))
    }
  }

  // MARK: Audio

  /// The summary of the audio at `source`, named `path`, and its waveform `waveformWidth`
  /// columns wide (nil: none). The container is named as info and ls name it.
  static func showAudio(
    path: RawPath, source: RawPath, mime: String, console: Console, waveformWidth: Int?
  ) throws {
    let info = try AudioFileInfo.read(path: source)
    let prefix = (try? RegularFile(path: source).read(count: 4, at: 0)) ?? []
    let container = MediaContainer.name(info.formatName, codec: info.codec, prefix: prefix, mime: mime)
    var lines = ["\(path.escaped)"]
    lines.append(
      "  \(container), \(info.encodingName), \(info.sampleRate) Hz, \(info.channels) channel\(info.channels == 1 ? "" : "s")"
    )
    lines.append("  duration \(Quantities.formatDuration(info.duration)) (\(info.frames) frames)")
    var technical = ["codec \(info.codec)"]
    if let bitrate = info.bitrate { technical.append(FactField.formatBitrate(bitrate)) }
    if info.hasArtwork { technical.append("cover art") }
    lines.append("  " + technical.joined(separator: ", "))
    let tags = info.tags
    for (label, value) in [
      ("title", tags.title), ("artist", tags.artist), ("album", tags.album),
      ("album artist", tags.albumArtist),
      ("date", tags.date), ("track", tags.track),
      ("disc", tags.disc.map { "\($0)" + (tags.discTotal.map { "/\($0)" } ?? "") }),
      ("genre", tags.genre),
    ] {
      if let value { lines.append("  \(label): \(value)") }
    }
    console.write(lines.joined(separator: "\n") + "\n")
    guard let waveformWidth else {
      if let defect = info.defect { throw defect }
      return
    }
    let columns = max(8, waveformWidth - 2)
    // The waveform is drawn from what play decodes (libsndfile or FFmpeg, by content).
    let peaks: [Float]
    let scan = { () throws(AudioError) in try AudioWaveform.peaks(path: source, columns: columns) }
    // A defect of the facts (a length that cannot be trusted, a file cut short) is the verdict,
    // with info's reason, whatever decoding the waveform meets: show and info agree.
    switch Result(catching: scan) {
    case .success(let values): peaks = values
    case .failure(let error):
      if let defect = info.defect { throw defect }
      if error.reason == .unrecognised || error.reason == .unsupported { return }
      throw error
    }
    let levels = Array(" ▁▂▃▄▅▆▇█")
    let line = peaks.map { levels[min(levels.count - 1, Int(($0 * Float(levels.count - 1)).rounded(.up)))] }
    console.write("  " + String(line) + "\n")
    if let defect = info.defect { throw defect }
  }
}

extension ShowOptions.ColorChoice {
  /// `auto` colours on a terminal (stdout) unless `NO_COLOR` is set or `TERM` is `dumb`.
  func enabled(_ console: Console) -> Bool { applies(onTerminal: console.colorEnabled) }
}

/// The options of one `shelf show`, read once from the command line.
struct ShowOptions {
  /// When the image preview is drawn in colour.
  typealias ColorChoice = WhenChoice

  /// The files to show, in order.
  var paths: [RawPath]
  var json: Bool
  /// Print the bytes as they are.
  var raw: Bool
  /// Columns for images and waveforms; nil means the terminal's width.
  var width: Int?
  var color: ColorChoice
  /// The protocol asked for; nil: what the terminal announces.
  var graphics: PreviewGraphics?
  /// The colours half-blocks are drawn in: what the terminal announces.
  var terminalColors: TerminalColors
  /// Images whose decoded pixels would take more bytes are refused (`--max-decoded-bytes`).
  var maxDecodedBytes: Int

  /// `--max-decoded-bytes`, one option of crush and show alike.
  static let maxDecodedBytesOption = TypedOption(
    "max-decoded-bytes", value: "size",
    help:
      "Refuse images whose decoded pixels would take more than <size> (512M, 2G), from the header, before decoding.",
    parser: .byteSize(atLeast: 1), default: Int64(PNGDecoder.defaultMaxDecodedBytes),
    completion: Completion.none)

  /// Reads and checks the options.
  init(_ invocation: Invocation) throws {
    let arguments = invocation.arguments
    guard !arguments.positionals.isEmpty else { throw invocation.usageError("missing <path>") }
    paths = arguments.positionals.map(\.path)
    json = arguments[ShowCommand.json]
    raw = arguments[ShowCommand.raw]
    if raw && json { throw invocation.usageError("--raw and --json cannot be combined") }
    width = arguments[ShowCommand.width]
    color = arguments[ShowCommand.color]
    graphics = arguments[ShowCommand.graphics]
    terminalColors = TerminalColors.announced(invocation.environment)
    maxDecodedBytes = Int(arguments[Self.maxDecodedBytesOption])
  }
}
