/// The one place that names a container for people (info, ls, show and the catalogue's
/// `format` field): FFmpeg's demuxer names list every format a demuxer reads
/// (`mov,mp4,m4a,3gp,3g2,mj2`), which says nothing about the file at hand.
public enum MediaContainer {
  /// shelf's short name of a container, from FFmpeg's demuxer name, the codec, the file's first
  /// bytes and the MIME type its content was recognised as: `wav` (`rf64` for RF64),
  /// `aiff`, `flac`, `ogg-vorbis`/`ogg-opus`/`ogg-flac`/`ogg-speex`, `mp3`, `mp4` (`mov`,
  /// `3gp` for video), `caf`, `amr`, `ape`, `wavpack`, `musepack`, `asf`, `ac3`, `eac3`, `dsf`,
  /// `matroska`, `webm`, `avi`, `au`, `w64`; `adif` and `shn` from shelf's own readers.
  public static func name(_ ffmpegName: String, codec: String, prefix: [UInt8], mime: String = "") -> String {
    switch ffmpegName {
    case "wav":
      return prefix.starts(with: Array("RF64".utf8)) || prefix.starts(with: Array("BW64".utf8))
        ? "rf64" : "wav"
    case "ogg":
      switch codec {
      case "opus": return "ogg-opus"
      case "flac": return "ogg-flac"
      case "speex": return "ogg-speex"
      case "theora": return "ogg"
      default: return mime.hasPrefix("video/") ? "ogg" : "ogg-vorbis"
      }
    case "mov,mp4,m4a,3gp,3g2,mj2":
      switch mime {
      case "video/quicktime": return "mov"
      case "video/3gpp", "audio/3gpp": return "3gp"
      default: return "mp4"
      }
    case "matroska,webm": return mime.hasSuffix("webm") ? "webm" : "matroska"
    case "wv": return "wavpack"
    case "mpc", "mpc8": return "musepack"
    case "amr", "amrnb", "amrwb": return "amr"
    case "iff": return "iff"
    default: return ffmpegName
    }
  }
}
