import ShelfCore

extension ImageHeaderReader {
  /// HEIF, HEIC and AVIF: libheif's facts (`HEIFContainer`), with two things it does not give:
  /// an image sequence's frames are its picture track's samples (Pillow's `n_frames` for an
  /// animated AVIF), and a file whose primary item libheif 1.15 cannot decode still has the
  /// size its `ispe` property gives (or, for a sequence alone, its track's).
  public static func readHEIF(_ source: any ByteSource, format: String) throws -> ImageFacts {
    let boxes = HEIFBoxes(source: source)
    var facts: ImageFacts
    do {
      facts = try HEIFContainer(source, format: format).facts()
    } catch let error as HeaderError {
      if let item = try? boxes.primaryItem(), !HEIFBoxes.libheifItemTypes.contains(item.type) {
        facts = ImageFacts(format: format, width: item.width, height: item.height, frames: 1)
      } else if let track = try? boxes.pictureTrack() {
        return ImageFacts(format: format, width: track.width, height: track.height, frames: track.frames)
      } else {
        throw error
      }
    }
    if let track = try boxes.pictureTrack() { facts.frames = track.frames }
    return facts
  }
}

/// The few HEIF boxes shelf reads itself, where libheif 1.15 gives nothing: the primary item's
/// type and `ispe` size (libheif refuses a file whose primary item is coded in a way it does
/// not know, such as ISO 23001-17 uncompressed or brotli/deflate-compressed items), and the
/// picture track of an image sequence (`avis`, `msf1`), whose samples are the frames. Boxes
/// are walked by their headers; only the small leaves are read, each bounded.
struct HEIFBoxes {
  let source: any ByteSource

  /// The item types libheif 1.15 makes images of.
  static let libheifItemTypes: Set<String> = ["hvc1", "av01", "grid", "iden", "iovl"]

  /// A box: its type and where its payload lies.
  struct Box {
    var type: String
    var payload: Range<Int64>
  }

  /// The boxes inside `range`, at most 4,096; a box that runs past the range is cut to it.
  func children(_ range: Range<Int64>) throws -> [Box] {
    var boxes: [Box] = []
    var offset = range.lowerBound
    while offset + 8 <= range.upperBound, boxes.count < 4096 {
      let head = try source.read(count: 16, at: offset)
      guard let size32 = head.be32(0), head.count >= 8 else { break }
      var headerSize: Int64 = 8
      var size = Int64(size32)
      if size32 == 1 {
        guard let size64 = head.be64(8), size64 <= UInt64(Int64.max) else { break }
        size = Int64(size64)
        headerSize = 16
      } else if size32 == 0 {
        size = range.upperBound - offset
      }
      // A box must hold its own header inside the range (a 64-bit size needs 16 bytes).
      guard size >= headerSize, headerSize <= range.upperBound - offset else { break }
      let end = size > range.upperBound - offset ? range.upperBound : offset + size
      boxes.append(Box(type: head.fourCC(4), payload: offset + headerSize..<end))
      offset = end
    }
    return boxes
  }

  /// Up to `limit` bytes of a payload.
  func bytes(_ box: Box, limit: Int = 1 << 16) throws -> [UInt8] {
    try source.read(count: Int(min(Int64(limit), Int64(box.payload.count))), at: box.payload.lowerBound)
  }

  private func first(_ type: String, in boxes: [Box]) -> Box? { boxes.first { $0.type == type } }

  /// The primary item's type and its `ispe` size (width and height swapped by a quarter-turn
  /// `irot`), or nil when the file does not say.
  func primaryItem() throws -> (type: String, width: Int, height: Int)? {
    guard let meta = first("meta", in: try children(0..<source.size)), meta.payload.count > 4 else {
      return nil
    }
    let inMeta = try children(meta.payload.lowerBound + 4..<meta.payload.upperBound)
    guard let pitm = first("pitm", in: inMeta), let iinf = first("iinf", in: inMeta),
      let iprp = first("iprp", in: inMeta)
    else { return nil }
    let pitmBytes = try bytes(pitm, limit: 8)
    guard let primary = pitmBytes.u8(0) == 0 ? pitmBytes.be16(4) : pitmBytes.be32(4),
      let type = try itemType(primary, iinf: iinf)
    else { return nil }
    let inIprp = try children(iprp.payload)
    guard let ipco = first("ipco", in: inIprp), let ipma = first("ipma", in: inIprp) else { return nil }
    let properties = try children(ipco.payload)
    var size: (width: Int, height: Int)?
    var quarterTurn = false
    for index in try associations(of: primary, ipma: ipma) where index >= 1 && index <= properties.count {
      let property = properties[index - 1]
      if property.type == "ispe" {
        let data = try bytes(property, limit: 12)
        if let width = data.be32(4), let height = data.be32(8), width > 0, height > 0 {
          size = (width, height)
        }
      } else if property.type == "irot" {
        quarterTurn = try bytes(property, limit: 1).u8(0).map { $0 & 1 == 1 } ?? false
      }
    }
    guard let size else { return nil }
    return quarterTurn ? (type, size.height, size.width) : (type, size.width, size.height)
  }

  /// The type an `infe` (version 2 or 3) in `iinf` gives item `id`.
  private func itemType(_ id: Int, iinf: Box) throws -> String? {
    let head = try bytes(iinf, limit: 8)
    let entriesStart = iinf.payload.lowerBound + (head.u8(0) == 0 ? 6 : 8)
    guard entriesStart <= iinf.payload.upperBound else { return nil }
    for infe in try children(entriesStart..<iinf.payload.upperBound) where infe.type == "infe" {
      let data = try bytes(infe, limit: 16)
      switch data.u8(0) {
      case 2: if data.be16(4) == id { return data.fourCC(8) }
      case 3: if data.be32(4) == id { return data.fourCC(10) }
      default: continue
      }
    }
    return nil
  }

  /// The property indices (1-based) `ipma` associates with item `id`.
  private func associations(of id: Int, ipma: Box) throws -> [Int] {
    let data = try bytes(ipma, limit: 1 << 20)
    guard let version = data.u8(0), let flags = data.u8(3), let count = data.be32(4) else { return [] }
    let idSize = version < 1 ? 2 : 4
    let wide = flags & 1 == 1
    var offset = 8
    for _ in 0..<min(count, data.count) {
      guard let item = idSize == 2 ? data.be16(offset) : data.be32(offset),
        let associationCount = data.u8(offset + idSize)
      else { return [] }
      offset += idSize + 1
      var indices: [Int] = []
      for _ in 0..<associationCount {
        guard let value = wide ? data.be16(offset) : data.u8(offset) else { return [] }
        indices.append(wide ? value & 0x7FFF : value & 0x7F)
        offset += wide ? 2 : 1
      }
      if item == id { return indices }
    }
    return []
  }

  /// The sample count of the first picture track (`pict` or `vide` handler; not an `auxv`
  /// alpha track) and its sample entry's width and height, for an image sequence.
  func pictureTrack() throws -> (frames: Int, width: Int, height: Int)? {
    guard let moov = first("moov", in: try children(0..<source.size)) else { return nil }
    for trak in try children(moov.payload) where trak.type == "trak" {
      guard let mdia = first("mdia", in: try children(trak.payload)) else { continue }
      let inMdia = try children(mdia.payload)
      guard let hdlr = first("hdlr", in: inMdia), let minf = first("minf", in: inMdia),
        ["pict", "vide"].contains(try bytes(hdlr, limit: 12).fourCC(8)),
        let stbl = first("stbl", in: try children(minf.payload))
      else { continue }
      let inStbl = try children(stbl.payload)
      guard let stsz = first("stsz", in: inStbl), let stsd = first("stsd", in: inStbl),
        let frames = try bytes(stsz, limit: 12).be32(8), frames > 0
      else { continue }
      // stsd: version and flags, entry count, then the first visual sample entry (size, type,
      // 6 reserved bytes, data reference index, 16 bytes, width, height).
      let entry = try bytes(stsd, limit: 44)
      guard let width = entry.be16(8 + 32), let height = entry.be16(8 + 34) else { continue }
      return (frames, width, height)
    }
    return nil
  }
}
