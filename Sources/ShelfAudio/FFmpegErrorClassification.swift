internal import CFFmpeg
internal import CFFmpegSupport
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// How a failed FFmpeg call is judged: I/O (74) only when shelf's own reader saw a system
/// call fail, bad input (65) for everything FFmpeg says about the content.
extension FFmpegError {
  /// What the I/O layer under a call saw: the error of a system call that really failed, and
  /// whether a read met the end of the file.
  struct ReadObservation: Sendable, Equatable {
    /// `errno` of a failed `pread`, 0 when every read succeeded.
    var systemError: Int32 = 0
    /// True when a read returned nothing: the end of the file.
    var reachedEnd = false
  }

  /// The one mapping from an FFmpeg return code to a failure kind and a reason.
  ///
  /// Only the I/O layer shelf gives FFmpeg talks to the system: an input/output error is one
  /// that its `pread` returned (`reading.systemError`: EIO, a device gone), and is I/O (74).
  /// Every other code comes from FFmpeg's own judgment of the content, whatever errno it
  /// borrows, and is bad input (65):
  /// - `AVERROR(ENOMEM)`: a header asked for a block beyond the cap on what a file may make
  ///   FFmpeg allocate (`FFmpegLibrary.maximumAllocation`), so the file is corrupt — taking
  ///   FFmpeg's "cannot allocate memory" at its word would blame the machine;
  /// - `AVERROR(EIO)` and `AVERROR_EOF` with no failed read: a demuxer's read came up short
  ///   (FLAC's metadata blocks, a chunk longer than the file), so the file is truncated; when no
  ///   read met the end either, the content is corrupt;
  /// - any other errno-like code: demuxers return header fields read as negative numbers as
  ///   they are (an AIFF frame count of 0xFFFFFF88 is "error -120", "is a named type file"), so
  ///   `av_strerror`'s words would mislead: the header holds an impossible value;
  /// - FFmpeg's own codes (`AVERROR_INVALIDDATA`, …): `av_strerror`'s text and the log line.
  static func classify(_ code: Int32, call: String, logLine: String, reading: ReadObservation?)
    -> (FailureKind, String)
  {
    func withLog(_ reason: String) -> String { logLine.isEmpty ? reason : "\(reason): \(logLine)" }
    if let reading, reading.systemError != 0 {
      let system = reading.systemError
      let failure: FailureKind =
        [ENOENT, ENOTDIR, EACCES, EPERM, ELOOP, ENAMETOOLONG].contains(system) ? .missingInput : .io
      return (failure, text(of: -system))
    }
    if code == shelf_averror_eof {
      return (.badInput, "truncated: a header or packet runs past the end of the file")
    }
    // Int32.min (a header field of 0x80000000 returned as it is) has no positive counterpart,
    // and av_strerror names only FFmpeg's own codes among the large ones.
    guard code > -4096 else {
      var buffer = [CChar](repeating: 0, count: 8)
      guard av_strerror(code, &buffer, buffer.count) >= 0 else {
        return (.badInput, withLog("corrupt: a header holds an impossible value"))
      }
      return (.badInput, withLog(text(of: code)))
    }
    switch -code {
    case ENOMEM:
      return (.badInput, "corrupt: a header asks for more memory than the file can need")
    case EIO:
      return reading?.reachedEnd ?? false
        ? (.badInput, "truncated: a header or packet runs past the end of the file")
        : (.badInput, withLog("corrupt: \(call) could not read the file's structure"))
    case EINVAL, ENOSYS, ERANGE, EDOM, EILSEQ, ENODATA:
      return (.badInput, withLog(text(of: code)))
    default:
      return (.badInput, withLog("corrupt: a header holds an impossible value"))
    }
  }
}
