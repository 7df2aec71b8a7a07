public import ShelfCore

/// What a video file holds: the picture's shape and codec, and its sound. The catalogue stores
/// it as it is; its tags read through (`info.title`) to `tags`.
@dynamicMemberLookup
public struct VideoFileInfo: Sendable, Equatable {
  /// Length in seconds.
  public var duration: Double
  public var width: Int
  public var height: Int
  /// FFmpeg's name of the video codec: `h264`, `hevc`, `mpeg4`, `vp9`, …
  public var codec: String
  /// Pictures per second.
  public var frameRate: Double?
  /// Degrees to turn the picture clockwise for display (0, 90, 180, 270).
  public var rotation: Int
  /// The sound's codec, rate and channels; nil when the video is silent.
  public var audioCodec: String?
  public var sampleRate: Int?
  public var channels: Int?
  /// Overall bits per second.
  public var bitrate: Int?
  /// When it was filmed (ISO-8601), from Apple's `com.apple.quicktime.creationdate` or the
  /// container's creation time.
  public var taken: String?
  /// Apple's content identifier (`com.apple.quicktime.content.identifier`), which the movie
  /// of a Live Photo shares with its still.
  public var contentIdentifier: String?
  /// Title and the other tags a video may carry.
  public var tags: AudioTags
  /// FFmpeg's name of the container, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `avi`.
  public var formatName: String
  /// shelf's short name of the container for people (`mp4`, `mov`, `3gp`, `matroska`, `webm`,
  /// …; see `MediaContainer.name`): empty until whoever recognised the content names it.
  public var container: String = ""

  /// Creates the facts of a video; what a reader does not know keeps its default.
  public init(
    duration: Double, width: Int, height: Int, codec: String, frameRate: Double? = nil, rotation: Int = 0,
    audioCodec: String? = nil, sampleRate: Int? = nil, channels: Int? = nil, bitrate: Int? = nil,
    taken: String? = nil, contentIdentifier: String? = nil, tags: AudioTags = AudioTags(),
    formatName: String = "", container: String = ""
  ) {
    self.duration = duration
    self.width = width
    self.height = height
    self.codec = codec
    self.frameRate = frameRate
    self.rotation = rotation
    self.audioCodec = audioCodec
    self.sampleRate = sampleRate
    self.channels = channels
    self.bitrate = bitrate
    self.taken = taken
    self.contentIdentifier = contentIdentifier
    self.tags = tags
    self.formatName = formatName
    self.container = container
  }

  /// One tag, e.g. `info.title`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<AudioTags, Value>) -> Value {
    tags[keyPath: keyPath]
  }
}

/// The facts of a media file, read by content through FFmpeg (plus shelf's own MP3 frame count
/// and ID3 reader): audio, or a video when the file has a real video stream.
public enum MediaFileInfo: Sendable, Equatable {
  case audio(AudioFileInfo)
  case video(VideoFileInfo)

  /// Reads the facts of an open file (through a duplicate of its descriptor).
  ///
  /// Throws `FFmpegError` when FFmpeg cannot open the file, or it has neither audio nor video.
  /// A file cut short is not an error: its facts cover what is present and say why
  /// (`AudioFileInfo.defect`).
  ///
  /// `mime` is the type the content was recognised as (`audio/mpeg`, `audio/mp4`, …), when the
  /// caller sniffed it: FFmpeg then skips its own recognition, and for MP3 and AMR, whose frames
  /// shelf counts itself, its stream analysis too.
  ///
  /// An MP3 recognised by content is read without FFmpeg when shelf's own readers give every
  /// fact (`mp3Info`): FFmpeg's libraries are then not even loaded.
  public static func read(_ file: RegularFile, mime: String? = nil) throws(FFmpegError) -> MediaFileInfo {
    switch ownReader(file, mime: mime) {
    case .adif: return .audio(try ADIFHeader.info(file))
    case .shorten: return .audio(try ShortenHeader.info(file))
    case nil: break
    }
    let demuxer = mime.flatMap { demuxers[$0] }
    if demuxer == "mp3", let info = mp3Info(file) { return .audio(info) }
    return try readThroughFFmpeg(file, demuxer: demuxer)
  }

  /// The formats whose facts shelf reads from their headers alone, FFmpeg 5.1 reading none of
  /// them (ADIF) or no length (Shorten).
  enum OwnReader { case adif, shorten }

  /// Which of shelf's own readers reads `file`: by its signature (after a leading ID3v2 tag)
  /// when the content was recognised as AAC or Shorten, or not recognised at all.
  static func ownReader(_ file: RegularFile, mime: String?) -> OwnReader? {
    guard mime == nil || mime == "audio/aac" || mime == "audio/x-shorten",
      let head = try? file.read(count: 10, at: 0), head.count >= 4
    else { return nil }
    var signature = Array(head.prefix(4))
    if let size = ID3Reader.tagSize(head), let after = try? file.read(count: 4, at: Int64(size)) {
      signature = after
    }
    switch String(decoding: signature, as: UTF8.self) {
    case "ADIF": return .adif
    case "ajkg": return .shorten
    default: return nil
    }
  }

  /// The facts of an MP3 from shelf's frame scanner (rate, channels, exact frames, bit rate,
  /// layer) and ID3 reader (ID3v2 with its TXXX frames, else ID3v1, and cover art): everything
  /// FFmpeg's MP3 demuxer gave (it opens no decoder for them either, and reads no APEv2 tag
  /// in an MP3), without loading FFmpeg. Nil, for FFmpeg to read, when there are no frames (its
  /// error then names the file's problem).
  static func mp3Info(_ file: RegularFile) -> AudioFileInfo? {
    guard let scanned = try? MP3Scanner.scan(file), scanned.sampleRate > 0,
      scanned.channels > 0, let id3 = try? ID3Reader.found(in: file)
    else { return nil }
    let (codec, description) = mpegAudioCodecs[scanned.layer] ?? mpegAudioCodecs[3]!
    let seconds = Double(scanned.frames) / Double(scanned.sampleRate)
    return AudioFileInfo(
      duration: seconds, sampleRate: scanned.sampleRate, channels: scanned.channels, frames: scanned.frames,
      formatName: "mp3", encodingName: description, bitsPerSample: nil, isLossless: false,
      tags: withAPEReplayGain(id3.tags, file),
      codec: codec,
      bitrate: scanned.bitrate > 0
        ? scanned.bitrate : averageBitrate(size: file.status.size, seconds: seconds),
      hasArtwork: id3.hasPicture,
      defect: scanned.truncation.map { AudioError(path: file.path, reason: .damaged, message: $0) })
  }

  /// FFmpeg's codec name and description of each MPEG audio layer (`avcodec_get_name` and the
  /// codec descriptor's long name), so that an MP3 is described without loading FFmpeg.
  static let mpegAudioCodecs: [Int: (String, String)] = [
    1: ("mp1", "MP1 (MPEG audio layer 1)"), 2: ("mp2", "MP2 (MPEG audio layer 2)"),
    3: ("mp3", "MP3 (MPEG audio layer 3)"),
  ]

  /// The facts as FFmpeg's demuxer `demuxer` (nil: FFmpeg recognises the content) reads them.
  static func readThroughFFmpeg(_ file: RegularFile, demuxer: String?) throws(FFmpegError) -> MediaFileInfo {
    let input: FFmpegInput
    let probing: FFmpegInput.StreamProbing =
      demuxer == "mp3" || demuxer == "amr" ? .never : .whenHeadersAreIncomplete
    do {
      input = try FFmpegInput(file: file, probing: probing, demuxer: demuxer)
    } catch  where error.failure == .badInput && isOnlyAnID3Tag(file) {
      throw FFmpegError(
        path: file.path, call: error.call, code: error.code, message: "only an ID3 tag: no MPEG audio frames",
        failure: .badInput)
    }
    if let video = input.videoStream {
      return .video(videoInfo(input, video: video))
    }
    guard let audio = input.audioStream else {
      throw FFmpegError(
        path: file.path, call: "avformat_find_stream_info", code: -22, message: "no audio or video stream",
        failure: .badInput)
    }
    return .audio(try audioInfo(input, audio: audio, file: file))
  }

  /// True for an MP3 that holds an ID3v2 tag and no audio after it (FFmpeg's own message for
  /// it, about a failed seek, would not say so).
  static func isOnlyAnID3Tag(_ file: RegularFile) -> Bool {
    guard let head = try? file.read(count: 10, at: 0), ID3Reader.tagSize(head) != nil else { return false }
    do {
      return try MP3Scanner.scan(file) == nil
    } catch {
      return false
    }
  }

  private static func videoInfo(_ input: FFmpegInput, video: FFmpegStream) -> VideoFileInfo {
    let audio = input.audioStream
    // Without the container's length, the longest stream's: an Ogg film's sound may go on
    // after its picture ends; without any, what the picture's index spans.
    let duration =
      input.duration ?? input.streams.compactMap(\.duration).max()
      ?? input.indexedDuration(stream: video.index, frameRate: video.frameRate)
    return VideoFileInfo(
      duration: duration ?? 0, width: video.width ?? 0, height: video.height ?? 0,
      codec: video.codec, frameRate: video.frameRate, rotation: video.rotation, audioCodec: audio?.codec,
      sampleRate: audio?.sampleRate, channels: audio?.channels,
      bitrate: input.bitrate
        ?? averageBitrate(size: input.fileSize, seconds: duration),
      taken: takenDate(input.tags),
      contentIdentifier: input.tags["com.apple.quicktime.content.identifier"].flatMap {
        $0.isEmpty ? nil : $0
      },
      tags: TagMapping.tags(from: [input.tags], vorbisJoined: false),
      formatName: input.formatName)
  }

  /// FFmpeg's demuxer for each MIME type shelf recognises by content.
  static let demuxers: [String: String] = [
    "audio/mpeg": "mp3", "audio/mp4": "mov", "video/mp4": "mov", "video/quicktime": "mov",
    "video/x-m4v": "mov", "video/3gpp": "mov", "audio/flac": "flac", "audio/ogg": "ogg", "video/ogg": "ogg",
    "audio/wav": "wav", "audio/aiff": "aiff", "audio/amr": "amr", "audio/amr-wb": "amr",
    "audio/x-matroska": "matroska", "video/x-matroska": "matroska", "video/webm": "matroska",
    "audio/x-wavpack": "wv", "audio/x-ape": "ape", "audio/x-ms-wma": "asf", "audio/x-caf": "caf",
    "audio/x-dsf": "dsf", "audio/ac3": "ac3", "audio/eac3": "eac3", "audio/vnd.dts": "dts",
    "video/x-msvideo": "avi", "audio/x-dff": "iff", "audio/x-tak": "tak", "audio/x-tta": "tta",
    "video/vnd.rn-realvideo": "rm", "audio/vnd.rn-realaudio": "rm", "video/dv": "dv", "video/x-flv": "flv",
    "video/mp2t": "mpegts", "audio/x-mod": "libopenmpt", "audio/x-s3m": "libopenmpt",
    "audio/x-xm": "libopenmpt", "audio/x-it": "libopenmpt",
  ]

  /// The file's bits per second over its length, as FFmpeg estimates it when the headers do not
  /// say (container overhead included).
  static func averageBitrate(size: Int64, seconds: Double?) -> Int? {
    guard let seconds, seconds > 0 else { return nil }
    let bits = (Double(size) * 8 / seconds).rounded()
    // A length of a few nanoseconds (a lying header) would ask for more than an Int holds.
    guard bits.isFinite, bits < 0x1p62 else { return nil }
    return Int(bits)
  }

  /// The most frames a length may count (more than 90 years at 384 kHz): a declared length
  /// beyond it is a lying header (an RF64 `ds64` sample count or a last Ogg granule of
  /// 2^63 - 1), which FFmpeg reports as it is, and arithmetic on it would overflow.
  public static let frameLimit: Int64 = 1 << 50

  /// The frames `seconds` last at `rate`, rounded; nil when that is not finite, negative or
  /// beyond `frameLimit` (converting such a `Double` to `Int64` would trap).
  static func frameCount(seconds: Double, rate: Int) -> Int64? {
    let frames = (seconds * Double(rate)).rounded()
    guard frames.isFinite, frames >= 0, frames <= Double(frameLimit) else { return nil }
    return Int64(frames)
  }

  /// Apple's own creation date first (it keeps the local time zone), then the container's, in
  /// RFC 3339: QuickTime's `+0200` as `+02:00`, FFmpeg's `2024-05-01T12:00:00.000000Z` in whole
  /// seconds (what the container holds), AVI's `2024-05-01 14:30:00` with a `T` and no zone.
  static func takenDate(_ tags: FFmpegTags) -> String? {
    if let apple = tags["com.apple.quicktime.creationdate"], !apple.isEmpty {
      return Timestamp.normalized(apple)
    }
    guard let created = tags["creation_time"], !created.isEmpty else { return nil }
    return Timestamp.normalized(created)
  }

  private static func audioInfo(_ input: FFmpegInput, audio: FFmpegStream, file: RegularFile)
    throws(FFmpegError)
    -> AudioFileInfo
  {
    let path = file.path
    var rate = audio.sampleRate ?? 0
    var channels = audio.channels ?? 0
    let container = input.formatName
    var mp3: MP3Scanner.Result? = nil
    var amr: AMRScanner.Result? = nil
    if container == "mp3" {
      guard let scanned = try? MP3Scanner.scan(file) else {
        let message = isOnlyAnID3Tag(file) ? "only an ID3 tag: no MPEG audio frames" : "no MPEG audio frames"
        throw FFmpegError(path: path, call: "read", code: -22, message: message, failure: .badInput)
      }
      mp3 = scanned
      rate = scanned.sampleRate
      channels = scanned.channels
    } else if container == "amr" {
      guard let scanned = try? AMRScanner.scan(file), scanned.frames > 0 else {
        throw FFmpegError(path: path, call: "read", code: -22, message: "no AMR frames", failure: .badInput)
      }
      amr = scanned
      rate = scanned.sampleRate
      channels = 1
    }
    guard rate > 0, channels > 0 else {
      throw FFmpegError(
        path: path, call: "avformat_find_stream_info", code: -22,
        message: "damaged audio file: no channels or sample rate", failure: .badInput)
    }
    let isVorbisFamily = container == "ogg" || container == "flac"
    var tags = TagMapping.tags(from: [input.tags, audio.tags], vorbisJoined: isVorbisFamily)
    var artwork = input.hasAttachedPicture
    var frames: Int64
    var bitrate = audio.bitrate ?? input.bitrate
    var truncation: String? = nil
    if let scanned = mp3 {
      frames = scanned.frames
      truncation = scanned.truncation
      if scanned.bitrate > 0 { bitrate = scanned.bitrate }
    } else if let scanned = amr {
      frames = scanned.frames
      truncation = scanned.truncation
    } else if container == "wav", let chunk = try? WAVDataChunk.find(in: file),
      let defect = chunk.truncation(of: file), let bits = audio.bitsPerSample, audio.codec.hasPrefix("pcm_")
    {
      // FFmpeg takes a WAV's length from its data chunk's header; count what the file holds.
      let frameBytes = Int64(max(channels * ((bits + 7) / 8), 1))
      frames = max(0, file.status.size - chunk.offset) / frameBytes
      return AudioFileInfo(
        duration: Double(frames) / Double(rate), sampleRate: rate, channels: channels, frames: frames,
        formatName: container, encodingName: audio.codecDescription, bitsPerSample: bits,
        isLossless: audio.isLossless, tags: tags, codec: audio.codec, bitrate: bitrate, hasArtwork: artwork,
        defect: defect)
    } else if container == "caf", let table = try? IFFChunks.cafPacketTable(file) {
      // CAF's packet table counts the frames that are real (priming and remainder left out);
      // FFmpeg counts whole packets.
      frames = table.validFrames
    } else if container == "mpc8", let length = MusepackHeader.read(file) {
      frames = length.frames
    } else if input.lengthIsEstimated || (audio.duration == nil && input.duration == nil) {
      // A raw stream (AC-3, E-AC-3, DTS, ADTS AAC), or a container whose writer left its length
      // out (RealAudio from a pipe), declares none: count its packets.
      frames = try input.countedFrames(stream: audio.index, sampleRate: rate)
    } else if let declared = declaredFrames(input, audio: audio, rate: rate) {
      frames = declared
      if let present = input.presentDuration(stream: audio.index, fileSize: file.status.size),
        let presentFrames = frameCount(seconds: present, rate: rate)
      {
        if presentFrames < frames {
          truncation = "truncated: \(presentFrames) of \(frames) frames present"
          frames = presentFrames
        }
      }
    } else {
      // The length is unknown: the file's frames are not counted, and it is damaged.
      frames = 0
      let seconds = audio.duration ?? input.duration ?? .nan
      truncation = "corrupt: declared length of \(seconds) s is out of range"
    }
    if container == "ogg" && truncation == nil {
      truncation = OggLastPage.defect(file)
    }
    if let id3 = try? id3Tag(container: container, file: file) {
      tags = id3.tags.filled(from: tags)
      artwork = artwork || id3.hasPicture
    }
    if container == "mp3" { tags = withAPEReplayGain(tags, file) }
    if bitrate == nil {
      bitrate = averageBitrate(size: file.status.size, seconds: Double(frames) / Double(rate))
    }
    return AudioFileInfo(
      duration: Double(frames) / Double(rate), sampleRate: rate, channels: channels, frames: frames,
      formatName: container, encodingName: audio.codecDescription, bitsPerSample: audio.bitsPerSample,
      isLossless: audio.isLossless, tags: tags, codec: audio.codec, bitrate: bitrate, hasArtwork: artwork,
      defect: truncation.map { AudioError(path: path, reason: .damaged, message: $0) })
  }

  /// Samples per channel as decoding yields them: iTunes' gapless count (`iTunSMPB`), else
  /// the stream's duration (which FFmpeg takes from the MP4 edit list, FLAC's STREAMINFO, the
  /// last Ogg granule, WAV's data size) less an Opus pre-skip (Ogg, Matroska), else the container's.
  /// Nil when the length declared is beyond `frameLimit` (a lying header).
  static func declaredFrames(_ input: FFmpegInput, audio: FFmpegStream, rate: Int) -> Int64? {
    if let smpb = input.tags["iTunSMPB"] ?? audio.tags["iTunSMPB"], let count = gaplessCount(smpb),
      count <= frameLimit
    {
      return count
    }
    if let duration = audio.duration {
      guard var frames = frameCount(seconds: duration, rate: rate) else { return nil }
      if input.formatName == "ogg" || input.formatName == "matroska,webm" {
        frames -= Int64(audio.initialPadding)
      }
      return max(frames, 0)
    }
    return frameCount(seconds: input.duration ?? 0, rate: rate)
  }

  /// The original sample count of an `iTunSMPB` value (` 00000000 00000840 000001CA
  /// 00000000003F1A36 …`: zero, delay, padding, count in hex); nil when absent or zero.
  static func gaplessCount(_ value: String) -> Int64? {
    let fields = value.split(separator: " ")
    guard fields.count >= 4, let count = Int64(fields[3], radix: 16), count > 0 else { return nil }
    return count
  }

  /// `tags` with the ReplayGain of the file's APEv2 tag when they have none (MP3s tagged by
  /// mp3gain or foobar2000; FFmpeg's MP3 demuxer does not read APEv2).
  static func withAPEReplayGain(_ tags: AudioTags, _ file: RegularFile) -> AudioTags {
    guard tags.replayGain == nil, let items = try? APETag.read(file) else { return tags }
    var out = tags
    let found = FFmpegTags(entries: items)
    out.replayGain = ReplayGain.fromTags { found[$0].flatMap(AudioTags.clean) }
    return out
  }

  /// The ID3v2 tag of an MP3, or of the `ID3 ` chunk of an AIFF or WAV file.
  static func id3Tag(container: String, file: RegularFile) throws -> ID3Reader.Found? {
    switch container {
    case "mp3":
      return try ID3Reader.found(in: file)
    case "aiff", "wav":
      guard let bytes = try IFFChunks.id3Chunk(file, bigEndian: container == "aiff") else { return nil }
      return ID3Reader.parse(tag: bytes)
    default:
      return nil
    }
  }
}

/// Finds chunks that FFmpeg reads only in part: the `ID3 ` chunk of a RIFF (WAV) or IFF (AIFF)
/// file, where ID3v2 tags live in them, and a CAF file's packet table.
enum IFFChunks {
  /// What a CAF file's `pakt` chunk says of its frames: the valid ones (`mNumberValidFrames`,
  /// what is heard) and the encoder's priming before them (`mPrimingFrames`, 1024 for AAC).
  struct CAFPacketTable: Equatable {
    var validFrames: Int64
    var primingFrames: Int64
  }

  /// A CAF file's packet table, or nil when there is none (PCM) or it counts no valid frames.
  /// Walks at most 1,000 chunk headers.
  static func cafPacketTable(_ file: RegularFile) throws -> CAFPacketTable? {
    var offset: Int64 = 8
    for _ in 0..<1000 {
      let header = try file.read(count: 12, at: offset)
      guard header.count == 12 else { return nil }
      let size = header[4..<12].reduce(Int64(0)) { $0 << 8 | Int64($1) }
      if String(decoding: header[0..<4], as: UTF8.self) == "pakt" {
        let body = try file.read(count: 16, at: offset + 12)
        guard body.count == 16 else { return nil }
        let valid = body[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let priming = try file.read(count: 4, at: offset + 12 + 16).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return valid > 0 && valid <= MediaFileInfo.frameLimit
          ? CAFPacketTable(validFrames: valid, primingFrames: priming) : nil
      }
      // -1 is a data chunk's "to the end of the file"; a size near 2^63 would overflow.
      guard size >= 0 else { return nil }
      let (next, overflow) = (offset + 12).addingReportingOverflow(size)
      guard !overflow, next < file.status.size else { return nil }
      offset = next
    }
    return nil
  }

  /// The chunk's bytes (the whole ID3 tag), or nil when there is none. Walks at most 1,000
  /// chunk headers and reads at most 16 MiB.
  static func id3Chunk(_ file: RegularFile, bigEndian: Bool) throws -> [UInt8]? {
    let size = file.status.size
    var offset: Int64 = 12
    for _ in 0..<1000 {
      let header = try file.read(count: 8, at: offset)
      guard header.count == 8 else { return nil }
      let id = String(decoding: header[0..<4], as: UTF8.self)
      let length =
        bigEndian
        ? Int64(header[4]) << 24 | Int64(header[5]) << 16 | Int64(header[6]) << 8 | Int64(header[7])
        : Int64(header[7]) << 24 | Int64(header[6]) << 16 | Int64(header[5]) << 8 | Int64(header[4])
      if id == "ID3 " || id == "id3 " {
        guard length <= 16 << 20, offset + 8 + length <= size else { return nil }
        return try file.read(count: Int(length), at: offset + 8)
      }
      offset += 8 + length + (length & 1)
      if offset >= size { return nil }
    }
    return nil
  }
}

/// Turns FFmpeg's tag dictionaries (whose keys differ a little between formats) into `AudioTags`.
enum TagMapping {
  /// The tags of `dictionaries` (earlier ones win). With `vorbisJoined`, the `;` FFmpeg joins
  /// repeated Vorbis comments with becomes `; `.
  static func tags(from dictionaries: [FFmpegTags], vorbisJoined: Bool) -> AudioTags {
    func value(_ keys: String...) -> String? {
      for dictionary in dictionaries {
        for key in keys {
          if let found = dictionary[key], let cleaned = AudioTags.clean(found) {
            guard vorbisJoined else { return cleaned }
            return cleaned.split(separator: ";").compactMap { AudioTags.clean(String($0)) }.joined(
              separator: "; ")
          }
        }
      }
      return nil
    }
    let track = value("track", "tracknumber", "WM/TrackNumber")
    let disc = AudioTags.numberAndTotal(value("disc", "discnumber", "WM/PartOfSet"))
    var tags = AudioTags(
      title: value("title"), artist: value("artist", "author"), album: value("album"),
      date: value("date", "year", "WM/Year"), track: track,
      genre: value("genre").map { ID3Text.joined(ID3Text.genres($0)) ?? $0 },
      comment: value("comment", "description"))
    tags.albumArtist = value("album_artist", "albumartist", "album artist", "WM/AlbumArtist")
    tags.trackTotal =
      AudioTags.numberAndTotal(track).total ?? value("tracktotal", "totaltracks").flatMap { Int($0) }
    tags.disc = disc.number
    tags.discTotal = disc.total ?? value("disctotal", "totaldiscs").flatMap { Int($0) }
    // MP4 freeform atoms (`----:com.apple.iTunes:replaygain_track_gain`) reach FFmpeg's
    // dictionary by their name alone, as the other kinds do.
    tags.replayGain = ReplayGain.fromTags { value($0) }
    return tags
  }
}
