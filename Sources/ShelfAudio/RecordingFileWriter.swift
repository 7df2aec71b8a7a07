/// A file a `Recorder` writes into, block by block: libsndfile's `AudioFileWriter` (WAV, FLAC,
/// Ogg, CAF…) or FFmpeg's `M4AFileWriter` (AAC or ALAC in MP4).
public protocol RecordingFileWriter: AnyObject {
  /// The sample format stored in the file.
  var storedFormat: SampleFormat { get }
  /// Frames accepted so far.
  var framesWritten: Int64 { get }
  /// The size of the file on disk now.
  var bytesOnDisk: Int64 { get }
  /// Appends `frames` interleaved frames of `type` from `buffer`; throws `.writeFailed` (disk
  /// full…), after which `close()` still finalises what was written.
  func write(_ buffer: UnsafeRawPointer, frames: Int, as type: PCMSampleType) throws(AudioError)
  /// Finalises the file and closes it.
  func close() throws(AudioError)
}

extension AudioFileWriter: RecordingFileWriter {}
