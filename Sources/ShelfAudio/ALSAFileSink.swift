public import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The file ALSA's `file` plugin writes for a `file:` device, as shelf reads the name: ALSA
/// opens it with `O_TRUNC` and mode 0600 whenever the device is opened, so shelf checks and
/// creates it first (`claim`) and hands ALSA a name that writes exactly that file.
public struct ALSAFileSink: Sendable, Equatable {
  /// The formats of ALSA's `file` plugin.
  static let formats: Set<String> = ["raw", "wav"]

  /// The file written, literally (no `%r`-style expansion).
  public var path: RawPath
  /// `raw` or `wav`.
  public var format: String

  /// The sink a device name writes into, or nil when the name is not ALSA's `file:` plugin
  /// (or pipes into a command: `file:|cmd`).
  ///
  /// Spellings: `file:PATH` (format from PATH's extension: `.wav` a WAV, else raw samples;
  /// commas and quotes are part of PATH), `file:PATH,raw`, ALSA's `file:'PATH',wav` or
  /// `file:"PATH"` (backslash escapes; raw unless `,wav` follows, as in ALSA), and
  /// `file:FILE=PATH,FORMAT=raw`. A `file:` name shelf cannot read the file from is refused
  /// (`.invalidRequest`) rather than guessed at.
  public static func parse(_ device: String) throws(AudioError) -> ALSAFileSink? {
    guard device.hasPrefix("file:") else { return nil }
    let text = Substring(device.dropFirst("file:".count))
    let sink: ALSAFileSink
    if let first = text.first, first == "'" || first == "\"" {
      guard let (path, rest) = quoted(text), let format = formatSuffix(rest) else {
        throw unreadable(device)
      }
      sink = ALSAFileSink(path: RawPath(path), format: format)
    } else if text.hasPrefix("FILE=") || text.hasPrefix("FORMAT=") {
      sink = try named(text, device: device)
    } else if text.first == "{" {
      throw unreadable(device)
    } else if let comma = text.lastIndex(of: ","),
      formats.contains(String(text[text.index(after: comma)...]))
    {
      let path = String(text[..<comma])
      sink = ALSAFileSink(path: RawPath(path), format: String(text[text.index(after: comma)...]))
    } else {
      sink = ALSAFileSink(path: RawPath(String(text)), format: format(of: String(text)))
    }
    if sink.path.bytes.first == UInt8(ascii: "|") { return nil }
    guard !sink.path.bytes.isEmpty else {
      throw AudioError(device: device, reason: .invalidRequest, message: "the file: device needs a file name")
    }
    return sink
  }

  /// The name ALSA opens: the path quoted (commas and quotes stay part of it) with `%` doubled
  /// (ALSA would expand `%r` and the like), and the format spelled out.
  public var alsaName: String {
    var quotedPath = ""
    for character in String(decoding: path.bytes, as: UTF8.self) {
      if character == "\\" || character == "'" { quotedPath.append("\\") }
      if character == "%" { quotedPath.append("%") }
      quotedPath.append(character)
    }
    return "file:'\(quotedPath)',\(format)"
  }

  /// Makes the file ready for ALSA without losing one: a file that is one of `inputs` (same
  /// device and inode, or, while it does not exist, the same resolved path) is refused even
  /// with `overwrite`; another existing file is refused without it (a FIFO or a character
  /// device, which writing does not destroy, is taken as it is). A new file is created here,
  /// with the mode the umask gives, so that ALSA only ever truncates it.
  ///
  /// Returns the file created, which `release` removes again if nothing was written to it.
  public func claim(overwrite: Bool, inputs: [RawPath]) throws(AudioError) -> FileStatus? {
    if (try? FileStatus.lstat(path)) != nil {
      let target = try? FileStatus.stat(path)
      if let target,
        inputs.contains(where: { input in
          guard let status = try? FileStatus.stat(input) else { return false }
          return status.device == target.device && status.inode == target.inode
        })
      {
        throw AudioError(
          path: path, reason: .cannotCreate,
          message: "is one of the files being played: the file: device cannot write it")
      }
      if let target, target.type == .fifo || target.type == .characterDevice { return nil }
      guard overwrite else {
        throw AudioError(path: path, reason: .exists, message: "file exists")
      }
      return nil
    }
    let resolvedPath = Self.resolved(path)
    if inputs.contains(where: { Self.resolved($0) == resolvedPath }) {
      throw AudioError(
        path: path, reason: .cannotCreate,
        message: "is one of the files being played: the file: device cannot write it")
    }
    let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
    guard descriptor >= 0 else {
      let code = errno
      if code == EEXIST {
        throw AudioError(path: path, reason: .exists, message: "file exists")
      }
      throw AudioError(path: path, reason: .cannotCreate, message: String(cString: strerror(code)))
    }
    defer { close(descriptor) }
    var st = Glibc.stat()
    guard fstat(descriptor, &st) == 0 else { return nil }
    return FileStatus(st)
  }

  /// Removes the file `claim` created when it is still that file and still empty: the device
  /// was never opened (nothing played), so a rerun finds no file in its way.
  public func release(_ created: FileStatus?) {
    guard let created, let now = try? FileStatus.lstat(path), now.device == created.device,
      now.inode == created.inode, now.size == 0
    else { return }
    _ = path.withCString { unlink($0) }
  }

  /// `path` with its folder's links resolved (the file itself may not exist).
  static func resolved(_ path: RawPath) -> RawPath {
    let absolute = path.absolute
    let folder = absolute.parent
    let real = folder.withCString { realpath($0, nil) }
    guard let real else { return absolute }
    defer { free(real) }
    let length = strlen(real)
    let bytes = [UInt8](UnsafeRawBufferPointer(start: real, count: length))
    return RawPath(bytes: bytes).appending(absolute.lastComponent)
  }

  static func format(of path: String) -> String {
    path.lowercased().hasSuffix(".wav") ? "wav" : "raw"
  }

  /// ALSA's quoted string at the start of `text` (backslash escapes a character) and what
  /// follows it.
  static func quoted(_ text: Substring) -> (String, Substring)? {
    guard let quote = text.first else { return nil }
    var value = ""
    var index = text.index(after: text.startIndex)
    while index < text.endIndex {
      let character = text[index]
      if character == "\\" {
        index = text.index(after: index)
        guard index < text.endIndex else { return nil }
        value.append(text[index])
      } else if character == quote {
        return (value, text[text.index(after: index)...])
      } else {
        value.append(character)
      }
      index = text.index(after: index)
    }
    return nil
  }

  /// The format after a quoted path: `raw` when nothing follows (ALSA's default), the one
  /// `,raw` or `,wav` names; nil when anything else follows.
  static func formatSuffix(_ rest: Substring) -> String? {
    if rest.isEmpty { return "raw" }
    guard rest.first == ",", formats.contains(String(rest.dropFirst())) else { return nil }
    return String(rest.dropFirst())
  }

  /// `FILE=PATH,FORMAT=raw` in either order, values bare or quoted.
  static func named(_ text: Substring, device: String) throws(AudioError) -> ALSAFileSink {
    var rest = text
    var path: String?
    var format: String?
    while !rest.isEmpty {
      guard let equals = rest.firstIndex(of: "=") else { throw unreadable(device) }
      let key = rest[..<equals]
      rest = rest[rest.index(after: equals)...]
      let value: String
      if let first = rest.first, first == "'" || first == "\"" {
        guard let (text, after) = quoted(rest) else { throw unreadable(device) }
        value = text
        rest = after
      } else {
        let end = rest.firstIndex(of: ",") ?? rest.endIndex
        value = String(rest[..<end])
        rest = rest[end...]
      }
      switch key {
      case "FILE" where path == nil: path = value
      case "FORMAT" where format == nil && formats.contains(value): format = value
      default: throw unreadable(device)
      }
      if rest.first == "," { rest = rest.dropFirst() } else if !rest.isEmpty { throw unreadable(device) }
    }
    guard let path else { throw unreadable(device) }
    return ALSAFileSink(path: RawPath(path), format: format ?? "raw")
  }

  static func unreadable(_ device: String) -> AudioError {
    AudioError(
      device: device, reason: .invalidRequest,
      message: "shelf cannot tell which file this writes: spell it file:PATH or file:'PATH',raw")
  }
}
