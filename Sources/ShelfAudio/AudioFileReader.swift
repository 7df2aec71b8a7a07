internal import CSndFile
public import ShelfCore

/// Streams interleaved samples out of an audio file through libsndfile, block by block.
///
/// Memory stays flat however long the file: callers hand in the buffer to fill. The reader owns
/// its libsndfile handle and closes it in `deinit` (or earlier with `close()`).
public final class AudioFileReader {
  /// The file being read.
  public let path: RawPath
  /// Rate, channels, length, format names.
  public let format: AudioStreamFormat
  /// The preferred buffer type for bit-exact output of this file's samples.
  public let naturalSampleType: PCMSampleType
  /// A defect that did not stop the file being read: a WAV whose data chunk declares more
  /// bytes than the file holds. `format` and `read` give the frames present.
  public let defect: AudioError?

  private var handle: OpaquePointer?
  /// The open file: libsndfile reads a duplicate of its descriptor, MP3 length and tags are
  /// read from it directly.
  private let file: RegularFile
  private var framesRead: Int64 = 0
  private let majorFormat: Int32
  /// libsndfile 1.2.0 lands MP3 seeks on the right frame but decodes the first frames after a
  /// seek differently: seek this much earlier and throw the difference away.
  private static let mp3SeekPreroll: Int64 = 16384

  /// Opens `path` for reading.
  ///
  /// Throws `AudioError` for a missing, unreadable, non-regular, empty or undecodable file.
  public convenience init(path: RawPath) throws(AudioError) {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw AudioError(path: path, reason: .missingFile, message: error.reason)
    }
    try self.init(file: file)
  }

  /// Reads a file already open, so that what is decoded is the file opened and checked, even
  /// if its path is replaced meanwhile (a catalogue scan of a hostile tree).
  ///
  /// Throws `AudioError` for an empty or undecodable file.
  public init(file: RegularFile) throws(AudioError) {
    self.path = file.path
    self.file = file
    guard file.status.size > 0 else {
      throw AudioError(path: path, reason: .emptyFile, message: "empty file")
    }
    let descriptor: Int32
    do {
      descriptor = try file.duplicateDescriptor()
    } catch {
      throw AudioError(path: path, reason: .missingFile, message: error.reason)
    }
    var info = SF_INFO()
    // libsndfile owns the duplicate: sf_close closes it, and so does a failed open.
    let opened: OpaquePointer
    switch SndFile.open(descriptor: descriptor, mode: Int32(SFM_READ), info: &info) {
    case .success(let handle): opened = handle
    case .failure(let failure): throw SndFile.openError(file: file, failure: failure)
    }
    handle = opened
    majorFormat = info.format & SndFile.typeMask
    let sub = info.format & SndFile.subMask
    var frames = info.frames
    if majorFormat == Int32(SF_FORMAT_MPEG) && frames <= 0 {
      // libsndfile 1.2.0 reports MP3s without a Xing/Info header as empty; count the frames.
      if let scanned = try? MP3Scanner.scan(file), scanned.frames > 0 { frames = scanned.frames }
    }
    guard info.channels > 0, info.samplerate > 0 else {
      sf_close(opened)
      handle = nil
      throw AudioError(
        path: path, reason: .damaged, message: "damaged audio file: no channels or sample rate")
    }
    format = AudioStreamFormat(
      sampleRate: Int(info.samplerate), channels: Int(info.channels), frames: frames,
      formatName: SndFile.name(ofFormat: majorFormat), encodingName: SndFile.name(ofFormat: sub),
      isLossless: !AudioFileReader.lossySubtypes.contains(sub), bitsPerSample: AudioFileReader.bits(sub))
    naturalSampleType = AudioFileReader.naturalType(sub)
    let major = info.format & SndFile.typeMask
    let isWAV = [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64].contains { Int32($0) == major }
    defect = isWAV ? (try? WAVDataChunk.find(in: file))??.truncation(of: file) : nil
  }

  deinit { if let handle { sf_close(handle) } }

  private static let lossySubtypes: Set<Int32> = [
    Int32(SF_FORMAT_VORBIS), Int32(SF_FORMAT_OPUS), Int32(SF_FORMAT_MPEG_LAYER_I),
    Int32(SF_FORMAT_MPEG_LAYER_II), Int32(SF_FORMAT_MPEG_LAYER_III), Int32(SF_FORMAT_GSM610),
    Int32(SF_FORMAT_IMA_ADPCM), Int32(SF_FORMAT_MS_ADPCM), Int32(SF_FORMAT_G721_32),
    Int32(SF_FORMAT_G723_24), Int32(SF_FORMAT_G723_40), Int32(SF_FORMAT_VOX_ADPCM),
  ]

  private static func naturalType(_ sub: Int32) -> PCMSampleType {
    switch sub {
    case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16),
      Int32(SF_FORMAT_ULAW), Int32(SF_FORMAT_ALAW), Int32(SF_FORMAT_GSM610),
      Int32(SF_FORMAT_IMA_ADPCM), Int32(SF_FORMAT_MS_ADPCM), Int32(SF_FORMAT_DWVW_12),
      Int32(SF_FORMAT_DWVW_16):
      return .int16
    case Int32(SF_FORMAT_PCM_24), Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_DWVW_24):
      return .int32
    default:
      return .float32
    }
  }

  private static func bits(_ sub: Int32) -> Int? {
    switch sub {
    case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): return 8
    case Int32(SF_FORMAT_PCM_16): return 16
    case Int32(SF_FORMAT_PCM_24): return 24
    case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT): return 32
    case Int32(SF_FORMAT_DOUBLE): return 64
    default: return nil
    }
  }

  /// The position of the next frame `read` returns.
  public var position: Int64 { framesRead }

  /// Reads up to `frames` interleaved frames of `type` into `buffer`; returns how many were
  /// read, 0 at the end of the file.
  ///
  /// Throws `.damaged` when the stream fails part way, or ends well before its declared length.
  public func read(into buffer: UnsafeMutableRawPointer, frames: Int, as type: PCMSampleType)
    throws(AudioError) -> Int
  {
    guard let handle else { return 0 }
    let count: sf_count_t
    switch type {
    case .int16:
      count = sf_readf_short(handle, buffer.assumingMemoryBound(to: Int16.self), sf_count_t(frames))
    case .int32: count = sf_readf_int(handle, buffer.assumingMemoryBound(to: Int32.self), sf_count_t(frames))
    case .float32:
      count = sf_readf_float(handle, buffer.assumingMemoryBound(to: Float.self), sf_count_t(frames))
    }
    if count > 0 {
      framesRead += Int64(count)
      return Int(count)
    }
    let code = sf_error(handle)
    if code != 0 {
      throw AudioError(
        path: path, reason: .damaged, message: "damaged audio file: \(SndFile.message(handle))")
    }
    // A lossless stream that stops short of its declared length was cut off. (Lossy streams'
    // declared lengths are estimates, so only a big shortfall counts for them.)
    let declared = format.frames
    let slack: Int64 = format.isLossless ? 0 : Int64(format.sampleRate)
    if declared > 0 && framesRead + slack < declared && majorFormat != Int32(SF_FORMAT_MPEG) {
      throw AudioError(
        path: path, reason: .damaged,
        message: "truncated audio file: \(framesRead) of \(declared) frames decoded")
    }
    return 0
  }

  /// Moves to `frame` (clamped to the stream), so that the next `read` starts there.
  public func seek(toFrame frame: Int64) throws(AudioError) {
    guard let handle else { return }
    var target = max(0, frame)
    if format.frames > 0 { target = min(target, format.frames) }
    if majorFormat == Int32(SF_FORMAT_MPEG) {
      let early = max(0, target - AudioFileReader.mp3SeekPreroll)
      guard sf_seek(handle, early, SEEK_SET) >= 0 else {
        throw AudioError(path: path, reason: .damaged, message: "cannot seek: \(SndFile.message(handle))")
      }
      var discard = target - early
      var scratch = [Float](repeating: 0, count: 1024 * format.channels)
      while discard > 0 {
        let n = scratch.withUnsafeMutableBufferPointer {
          sf_readf_float(handle, $0.baseAddress, sf_count_t(min(1024, discard)))
        }
        if n <= 0 { break }
        discard -= Int64(n)
      }
      framesRead = target - discard
      return
    }
    let landed = sf_seek(handle, target, SEEK_SET)
    guard landed >= 0 else {
      throw AudioError(path: path, reason: .damaged, message: "cannot seek: \(SndFile.message(handle))")
    }
    framesRead = Int64(landed)
  }

  /// The file's tags (title, artist, …) as libsndfile (or, for MP3, the ID3 tag) reports them,
  /// with the ReplayGain values libsndfile does not read: a FLAC or Ogg file's Vorbis comments
  /// (`REPLAYGAIN_*`, Opus `R128_*_GAIN`), an MP3's ID3v2 TXXX frames, else its APEv2 tag.
  public var tags: AudioTags {
    guard let handle else { return AudioTags() }
    if majorFormat == Int32(SF_FORMAT_MPEG) {
      if let tags = try? ID3Reader.read(file), !tags.isEmpty {
        return MediaFileInfo.withAPEReplayGain(tags, file)
      }
    }
    var tags = AudioTags(sndfile: handle)
    switch majorFormat {
    case Int32(SF_FORMAT_FLAC), Int32(SF_FORMAT_OGG):
      if let comments = try? VorbisComments.read(file) {
        let found = FFmpegTags(entries: comments)
        tags.replayGain = ReplayGain.fromTags { found[$0].flatMap(AudioTags.clean) }
      }
    case Int32(SF_FORMAT_MPEG):
      tags = MediaFileInfo.withAPEReplayGain(tags, file)
    default: break
    }
    return tags
  }

  /// Closes the file now rather than at `deinit`.
  public func close() {
    if let handle { sf_close(handle) }
    handle = nil
  }
}

/// The shape of an audio stream: rate, channels, length and format names.
public struct AudioStreamFormat: Sendable, Equatable {
  /// Frames per second.
  public var sampleRate: Int
  /// Interleaved channels per frame.
  public var channels: Int
  /// Frames in the stream (an estimate for some lossy files; 0 when unknown).
  public var frames: Int64
  /// libsndfile's name of the container, e.g. `WAV (Microsoft)`, `FLAC (Free Lossless Audio Codec)`.
  public var formatName: String
  /// libsndfile's name of the encoding, e.g. `Signed 16 bit PCM`, `Vorbis`.
  public var encodingName: String
  /// Whether the encoding is lossless.
  public var isLossless: Bool
  /// Bits per sample for PCM encodings.
  public var bitsPerSample: Int?

  /// The length in seconds.
  public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// A sample type that can be read from and written to files in bulk.
public protocol AudioSample: Sendable, Equatable {
  /// The buffer type this Swift type represents.
  static var sampleType: PCMSampleType { get }
  /// Zero (silence).
  static var zero: Self { get }
}

extension Int16: AudioSample {
  public static var sampleType: PCMSampleType { .int16 }
}
extension Int32: AudioSample {
  public static var sampleType: PCMSampleType { .int32 }
}
extension Float: AudioSample {
  public static var sampleType: PCMSampleType { .float32 }
}
