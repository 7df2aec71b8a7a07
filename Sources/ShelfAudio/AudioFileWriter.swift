internal import CSndFile
public import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes interleaved samples to an audio file through libsndfile, block by block.
///
/// WAV is written as RF64 with automatic downgrade: a plain WAV unless it passes 4 GiB. With
/// `keepHeaderCurrent` the header is rewritten after every block, so that a file whose writer is
/// killed still opens with everything written so far.
public final class AudioFileWriter {
  /// The file being written.
  public let path: RawPath
  /// The container being written.
  public let container: AudioContainer
  /// The sample format stored in the file.
  public let storedFormat: SampleFormat
  /// Frames per second.
  public let sampleRate: Int
  /// Channels per frame.
  public let channels: Int
  /// Frames written so far.
  public private(set) var framesWritten: Int64 = 0

  private var handle: OpaquePointer?
  private var descriptor: Int32
  /// libsndfile's Vorbis encoder can crash on one very large write; feed it in blocks.
  private static let maximumBlock = 4096

  /// Creates `path` and prepares to write `channels` × `sampleRate` audio in `container`.
  ///
  /// Refuses an existing file unless `overwrite`. `codec` picks ALAC rather than PCM in CAF.
  /// Throws `AudioError` when the file cannot be created or the container does not support
  /// the rate, channels or sample format.
  public init(
    path: RawPath, container: AudioContainer, sampleFormat: SampleFormat, sampleRate: Int,
    channels: Int, codec: RecordingCodec? = nil, overwrite: Bool = false, keepHeaderCurrent: Bool = true,
    tags: AudioTags = AudioTags()
  ) throws(AudioError) {
    self.path = path
    self.container = container
    self.storedFormat = container.storedFormat(for: sampleFormat, codec: codec)
    self.sampleRate = sampleRate
    self.channels = channels
    var flags = O_RDWR | O_CREAT | O_CLOEXEC
    flags |= overwrite ? O_TRUNC : O_EXCL
    let fd = path.withCString { open($0, flags, 0o644) }
    guard fd >= 0 else {
      let code = errno
      if code == EEXIST {
        throw AudioError(path: path, reason: .exists, message: "file exists")
      }
      throw AudioError(
        path: path, reason: .cannotCreate,
        message: "cannot create: \(String(cString: strerror(code)).lowercased())")
    }
    descriptor = fd
    var info = SF_INFO()
    info.samplerate = Int32(sampleRate)
    info.channels = Int32(channels)
    info.format = SndFile.formatCode(container, sampleFormat, codec: codec)
    guard sf_format_check(&info) != 0 else {
      Glibc.close(fd)
      descriptor = -1  // deinit runs for a class whose init throws: do not close twice
      _ = path.withCString { unlink($0) }
      throw AudioError(
        path: path, reason: .unsupported,
        message:
          "\(container.rawValue.uppercased()) cannot hold \(channels) channel(s) at \(sampleRate) Hz as \(storedFormat.rawValue)"
      )
    }
    // sf_open_fd closes the descriptor it is given when it fails (libsndfile 1.2.0): give it a
    // duplicate and keep ours for size checks.
    let given = fcntl(fd, F_DUPFD_CLOEXEC, 0)
    let result =
      given >= 0
      ? SndFile.open(descriptor: given, mode: Int32(SFM_WRITE), info: &info)
      : .failure(SndFile.OpenFailure(code: 0, message: String(cString: strerror(errno))))
    let opened: OpaquePointer
    switch result {
    case .success(let handle): opened = handle
    case .failure(let failure):
      Glibc.close(fd)
      descriptor = -1  // deinit runs for a class whose init throws: do not close twice
      _ = path.withCString { unlink($0) }
      throw AudioError(
        path: path, reason: .unsupported,
        message: "cannot write \(container.rawValue.uppercased()): \(failure.message)")
    }
    handle = opened
    if container == .wav {
      sf_command(opened, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
    }
    for (kind, value) in [
      (SF_STR_TITLE, tags.title), (SF_STR_ARTIST, tags.artist), (SF_STR_ALBUM, tags.album),
      (SF_STR_DATE, tags.date), (SF_STR_TRACKNUMBER, tags.track), (SF_STR_GENRE, tags.genre),
      (SF_STR_COMMENT, tags.comment),
    ] {
      if let value { sf_set_string(opened, Int32(kind), value) }
    }
    // Only headers with a length field can be kept current; libsndfile's Ogg and MPEG writers
    // fail when asked to.
    let hasLengthHeader: Bool
    switch container {
    case .wav, .aiff, .w64, .au: hasLengthHeader = true
    case .caf: hasLengthHeader = codec != .alac
    case .flac, .ogg, .opus, .mp3, .m4a: hasLengthHeader = false
    }
    if keepHeaderCurrent && hasLengthHeader {
      sf_command(opened, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
    }
  }

  deinit {
    if let handle { sf_close(handle) }
    if descriptor >= 0 { Glibc.close(descriptor) }
  }

  /// The size of the file on disk now.
  public var bytesOnDisk: Int64 {
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0 else { return 0 }
    return Int64(status.st_size)
  }

  /// Appends `frames` interleaved frames of `type` from `buffer`.
  ///
  /// Throws `.writeFailed` (disk full, file too large, I/O error); the frames written before the
  /// failure stay in the file, which `close()` still finalises.
  public func write(_ buffer: UnsafeRawPointer, frames: Int, as type: PCMSampleType) throws(AudioError) {
    guard let handle else { return }
    var done = 0
    while done < frames {
      let count = min(AudioFileWriter.maximumBlock, frames - done)
      let offset = done * channels * type.byteWidth
      let start = buffer + offset
      let written: sf_count_t
      switch type {
      case .int16:
        written = sf_writef_short(handle, start.assumingMemoryBound(to: Int16.self), sf_count_t(count))
      case .int32:
        written = sf_writef_int(handle, start.assumingMemoryBound(to: Int32.self), sf_count_t(count))
      case .float32:
        written = sf_writef_float(handle, start.assumingMemoryBound(to: Float.self), sf_count_t(count))
      }
      if written > 0 { framesWritten += Int64(written) }
      if written < count {
        throw AudioError(
          path: path, reason: .writeFailed, message: "write failed: \(SndFile.message(handle))")
      }
      done += count
    }
  }

  /// Appends interleaved samples (for tests and small signals).
  public func write<T: AudioSample>(_ samples: [T]) throws(AudioError) {
    let result = samples.withUnsafeBytes { raw -> Result<Void, AudioError> in
      do throws(AudioError) {
        return .success(try write(raw.baseAddress!, frames: samples.count / channels, as: T.sampleType))
      } catch { return .failure(error) }
    }
    try result.get()
  }

  /// Finalises the header and closes the file.
  public func close() throws(AudioError) {
    guard let handle else { return }
    self.handle = nil
    let code = sf_close(handle)
    let closed = Glibc.close(descriptor)
    descriptor = -1
    if code != 0 {
      throw AudioError(
        path: path, reason: .writeFailed,
        message: "cannot finish the file: \(String(cString: sf_error_number(code)))")
    }
    if closed != 0 {
      throw AudioError(
        path: path, reason: .writeFailed,
        message: "cannot close: \(String(cString: strerror(errno)).lowercased())")
    }
  }
}
