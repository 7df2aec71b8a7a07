public import ShelfCore

/// A source of decoded, interleaved samples from one audio file (or the sound of a video), block
/// by block, with sample-accurate seeking.
///
/// Two implementations: libsndfile (`AudioFileReader`) for the formats it decodes bit-exactly
/// (WAV, AIFF, FLAC, Ogg, MP3, CAF with PCM, …) and FFmpeg (`FFmpegDecoder`) for everything else
/// (MP4/M4A/MOV, AMR, APE, WavPack, WMA, AC-3, …). `AudioDecoders.open` chooses by content.
public protocol AudioDecoder: AnyObject {
  /// The file being decoded.
  var path: RawPath { get }
  /// Rate, channels, length, format names of the decoded stream.
  var format: AudioStreamFormat { get }
  /// The buffer type that carries this stream's samples without conversion.
  var naturalSampleType: PCMSampleType { get }
  /// The stream position (in frames) of the next frame `read` returns.
  var position: Int64 { get }
  /// The file's tags.
  var tags: AudioTags { get }
  /// Reads up to `frames` interleaved frames of `type` into `buffer`; returns how many were
  /// read, 0 at the end of the stream. Throws `.damaged` when the stream fails part way.
  func read(into buffer: UnsafeMutableRawPointer, frames: Int, as type: PCMSampleType) throws(AudioError)
    -> Int
  /// Moves to `frame` (clamped to the stream), so that the next `read` starts exactly there.
  func seek(toFrame frame: Int64) throws(AudioError)
  /// Releases the file and the decoder now rather than at `deinit`.
  func close()
}

extension AudioFileReader: AudioDecoder {}

extension AudioDecoder {
  /// Reads the rest of the stream as interleaved samples of `T` (for tests and small files).
  public func readAll<T: AudioSample>(_: T.Type = T.self) throws(AudioError) -> [T] {
    var samples: [T] = []
    let block = 4096
    let channels = format.channels
    var buffer = [T](repeating: T.zero, count: block * channels)
    while true {
      let result = buffer.withUnsafeMutableBytes { raw -> Result<Int, AudioError> in
        do throws(AudioError) {
          return .success(try read(into: raw.baseAddress!, frames: block, as: T.sampleType))
        } catch { return .failure(error) }
      }
      let got = try result.get()
      if got == 0 { break }
      samples.append(contentsOf: buffer[0..<(got * channels)])
    }
    return samples
  }
}

/// Opens the right decoder for a file's content, whatever its extension says.
public enum AudioDecoders {
  /// Opens `path` with libsndfile when libsndfile recognises the content, else with FFmpeg.
  ///
  /// Throws `AudioError`: missing or empty file, content neither library decodes
  /// (`.unrecognised`), a container without an audio stream (`no audio track`), damage.
  public static func open(path: RawPath) throws(AudioError) -> any AudioDecoder {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw AudioError(path: path, reason: .missingFile, message: error.reason)
    }
    return try open(file)
  }

  /// Opens a file already open (so that what is decoded is the file checked).
  public static func open(_ file: RegularFile) throws(AudioError) -> any AudioDecoder {
    do {
      return try AudioFileReader(file: file)
    } catch  where error.reason != .missingFile && error.reason != .emptyFile {
      // Content that is plainly something else (a PNG, a PDF…) keeps libsndfile's naming of it.
      if SndFile.sniffedNotAudio(file) != nil { throw error }
      // libsndfile does not know it, or knows the container but not the codec inside (Speex
      // in Ogg, AAC in CAF): FFmpeg's turn.
      do {
        return try FFmpegDecoder(file: file)
      } catch let ffmpegError {
        switch ffmpegError.reason {
        case .noAudioTrack: throw ffmpegError
        // A file only FFmpeg recognised: its reason (no moov, cut off, unknown codec) is the one.
        case .damaged where error.reason == .unrecognised: throw ffmpegError
        case .unsupported where error.reason == .unrecognised: throw ffmpegError
        default: throw error
        }
      }
    }
  }
}
