internal import CSndFile
import ShelfCore
import Synchronization

/// libsndfile format codes and the one checking helper that turns its failures into `AudioError`.
enum SndFile {
  static let typeMask = Int32(SF_FORMAT_TYPEMASK)
  static let subMask = Int32(SF_FORMAT_SUBMASK)

  /// The libsndfile major|subtype code for writing `container` with samples of `format`.
  static func formatCode(_ container: AudioContainer, _ format: SampleFormat, codec: RecordingCodec? = nil)
    -> Int32
  {
    let stored = container.storedFormat(for: format, codec: codec)
    let pcm: Int32
    switch (stored, codec) {
    case (.s16, .alac): pcm = Int32(SF_FORMAT_ALAC_16)
    case (.s24, .alac): pcm = Int32(SF_FORMAT_ALAC_24)
    case (_, .alac): pcm = Int32(SF_FORMAT_ALAC_32)
    case (.s16, _): pcm = Int32(SF_FORMAT_PCM_16)
    case (.s24, _): pcm = Int32(SF_FORMAT_PCM_24)
    case (.s32, _): pcm = Int32(SF_FORMAT_PCM_32)
    case (.float, _): pcm = Int32(SF_FORMAT_FLOAT)
    }
    switch container {
    case .wav: return Int32(SF_FORMAT_RF64) | pcm
    case .aiff: return Int32(SF_FORMAT_AIFF) | pcm
    case .flac: return Int32(SF_FORMAT_FLAC) | pcm
    case .caf: return Int32(SF_FORMAT_CAF) | pcm
    case .w64: return Int32(SF_FORMAT_W64) | pcm
    case .au: return Int32(SF_FORMAT_AU) | pcm
    case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
    case .opus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
    case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
    case .m4a: return 0  // written by M4AFileWriter through FFmpeg, never by libsndfile
    }
  }

  /// libsndfile's own name for a major format or subtype code, e.g. `WAV (Microsoft)`.
  static func name(ofFormat code: Int32) -> String {
    var info = SF_FORMAT_INFO()
    info.format = code
    guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
      let name = info.name
    else { return "unknown" }
    return String(cString: name)
  }

  /// The message libsndfile gives for the last failure on `handle` (or of the last open).
  static func message(_ handle: OpaquePointer?) -> String {
    guard let text = sf_strerror(handle) else { return "unknown libsndfile error" }
    var message = String(cString: text)
    // libsndfile's messages carry noise: "System error : No such file..." / trailing dots.
    for prefix in ["System error : ", "Error : ", "error : "] where message.hasPrefix(prefix) {
      message.removeFirst(prefix.count)
    }
    while message.hasSuffix(".") || message.hasSuffix("\n") { message.removeLast() }
    if let first = message.first { message = first.lowercased() + message.dropFirst() }
    return message
  }

  /// Why an open failed: libsndfile's error code and message.
  struct OpenFailure: Error {
    var code: Int32
    var message: String
  }

  /// libsndfile reports why an open failed only through process-wide state (`sf_error(NULL)`,
  /// `sf_strerror(NULL)`) that an open on another thread can overwrite before it is read:
  /// opens, and the reading of that state after a failure, take turns.
  private static let openTurn = Mutex(())

  /// `sf_open_fd` (which owns `descriptor` from then on), in turn with the process's other opens.
  static func open(descriptor: Int32, mode: Int32, info: inout SF_INFO) -> Result<OpaquePointer, OpenFailure>
  {
    openTurn.withLock { _ in
      guard let opened = sf_open_fd(descriptor, mode, &info, Int32(SF_TRUE)) else {
        return .failure(OpenFailure(code: sf_error(nil), message: message(nil)))
      }
      return .success(opened)
    }
  }

  /// Classifies a failed open of `file` for reading.
  static func openError(file: RegularFile, failure: OpenFailure) -> AudioError {
    let path = file.path
    let text = failure.message
    switch Int(failure.code) {
    case Int(SF_ERR_UNRECOGNISED_FORMAT):
      return AudioError(
        path: path, reason: .unrecognised, message: sniffedNotAudio(file) ?? "not a recognised audio file")
    case Int(SF_ERR_MALFORMED_FILE):
      return AudioError(path: path, reason: .damaged, message: "damaged audio file: \(text)")
    case Int(SF_ERR_UNSUPPORTED_ENCODING):
      return AudioError(path: path, reason: .unsupported, message: "unsupported audio encoding")
    default:
      if text.contains("no such file") {
        return AudioError(path: path, reason: .missingFile, message: "no such file or directory")
      }
      if text.contains("unrecognised") || text.contains("unknown format") {
        return AudioError(
          path: path, reason: .unrecognised, message: sniffedNotAudio(file) ?? "not a recognised audio file")
      }
      return AudioError(path: path, reason: .damaged, message: text)
    }
  }

  /// Names what a non-audio file really is, from its first bytes, for a helpful message.
  static func sniffedNotAudio(_ file: RegularFile) -> String? {
    guard let head = try? file.read(count: 16, at: 0) else { return nil }
    let kinds: [([UInt8], String)] = [
      ([0x89, 0x50, 0x4E, 0x47], "a PNG image"), ([0xFF, 0xD8, 0xFF], "a JPEG image"),
      (Array("GIF8".utf8), "a GIF image"), (Array("%PDF".utf8), "a PDF document"),
      ([0x50, 0x4B, 0x03, 0x04], "a ZIP archive"), (Array("SQLite format 3".utf8), "an SQLite database"),
      ([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"),
    ]
    for (magic, kind) in kinds where head.starts(with: magic) {
      return "not an audio file (it is \(kind))"
    }
    return nil
  }
}
