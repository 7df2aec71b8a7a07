/// The frames of an ID3v2 tag's body, in file order, each undone of what its flags did to it
/// (grouping byte, data length indicator, 2.4's per-frame unsynchronisation). Empty frames are
/// passed over; compressed and encrypted ones, and one that runs past the tag's end, are left out.
/// Every size is checked against the bytes present before it is used.
struct ID3Frames {
  /// One frame: its 2.3/2.4 identifier (2.2's three-letter ones translated) and its content.
  struct Frame: Equatable {
    var id: String
    var content: [UInt8]
  }

  /// The frames read.
  let all: [Frame]

  /// Walks the frames of `body` (the tag after its header, unsynchronised already in 2.2/2.3)
  /// from `start` (after an extended header). `tagIsUnsynchronised` is 2.4's header flag, which
  /// applies to every frame.
  init(body: [UInt8], start: Int, version: UInt8, tagIsUnsynchronised: Bool) {
    let plainSizes = version == 4 && Self.hasPlainSizes(body, from: start)
    var frames: [Frame] = []
    var index = start
    while let header = Self.header(in: body, at: index, version: version, plainSizes: plainSizes) {
      let end = header.contentStart + header.size
      // A frame that claims more than the tag holds is cut short or lies: it is the last.
      guard end <= body.count else { break }
      index = end
      guard header.size > 0, let id = Self.id(body[header.idRange]),
        let content = Self.content(
          body[header.contentStart..<end], flags: header.flags, version: version,
          tagIsUnsynchronised: tagIsUnsynchronised)
      else { continue }
      frames.append(Frame(id: id, content: content))
    }
    all = frames
  }

  /// Where one frame header says its parts are.
  struct Header {
    var idRange: Range<Int>
    var size: Int
    var flags: UInt8
    var contentStart: Int
  }

  /// The frame header at `index`, or nil at the end of the frames (no room for a header, or
  /// padding: an identifier of zeros).
  static func header(in body: [UInt8], at index: Int, version: UInt8, plainSizes: Bool) -> Header? {
    let idLength = version == 2 ? 3 : 4
    let headerLength = version == 2 ? 6 : 10
    guard index >= 0, index <= body.count - headerLength else { return nil }
    let idRange = index..<(index + idLength)
    guard body[idRange].contains(where: { $0 != 0 }) else { return nil }
    let sizeBytes = body[(index + idLength)..<(index + idLength + (version == 2 ? 3 : 4))]
    let size = version == 4 && !plainSizes ? ID3Reader.syncsafe(sizeBytes) : bigEndian(sizeBytes)
    let flags = version == 2 ? 0 : body[index + 9]
    return Header(idRange: idRange, size: size, flags: flags, contentStart: index + headerLength)
  }

  /// The big-endian unsigned number in up to 4 bytes (ID3v2.2 and 2.3's sizes).
  static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { $0 << 8 | Int($1) }
  }

  /// The frame's identifier, as 2.3/2.4 name it; nil when it is not one (letters and digits).
  static func id(_ bytes: ArraySlice<UInt8>) -> String? {
    guard isFrameID(bytes) else { return nil }
    let name = bytes.last == 0 ? bytes.dropLast() : bytes
    let id = String(decoding: name, as: UTF8.self)
    return name.count == 3 ? v22Names[id] ?? id : id
  }

  /// True for capital letters and digits (some writers put 2.2's three-letter identifiers,
  /// NUL-padded, in 2.3 tags, as mutagen reads).
  static func isFrameID(_ bytes: ArraySlice<UInt8>) -> Bool {
    let name = bytes.count == 4 && bytes.last == 0 ? bytes.dropLast() : bytes
    return name.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }
  }

  /// The content of a frame after its flags are undone; nil for a compressed or encrypted one
  /// (shelf reads no frame that needs them) or one too short for what its flags announce.
  static func content(
    _ bytes: ArraySlice<UInt8>, flags: UInt8, version: UInt8, tagIsUnsynchronised: Bool
  ) -> [UInt8]? {
    var data = bytes
    switch version {
    case 3:
      // Compression, encryption; grouping adds one byte.
      guard flags & 0xC0 == 0 else { return nil }
      if flags & 0x20 != 0 { data = data.dropFirst() }
      return Array(data)
    case 4:
      // Compression, encryption; grouping adds one byte, the data length indicator four.
      guard flags & 0x0C == 0 else { return nil }
      if flags & 0x40 != 0 { data = data.dropFirst() }
      if flags & 0x01 != 0 {
        guard data.count >= 4 else { return nil }
        data = data.dropFirst(4)
      }
      let unsynchronised = flags & 0x02 != 0 || tagIsUnsynchronised
      return unsynchronised ? ID3Reader.unsynchronised(Array(data)) : Array(data)
    default:
      return Array(data)
    }
  }

  /// True when an ID3v2.4 tag's frame sizes are plain 32-bit numbers, as iTunes wrote them,
  /// rather than the standard's 7 bits a byte: walked both ways, the plain reading finds more
  /// frames, or as many while the standard one runs past the end and it does not (mutagen's
  /// rule). Sizes under 128 read the same either way.
  static func hasPlainSizes(_ body: [UInt8], from start: Int) -> Bool {
    let standard = walk(body, from: start, plainSizes: false)
    let plain = walk(body, from: start, plainSizes: true)
    return plain.frames > standard.frames
      || (plain.frames == standard.frames && standard.overrun >= 1 && plain.overrun <= 1)
  }

  /// How many frame identifiers a walk with one size reading meets, and how far past the
  /// body's end it ends (0 at padding, negative when it stops short of the end).
  static func walk(_ body: [UInt8], from start: Int, plainSizes: Bool) -> (frames: Int, overrun: Int) {
    var index = max(start, 0)
    var frames = 0
    while index <= body.count - 10 {
      let header = body[index..<(index + 10)]
      if header.allSatisfy({ $0 == 0 }) { return (frames, 0) }
      if isFrameID(header.prefix(4)) { frames += 1 }
      let sizeBytes = header.dropFirst(4).prefix(4)
      index += 10 + (plainSizes ? bigEndian(sizeBytes) : ID3Reader.syncsafe(sizeBytes))
    }
    return (frames, index - body.count)
  }

  /// ID3v2.2's three-letter names for the frames read here.
  static let v22Names = [
    "TT2": "TIT2", "TP1": "TPE1", "TP2": "TPE2", "TAL": "TALB", "TYE": "TYER", "TDA": "TDAT",
    "TIM": "TIME", "TRK": "TRCK", "TPA": "TPOS", "TCO": "TCON", "COM": "COMM", "PIC": "APIC",
    "TXX": "TXXX", "WXX": "WXXX",
  ]
}
