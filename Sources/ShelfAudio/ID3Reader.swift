import ShelfCore

/// Reads ID3v2 (2.2–2.4) and ID3v1 tags: at the start of an MP3, and in the `ID3 ` chunk of AIFF
/// and WAV files. FFmpeg keeps only the first of several values an ID3v2.4 frame holds, stops at
/// an empty frame and does not read WAV's chunk; this reader keeps every value (joined with `; `)
/// and reads tags as real files write them: unsynchronised (the whole tag in 2.2/2.3, per frame
/// in 2.4), with an extended header, empty frames, and iTunes' 2.4 tags with 2.3 frame sizes.
package enum ID3Reader {
  /// What an ID3 tag holds.
  package struct Found: Equatable {
    var tags: AudioTags
    /// True when an `APIC`/`PIC` frame (cover art) is present.
    var hasPicture: Bool
  }

  /// The tags in `file` (empty when there are none). Reads at most the tag's bytes.
  static func read(_ file: RegularFile) throws -> AudioTags {
    try found(in: file).tags
  }

  /// The leading ID3v2 tag of `file`, its missing fields filled from the ID3v1 tag at the end
  /// (as mutagen merges them).
  package static func found(in file: RegularFile) throws -> Found {
    var result = Found(tags: AudioTags(), hasPicture: false)
    let header = try file.read(count: 10, at: 0)
    if let size = tagSize(header), size < 64 << 20 {
      // A tag that claims more than the file holds costs the file's size, not the claim.
      result = parse(tag: try file.read(count: Int(min(Int64(size), file.status.size)), at: 0))
    }
    if file.status.size >= 128 {
      let tail = try file.read(count: 128, at: file.status.size - 128)
      if tail.count == 128, tail[0] == 0x54, tail[1] == 0x41, tail[2] == 0x47 {
        result.tags = result.tags.filled(from: ID3Text.parseV1(tail))
      }
    }
    return result
  }

  /// The first `count` bytes of a stream some taggers put behind a leading ID3v2 tag (ADIF,
  /// Shorten), where the stream starts (0 when there is no such tag) and the tag found there.
  /// Read failures come back as `FFmpegError`s, the one error type of `MediaFileInfo.read`.
  package static func headAfterTag(_ file: RegularFile, count: Int) throws(FFmpegError)
    -> (head: [UInt8], start: Int64, tag: Found?)
  {
    do throws(FileError) {
      let first = try file.read(count: 10, at: 0)
      guard let size = tagSize(first), Int64(size) < file.status.size else {
        return (try file.read(count: count, at: 0), 0, nil)
      }
      return (try file.read(count: count, at: Int64(size)), Int64(size), try? found(in: file))
    } catch {
      throw FFmpegError(
        path: file.path, call: "read", code: -5, message: error.reason, failure: error.failure)
    }
  }

  /// The whole size (header, body, footer) of the ID3v2 tag whose first 10 bytes are `header`.
  static func tagSize(_ header: [UInt8]) -> Int? {
    guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, header[3] < 0xFF
    else { return nil }
    return 10 + syncsafe(header[6..<10]) + (header[5] & 0x10 != 0 ? 10 : 0)
  }

  /// Parses a whole ID3v2 tag (header included), as found in a file or an `ID3 ` chunk.
  package static func parse(tag bytes: [UInt8]) -> Found {
    let nothing = Found(tags: AudioTags(), hasPicture: false)
    guard bytes.count > 10, tagSize(Array(bytes.prefix(10))) != nil else { return nothing }
    let version = bytes[3]
    let flags = bytes[5]
    // ID3v2.2's second flag is compression, with no scheme ever defined: nothing to read.
    guard (2...4).contains(version), !(version == 2 && flags & 0x40 != 0) else { return nothing }
    let size = min(syncsafe(bytes[6..<10]), bytes.count - 10)
    var body = Array(bytes[10..<(10 + size)])
    let unsynchronised = flags & 0x80 != 0
    if unsynchronised && version < 4 { body = Self.unsynchronised(body) }
    var start = 0
    // Some taggers set the extended header flag and write none: a frame follows at once.
    if version > 2 && flags & 0x40 != 0 && body.count >= 4 && !ID3Frames.isFrameID(body[0..<4]) {
      // 2.4 counts the extended header's own size field, 2.3 does not.
      start = version == 4 ? syncsafe(body[0..<4]) : ID3Frames.bigEndian(body[0..<4]) + 4
    }
    let frames = ID3Frames(
      body: body, start: start, version: version, tagIsUnsynchronised: unsynchronised && version == 4)
    return tags(of: frames.all)
  }

  /// The number in the 7 low bits of each byte (ID3v2's sizes).
  static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { ($0 << 7) | Int($1 & 0x7F) }
  }

  /// `bytes` with the `00` that unsynchronisation put after every `FF` taken out.
  static func unsynchronised(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var previous: UInt8 = 0
    for byte in bytes {
      if previous == 0xFF && byte == 0x00 {
        previous = 0
        continue
      }
      out.append(byte)
      previous = byte
    }
    return out
  }

  /// The tags that `frames` (in file order) give.
  static func tags(of frames: [ID3Frames.Frame]) -> Found {
    var texts: [String: [String]] = [:]
    // TXXX frames, by description: FFmpeg reads each as a tag of that name (its own muxer
    // writes `comment` so), and so does this reader, for the fields a frame of its own lacks.
    var userTexts: [FFmpegTags.Entry] = []
    var comments: [(description: String, text: String)] = []
    var hasPicture = false
    for frame in frames {
      switch frame.id {
      case "APIC": hasPicture = true
      case "COMM":
        // Encoding, a 3-byte language, a description, then the text.
        guard frame.content.count > 4 else { continue }
        let strings = ID3Text.strings(frame.content[4...], encoding: frame.content[0])
        if let description = strings.first, let text = ID3Text.joined(strings.dropFirst()) {
          comments.append((description, text))
        }
      case "TXXX":
        let strings = ID3Text.strings(frame.content.dropFirst(), encoding: frame.content.first ?? 0)
        if let description = strings.first.flatMap(AudioTags.clean),
          let text = ID3Text.joined(strings.dropFirst())
        {
          userTexts.append(FFmpegTags.Entry(key: description, value: text))
        }
      case let id where id.hasPrefix("T"):
        // A frame repeated adds its values (two TPE1 frames are two artists).
        texts[id, default: []] += ID3Text.strings(
          frame.content.dropFirst(), encoding: frame.content.first ?? 0
        )
        .compactMap(AudioTags.clean)
      default: break
      }
    }
    func joined(_ id: String) -> String? { ID3Text.joined(texts[id] ?? []) }
    let track = texts["TRCK"]?.first
    let disc = AudioTags.numberAndTotal(texts["TPOS"]?.first)
    var tags = AudioTags(
      title: joined("TIT2"), artist: joined("TPE1"), album: joined("TALB"),
      date: joined("TDRC")
        ?? ID3Text.date(year: texts["TYER"]?.first, day: texts["TDAT"]?.first, time: texts["TIME"]?.first),
      track: track, genre: ID3Text.joined((texts["TCON"] ?? []).flatMap(ID3Text.genres)),
      comment: comment(comments))
    tags.albumArtist = joined("TPE2")
    tags.trackTotal = AudioTags.numberAndTotal(track).total
    tags.disc = disc.number
    tags.discTotal = disc.total
    tags = tags.filled(from: TagMapping.tags(from: [FFmpegTags(entries: userTexts)], vorbisJoined: false))
    return Found(tags: tags, hasPicture: hasPicture)
  }

  /// The comment a person wrote: the first without a description (the others are named notes:
  /// iTunes' `iTunNORM`, `iTunSMPB`, `iTunPGAP` hold its volume and gapless data), else the first
  /// that is not iTunes'.
  static func comment(_ comments: [(description: String, text: String)]) -> String? {
    comments.first { AudioTags.clean($0.description) == nil }?.text
      ?? comments.first { !$0.description.hasPrefix("iTun") }?.text
  }
}
