/// How hard `PNGOptimizer` tries: levels 0–6 and `max` (zopfli).
public struct PNGOptimizationLevel: Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// 0...6, or 7 for `max`.
  public let rawValue: Int

  /// The default level, 2.
  public static let standard = PNGOptimizationLevel(rawValue: 2)
  /// The highest level: every filter strategy, brute force included, and zopfli.
  public static let max = PNGOptimizationLevel(rawValue: 7)

  /// Every level, 0 to 6 and `max`, in order of effort.
  public static let allCases = (0...7).map(PNGOptimizationLevel.init(rawValue:))

  init(rawValue: Int) { self.rawValue = rawValue }

  /// A level from its command-line spelling: "0"..."6" or "max".
  public init?(_ text: String) {
    if text == "max" {
      self = .max
    } else if let value = Int(text), (0...6).contains(value) {
      self.rawValue = value
    } else {
      return nil
    }
  }

  public var description: String { rawValue == 7 ? "max" : String(rawValue) }

  /// Filter strategies tried at this level (level 0 picks one by rule). From level 2 on they
  /// include oxipng's default set (None, Sub, entropy, bigrams).
  var strategies: [FilterStrategy] {
    switch rawValue {
    case 0: return []
    case 1: return [.fixed(0), .minimumSum]
    case 2: return [.fixed(0), .fixed(1), .minimumSum, .entropy, .bigrams]
    case 3:
      return [.fixed(0), .fixed(1), .fixed(2), .minimumSum, .entropy, .bigrams, .bigramEntropy]
    case 4:
      return [
        .fixed(0), .fixed(1), .fixed(2), .fixed(3), .fixed(4), .minimumSum, .entropy, .bigrams,
        .bigramEntropy,
      ]
    default:
      return [
        .fixed(0), .fixed(1), .fixed(2), .fixed(3), .fixed(4), .minimumSum, .entropy, .bigrams,
        .bigramEntropy, .bruteForce,
      ]
    }
  }

  /// The strategies that first rank the candidate encodings (palettes, gray, true colour)
  /// before the rest of `strategies` run on the best one; empty: every strategy on every
  /// candidate (levels 5 and up).
  var screeningStrategies: [FilterStrategy] {
    switch rawValue {
    case 1: return [.fixed(0), .minimumSum]
    case 2...4: return [.fixed(0), .bigrams]
    default: return []
    }
  }

  /// How many plans get the full trial after a coarse ranking of all of them (libdeflate's
  /// level 1 on a sample; see `PNGOptimizer.rank`); nil: every plan gets it. At the default
  /// level the full trials were two thirds of the ranking's cost on photographs, and the
  /// coarse ranking's two best held the full trials' winner on all but a few images, for
  /// 0.01 % of the corpus's output.
  var fullTrials: Int? { rawValue == 2 ? 2 : nil }
  /// The libdeflate level of trial compressions: lazy matching (7) ranks filters nearly as the
  /// near-optimal final levels do, at a fraction of their cost.
  var trialDeflateLevel: Int { [6, 6, 5, 7, 7, 8, 9, 8][rawValue] }
  /// The libdeflate level of the final compression (zopfli at `max` competes with it).
  var finalDeflateLevel: Int { [8, 9, 12, 12, 12, 12, 12, 12][rawValue] }
  /// The final level for an image of `imageBytes` packed rows: above 4 MB level 2 settles for
  /// libdeflate's 11, which costs half as much there for a few tenths of a per cent.
  func finalDeflateLevel(imageBytes: Int) -> Int {
    rawValue == 2 && imageBytes > 4 * 1024 * 1024 ? 11 : finalDeflateLevel
  }
  /// How many of the best trials get the final compression, which then decides between them
  /// as only the final compressor can; big images (packed rows above `bigImageBytes`) get fewer.
  func finalists(imageBytes: Int) -> Int {
    if imageBytes > Self.bigImageBytes { return rawValue >= 3 ? 2 : 1 }
    return [1, 1, 1, 2, 2, 3, 3, 3][rawValue]
  }
  /// How close (a fraction of the best's size) a trial must come to the best one to be
  /// compressed at the final level too.
  static let closeCall = 0.02
  /// Images bigger than this (packed rows) get fewer final compressions.
  static let bigImageBytes = 1024 * 1024
  /// How many palette orders are tried.
  var paletteOrders: [PaletteOrder] { rawValue == 0 ? [.frequency] : PaletteOrder.allCases }
  /// Whether true-colour candidates are tried beside a palette even when they are big.
  var alwaysTriesDirect: Bool { rawValue >= 3 }
  /// Whether the final compression is zopfli.
  var usesZopfli: Bool { rawValue == 7 }
  /// How many filterings get zopfli at `max` for an image of `imageBytes` packed rows: zopfli
  /// costs about a second per 100 KB, so the small images, where the filter ranked best by
  /// libdeflate is most often not zopfli's best, get the most.
  func zopfliContenders(imageBytes: Int) -> Int {
    guard usesZopfli else { return 0 }
    return imageBytes <= 256 * 1024 ? 4 : imageBytes <= 1024 * 1024 ? 2 : 1
  }
  /// How close (a fraction of the best trial's size) a trial must come to get zopfli too.
  static let zopfliCloseCall = 0.05

  /// Zopfli iterations: fewer for big inputs, where each one costs seconds.
  func zopfliIterations(for size: Int) -> Int {
    size <= 256 * 1024 ? 15 : size <= 1024 * 1024 ? 8 : size <= 4 * 1024 * 1024 ? 3 : 1
  }
}

/// Which ancillary chunks a crush removes.
public enum PNGStripMode: String, Sendable, CaseIterable {
  /// Keep every chunk except ones the rewrite makes invalid.
  case none
  /// Keep only chunks that affect how the image looks (colour space, gamma, sBIT, pHYs).
  case safe
  /// Remove every ancillary chunk.
  case all

  static let safeChunks: Set<String> = [
    "cHRM", "gAMA", "iCCP", "sRGB", "cICP", "mDCv", "cLLi", "sBIT", "pHYs",
  ]

  func keeps(_ name: String) -> Bool {
    switch self {
    case .none: return true
    case .safe: return Self.safeChunks.contains(name)
    case .all: return false
    }
  }
}

/// What to do with iPhone-optimized (CgBI) form.
public enum CgBIMode: Sendable, Equatable {
  /// Keep a file's form: CgBI stays CgBI (recompressed), standard stays standard.
  case keep
  /// Write CgBI as Xcode's `pngcrush -iphone` does (8-bit input only).
  case convertToCgBI
  /// Convert CgBI files to standard PNGs.
  case revertToStandard
}

/// Options of a crush.
public struct PNGOptimizationOptions: Sendable {
  public var level: PNGOptimizationLevel = .standard
  public var strip: PNGStripMode = .none
  /// Set the colour of fully transparent pixels to whatever compresses best (`--alpha`).
  public var cleanTransparentColor = false
  public var cgbi: CgBIMode = .keep
  /// How many trial compressions of one file run at once.
  public var parallelTrials = 1
  /// Images with more pixels are refused before decoding.
  public var pixelLimit = PNGDecoder.defaultPixelLimit
  /// Images whose decoded pixels would take more bytes are refused before decoding.
  public var maxDecodedBytes = PNGDecoder.defaultMaxDecodedBytes

  public init(
    level: PNGOptimizationLevel = .standard, strip: PNGStripMode = .none,
    cleanTransparentColor: Bool = false, cgbi: CgBIMode = .keep, parallelTrials: Int = 1,
    pixelLimit: Int = PNGDecoder.defaultPixelLimit,
    maxDecodedBytes: Int = PNGDecoder.defaultMaxDecodedBytes
  ) {
    self.maxDecodedBytes = maxDecodedBytes
    self.level = level
    self.strip = strip
    self.cleanTransparentColor = cleanTransparentColor
    self.cgbi = cgbi
    self.parallelTrials = parallelTrials
    self.pixelLimit = pixelLimit
  }
}
