public import ShelfCore

/// A PNG colour type as IHDR states it.
public enum PNGColorType: Int, Sendable, Equatable, CustomStringConvertible {
  case gray = 0
  case rgb = 2
  case palette = 3
  case grayAlpha = 4
  case rgba = 6

  /// Samples per pixel.
  public var channels: Int {
    switch self {
    case .gray, .palette: return 1
    case .grayAlpha: return 2
    case .rgb: return 3
    case .rgba: return 4
    }
  }

  /// Whether the type carries an alpha channel.
  public var hasAlphaChannel: Bool { self == .grayAlpha || self == .rgba }

  public var description: String {
    switch self {
    case .gray: return "grayscale"
    case .rgb: return "RGB"
    case .palette: return "palette"
    case .grayAlpha: return "grayscale+alpha"
    case .rgba: return "RGBA"
    }
  }

  /// Whether `depth` is allowed with this colour type.
  func allows(depth: Int) -> Bool {
    switch self {
    case .gray: return [1, 2, 4, 8, 16].contains(depth)
    case .palette: return [1, 2, 4, 8].contains(depth)
    default: return depth == 8 || depth == 16
    }
  }
}

/// What a PNG's header and chunk list say, read without decoding any pixels.
public struct PNGHeaderInfo: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var bitDepth: Int
  public var colorType: PNGColorType
  /// Whether the image has an alpha channel or a tRNS chunk.
  public var hasAlpha: Bool
  public var interlaced: Bool
  /// Whether this is an iPhone-optimized (CgBI) PNG.
  public var isCgBI: Bool
  /// The number of frames of an APNG (a file with acTL): its fcTL chunks, each of which starts
  /// one, whatever acTL declares (encoders that drop frames leave acTL's count behind; browsers
  /// and FFmpeg play the frames there are); at least 1. Nil for a still image.
  public var animationFrameCount: Int?
  /// The chunk types in file order, e.g. `["IHDR", "PLTE", "IDAT", "IEND"]`.
  public var chunkNames: [String]

  /// Reads the header and chunk list from a file, seeking over chunk data.
  ///
  /// CRCs are not checked: this is the cheap look a catalogue takes at many files.
  public static func read(path: RawPath) throws -> PNGHeaderInfo {
    let file = try RegularFile(path: path)
    do {
      return try read { count, offset in try file.read(count: count, at: offset) }
    } catch let error as PNGError {
      throw error.at(path)
    }
  }

  /// Reads the header and chunk list from a whole file in memory.
  public static func read(bytes: [UInt8]) throws(PNGError) -> PNGHeaderInfo {
    do {
      return try read { count, offset in
        let start = Int(min(offset, Int64(bytes.count)))
        return Array(bytes[start..<min(bytes.count, start + count)])
      }
    } catch let error as PNGError {
      throw error
    } catch {
      throw PNGError(.corrupt("\(error)"))
    }
  }

  /// Reads the header and chunk list through `readAt(count, offset)`, which returns up to
  /// `count` bytes at `offset` (fewer at the end): for a caller reading its own open file.
  public static func read(_ readAt: (Int, Int64) throws -> [UInt8]) throws -> PNGHeaderInfo {
    let signature = try readAt(8, 0)
    guard !signature.isEmpty else { throw PNGError(.empty) }
    guard signature == pngSignature else {
      if Array(pngSignature.prefix(signature.count)) == signature {
        throw PNGError(.truncated("file ends inside the signature"))
      }
      throw PNGError(.notPNG)
    }
    var names: [String] = []
    var offset: Int64 = 8
    var header: [UInt8]?
    var isCgBI = false
    var isAnimated = false
    var frameControls = 0
    var hasTRNS = false
    while names.count < 1_000_000 {
      let head = try readAt(8, offset)
      guard head.count == 8 else {
        if header == nil { throw PNGError(.truncated("no IHDR")) }
        break  // a missing IEND does not stop a header read
      }
      let length = Int64(head.bigEndianUInt32(at: 0))
      let type = Array(head[4..<8])
      guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
        throw PNGError(.corrupt("invalid chunk type at byte \(offset + 4)"))
      }
      let name = String(decoding: type, as: UTF8.self)
      if names.isEmpty || (names == ["CgBI"]) {
        if name == "CgBI" && names.isEmpty {
          isCgBI = true
        } else if name != "IHDR" {
          throw PNGError(.corrupt("first chunk is not IHDR"))
        }
      }
      names.append(name)
      if name == "IHDR" && header == nil {
        let data = try readAt(13, offset + 8)
        guard data.count == 13, length == 13 else { throw PNGError(.truncated("IHDR ends early")) }
        header = data
      } else if name == "acTL" {
        isAnimated = true
      } else if name == "fcTL" {
        frameControls += 1
      } else if name == "tRNS" {
        hasTRNS = true
      }
      if name == "IEND" { break }
      offset += 12 + length
    }
    guard let header else { throw PNGError(.truncated("no IHDR")) }
    let width = Int(header.bigEndianUInt32(at: 0))
    let height = Int(header.bigEndianUInt32(at: 4))
    let depth = Int(header[8])
    guard let colorType = PNGColorType(rawValue: Int(header[9])), colorType.allows(depth: depth)
    else {
      throw PNGError(.corrupt("invalid colour type \(header[9]) with bit depth \(header[8])"))
    }
    guard width > 0, height > 0 else { throw PNGError(.corrupt("zero width or height")) }
    return PNGHeaderInfo(
      width: width, height: height, bitDepth: depth, colorType: colorType,
      hasAlpha: colorType.hasAlphaChannel || hasTRNS, interlaced: header[12] == 1,
      isCgBI: isCgBI, animationFrameCount: isAnimated ? max(frameControls, 1) : nil, chunkNames: names)
  }
}
