public import ShelfCore

/// What the header of an image says.
public struct ImageFacts: Sendable, Equatable {
  public var format: String
  public var width: Int
  public var height: Int
  /// Bits per sample (per channel), when the format says.
  public var bitDepth: Int?
  public var colorType: ImageColorType?
  public var alpha: Bool?
  public var interlaced: Bool?
  /// True for Apple's iPhone-optimized PNG (CgBI); nil for other formats.
  public var cgbi: Bool?
  /// Number of frames (APNG, animated GIF/WebP); 1 for still images when known.
  public var frames: Int?
  /// How many times an animation plays, 0 for forever; nil when the file does not say. WebP's
  /// ANIM chunk counts plays (webpmux's Loop Count); a GIF's NETSCAPE2.0 (or ANIMEXTS1.0)
  /// extension counts repeats after the first play (Pillow's `info['loop']`), so a nonzero
  /// count is one more than it, as gif2webp converts it and browsers play it.
  public var loop: Int?
  /// PNG chunk names in file order (repeats collapsed), for PNG only.
  public var chunks: [String]

  public init(
    format: String, width: Int, height: Int, bitDepth: Int? = nil, colorType: ImageColorType? = nil,
    alpha: Bool? = nil, interlaced: Bool? = nil, cgbi: Bool? = nil, frames: Int? = nil,
    loop: Int? = nil, chunks: [String] = []
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.bitDepth = bitDepth
    self.colorType = colorType
    self.alpha = alpha
    self.interlaced = interlaced
    self.cgbi = cgbi
    self.frames = frames
    self.loop = loop
    self.chunks = chunks
  }
}

/// How an image's pixels describe colour, as its header says, by the names the catalogue stores
/// and queries compare (`color:gray-alpha`).
public enum ImageColorType: String, CaseIterable, Sendable {
  case gray
  case grayAlpha = "gray-alpha"
  case rgb, rgba
  case palette
  case cmyk
  /// JPEG's and TIFF's luma and chroma; `ycck` is Adobe's YCbCr with a black channel.
  case ycbcr, ycck
  /// CIE L*a*b*, as a Photoshop document names it.
  case lab
  /// A model none of these names (a multichannel PSD, a JPEG of two components).
  case other
}

/// What reading a text file found.
public struct TextFacts: Sendable, Equatable {
  public var encoding: TextEncoding
  public var bom: Bool
  public var lineEndings: LineEndings
  public var lines: Int
  public var words: Int
  public var chars: Int
  /// The first line (trimmed, at most 200 characters).
  public var firstLine: String

  public init(
    encoding: TextEncoding, bom: Bool, lineEndings: LineEndings, lines: Int, words: Int, chars: Int,
    firstLine: String
  ) {
    self.encoding = encoding
    self.bom = bom
    self.lineEndings = lineEndings
    self.lines = lines
    self.words = words
    self.chars = chars
    self.firstLine = firstLine
  }
}

/// The line breaks a text file uses, by the names the catalogue stores and queries compare
/// (`endings:crlf`), in documented order.
public enum LineEndings: String, CaseIterable, Sendable {
  case lf, crlf, cr
  /// More than one kind.
  case mixed
  /// No line break at all (named so that it is not mistaken for `Optional.none`).
  case noBreak = "none"
}

/// What a property list holds at its top level.
public struct PlistFacts: Sendable, Equatable {
  public var format: PlistFormat
  /// `dictionary`, `array`, `string`, `integer`, `real`, `boolean`, `date`, `data`.
  public var root: String
  /// The top-level keys (dictionary roots only), in file order.
  public var keys: [String]

  public init(format: PlistFormat, root: String, keys: [String]) {
    self.format = format
    self.root = root
    self.keys = keys
  }
}
