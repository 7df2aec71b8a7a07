#if canImport(Glibc)
  import Glibc
#endif

/// One way of storing an image in a PNG: colour type, bit depth, palette, tRNS and the
/// unfiltered, packed rows.
struct PNGEncoding: Sendable {
  var width: Int
  var height: Int
  var colorType: PNGColorType
  var bitDepth: Int
  /// PLTE data (palette encodings only).
  var palette: [UInt8] = []
  /// tRNS data for this encoding, if it needs one.
  var transparency: [UInt8]?
  /// bKGD data for this encoding, if the input had one.
  var background: [UInt8]?
  /// sBIT data for this encoding, if the input had one.
  var significantBits: [UInt8]?
  /// `height * rowBytes` bytes of packed samples, no filter bytes.
  var rows: [UInt8]
  var rowBytes: Int
  /// The filter's "bytes per pixel": at least 1.
  var filterUnit: Int { max(1, colorType.channels * bitDepth / 8) }
  /// Bytes of PLTE and tRNS chunks this encoding adds to the file.
  var overheadBytes: Int {
    (palette.isEmpty ? 0 : 12 + palette.count) + (transparency.map { 12 + $0.count } ?? 0)
  }
  /// A short description for diagnostics, e.g. "palette 4-bit".
  var label: String { "\(colorType) \(bitDepth)-bit" }

  /// sBIT data for channels stored at `depth` bits, or nil when it would say that every bit
  /// is significant: such a chunk tells a decoder nothing, so it is not worth its 13 bytes.
  static func significantBits(_ channels: [Int], depth: Int) -> [UInt8]? {
    let bits = channels.map { min($0, depth) }
    return bits.allSatisfy { $0 == depth } ? nil : bits.map { UInt8($0) }
  }
}

/// Metadata of the input that depends on the encoding, in the canonical image's terms.
struct CanonicalMetadata: Sendable {
  /// The bKGD colour as R, G, B at the canonical sample depth.
  var background: [Int]?
  /// Significant bits per R, G, B, A.
  var significantBits: [Int]?

  /// Reads bKGD and sBIT from the input chunks.
  init(chunks: [PNGChunk], colorType: PNGColorType, bitDepth: Int) {
    let palette = chunks.first { $0.is("PLTE") }?.data ?? []
    if let data = chunks.first(where: { $0.is("bKGD") })?.data {
      switch colorType {
      case .palette:
        if data.count == 1, Int(data[0]) * 3 + 2 < palette.count {
          let i = Int(data[0]) * 3
          background = [Int(palette[i]), Int(palette[i + 1]), Int(palette[i + 2])]
        }
      case .gray, .grayAlpha:
        if data.count == 2 {
          let v = Int(data.bigEndianUInt16(at: 0))
          if v < 1 << bitDepth {
            let scaled = bitDepth < 8 ? v * (255 / ((1 << bitDepth) - 1)) : v
            background = [scaled, scaled, scaled]
          }
        }
      case .rgb, .rgba:
        if data.count == 6 {
          let values = (0..<3).map { Int(data.bigEndianUInt16(at: 2 * $0)) }
          if values.allSatisfy({ $0 < 1 << bitDepth }) { background = values }
        }
      }
    }
    if let data = chunks.first(where: { $0.is("sBIT") })?.data {
      let depth = colorType == .palette ? 8 : bitDepth
      let values = data.map(Int.init)
      if values.allSatisfy({ $0 >= 1 && $0 <= depth }) {
        switch (colorType, values.count) {
        case (.gray, 1): significantBits = [values[0], values[0], values[0], depth]
        case (.grayAlpha, 2): significantBits = [values[0], values[0], values[0], values[1]]
        case (.rgb, 3), (.palette, 3): significantBits = values + [depth]
        case (.rgba, 4): significantBits = values
        default: break
        }
      }
    }
  }

  init() {}
}

/// Exact reductions of a canonical RGBA image to the smallest PNG encodings.
struct Reducer {
  var image: PNGImage
  var metadata: CanonicalMetadata

  /// Whether every sample's high byte equals its low byte (16-bit → 8-bit is exact).
  static func canReduceTo8Bit(_ image: PNGImage, background: [Int]?) -> Bool {
    guard image.sampleDepth == 16 else { return false }
    if let background, !background.allSatisfy({ $0 % 257 == 0 }) { return false }
    return image.pixels.withUnsafeBufferPointer { p in
      var i = 0
      while i < p.count {
        if p[i] != p[i + 1] { return false }
        i += 2
      }
      return true
    }
  }

  /// The image with 8-bit samples (the caller checked `canReduceTo8Bit`), made in the
  /// 16-bit pixels' own buffer when `image` holds it alone: a copy would hold both at once.
  static func reducedTo8Bit(_ image: consuming PNGImage) -> PNGImage {
    let (width, height) = (image.width, image.height)
    var pixels = image.pixels
    image.pixels = []
    let count = pixels.count / 2
    pixels.withUnsafeMutableBufferPointer { p in
      for i in 0..<count { p[i] = p[2 * i] }
    }
    pixels.truncate(to: count, spare: height)
    return PNGImage(width: width, height: height, sampleDepth: 8, pixels: pixels)
  }

  /// Sets the colour of every fully transparent pixel to black (the `--alpha` option).
  static func cleanedTransparentColor(_ image: PNGImage) -> PNGImage {
    var image = image
    cleanTransparentColor(&image)
    return image
  }

  /// `cleanedTransparentColor(_:)` in place.
  static func cleanTransparentColor(_ image: inout PNGImage) {
    let step = image.bytesPerPixel
    image.pixels.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
        let transparent = step == 4 ? p[i + 3] == 0 : (p[i + 6] == 0 && p[i + 7] == 0)
        if transparent { for k in 0..<(step * 3 / 4) { p[i + k] = 0 } }
        i += step
      }
    }
  }

  /// What a pass over the pixels found.
  struct Analysis {
    var opaque = true
    var gray = true
    var binaryAlpha = true
    /// The colour all fully transparent pixels share (R, G, B), if they share one and no
    /// opaque pixel has it.
    var transparentKey: [Int]?
    /// Unique 8-bit RGBA colours with counts, if there are at most 256.
    var colors: [(rgba: UInt32, count: Int)]?
    /// The smallest gray bit depth that holds every gray value exactly (8-bit gray only).
    var grayDepth = 8
  }

  func analyze() -> Analysis {
    var result = Analysis()
    let depth = image.sampleDepth
    let maxValue = depth == 8 ? 255 : 65535
    var keyCandidate: [Int]?
    var keyConsistent = true
    var table = ColorTable()
    var countColors = depth == 8
    image.pixels.withUnsafeBufferPointer { p in
      let count = image.width * image.height
      for n in 0..<count {
        let r: Int, g: Int, b: Int, a: Int
        if depth == 8 {
          let i = 4 * n
          r = Int(p[i]); g = Int(p[i + 1]); b = Int(p[i + 2]); a = Int(p[i + 3])
          if countColors {
            let key = UInt32(r) << 24 | UInt32(g) << 16 | UInt32(b) << 8 | UInt32(a)
            if !table.add(key) { countColors = false }
          }
        } else {
          let i = 8 * n
          r = Int(p[i]) << 8 | Int(p[i + 1]); g = Int(p[i + 2]) << 8 | Int(p[i + 3])
          b = Int(p[i + 4]) << 8 | Int(p[i + 5]); a = Int(p[i + 6]) << 8 | Int(p[i + 7])
        }
        if a != maxValue {
          result.opaque = false
          if a != 0 {
            result.binaryAlpha = false
          } else if keyConsistent {
            if let k = keyCandidate {
              if k[0] != r || k[1] != g || k[2] != b { keyConsistent = false }
            } else {
              keyCandidate = [r, g, b]
            }
          }
        }
        if r != g || g != b { result.gray = false }
      }
    }
    if countColors { result.colors = table.entries() }
    if !result.opaque, result.binaryAlpha, keyConsistent, let key = keyCandidate {
      // The key must not match any opaque pixel.
      let used = image.pixels.withUnsafeBufferPointer { p -> Bool in
        let step = image.bytesPerPixel
        var i = 0
        while i < p.count {
          let value = { (k: Int) -> Int in
            depth == 8 ? Int(p[i + k]) : Int(p[i + 2 * k]) << 8 | Int(p[i + 2 * k + 1])
          }
          if value(3) == maxValue && value(0) == key[0] && value(1) == key[1] && value(2) == key[2] {
            return true
          }
          i += step
        }
        return false
      }
      if !used { result.transparentKey = key }
    }
    if result.gray && depth == 8 {
      var seen = [Bool](repeating: false, count: 256)
      image.pixels.withUnsafeBufferPointer { p in
        var i = 0
        while i < p.count {
          seen[Int(p[i])] = true
          i += 4
        }
      }
      if let key = result.transparentKey { seen[key[0]] = true }
      if let background = metadata.background {
        if background[0] == background[1] && background[1] == background[2] {
          seen[background[0]] = true
        } else {
          result.gray = false
        }
      }
      for candidate in [1, 2, 4] {
        let scale = 255 / ((1 << candidate) - 1)
        if (0..<256).allSatisfy({ !seen[$0] || $0 % scale == 0 }) {
          result.grayDepth = candidate
          break
        }
      }
    } else if result.gray, let background = metadata.background,
      !(background[0] == background[1] && background[1] == background[2])
    {
      result.gray = false
    }
    return result
  }

  /// The candidate encodings worth trying, smallest-looking first: a palette in each of
  /// `paletteOrders` (identical palettes once), then the direct encoding. A gray image with at
  /// most 256 shades gets palettes too: indices of a sorted palette can compress better than
  /// the gray values themselves when the image uses few of them.
  ///
  /// The image ends here: the direct encoding takes over its pixels (see `directEncoding`).
  mutating func candidates(
    analysis: Analysis, paletteOrders: [PaletteOrder], alwaysDirect: Bool
  ) -> [PNGEncoding] {
    var result: [PNGEncoding] = []
    if let colors = analysis.colors {
      var seen = Set<[UInt8]>()
      for order in paletteOrders {
        guard let encoding = paletteEncoding(colors: colors, order: order) else { continue }
        if seen.insert(encoding.palette + (encoding.transparency ?? [])).inserted {
          result.append(encoding)
        }
      }
    }
    let image = self.image
    self.image.pixels = []
    let direct = Self.directEncoding(of: consume image, metadata: metadata, analysis: analysis)
    // With a palette available, big true-colour candidates practically never win (3-4 bytes
    // a pixel against at most 1): their trials are skipped.
    if result.isEmpty || direct.colorType == .gray || direct.colorType == .grayAlpha
      || direct.rows.count <= 64 * 1024 || alwaysDirect
    {
      result.append(direct)
    }
    return result
  }

  /// Gray, gray+alpha, RGB or RGBA at the image's depth (gray possibly packed), with a tRNS
  /// colour key instead of an alpha channel when that is exact.
  func directEncoding(_ analysis: Analysis) -> PNGEncoding {
    Self.directEncoding(of: image, metadata: metadata, analysis: analysis)
  }

  /// `directEncoding(_:)` of `image`, which ends here. At 8 and 16 bits the samples kept are
  /// moved forward within the pixels' own buffer when `image` holds it alone, and the pages
  /// the dropped channels used are given back: an RGB photograph is never held as RGBA and RGB
  /// at once (4 + 3 bytes a pixel, 2.3 times the decoded image in all).
  static func directEncoding(
    of image: consuming PNGImage, metadata: CanonicalMetadata, analysis: Analysis
  ) -> PNGEncoding {
    let depth = image.sampleDepth
    let useKey = !analysis.opaque && analysis.transparentKey != nil
    let dropAlpha = analysis.opaque || useKey
    let colorType: PNGColorType =
      analysis.gray ? (dropAlpha ? .gray : .grayAlpha) : (dropAlpha ? .rgb : .rgba)
    let bitDepth = colorType == .gray && depth == 8 ? analysis.grayDepth : depth
    let graySCale = bitDepth < 8 ? 255 / ((1 << bitDepth) - 1) : 1
    var encoding = PNGEncoding(
      width: image.width, height: image.height, colorType: colorType, bitDepth: bitDepth,
      rows: [], rowBytes: (image.width * colorType.channels * bitDepth + 7) / 8)
    if useKey, let key = analysis.transparentKey {
      var trns: [UInt8] = []
      for value in colorType == .gray ? [key[0]] : key { trns.appendBigEndian16(UInt16(value / graySCale)) }
      encoding.transparency = trns
    }
    if let background = metadata.background {
      var data: [UInt8] = []
      for value in colorType == .gray || colorType == .grayAlpha ? [background[0]] : background {
        data.appendBigEndian16(UInt16(value / graySCale))
      }
      encoding.background = data
    }
    if let bits = metadata.significantBits {
      let channels: [Int]
      switch colorType {
      case .gray: channels = [bits[0...2].max()!]
      case .grayAlpha: channels = [bits[0...2].max()!, bits[3]]
      case .rgb: channels = Array(bits[0...2])
      default: channels = bits
      }
      encoding.significantBits = PNGEncoding.significantBits(channels, depth: bitDepth)
    }
    let bytesPerSample = depth / 8
    let channels = colorType.channels
    if channels == 4 {
      // RGBA at the image's depth: the rows are the pixels, shared rather than copied.
      encoding.rows = image.pixels
      return encoding
    }
    if bitDepth >= 8 {
      let kept: [Int]
      switch colorType {
      case .gray: kept = [0]
      case .grayAlpha: kept = [0, 3]
      default: kept = [0, 1, 2]
      }
      var rows = image.pixels
      image.pixels = []
      let count = encoding.rowBytes * image.height
      rows.withUnsafeMutableBufferPointer { p in
        // Each sample moves to an offset at or before its own, after every earlier one moved.
        var out = 0
        var i = 0
        let stride = 4 * bytesPerSample
        while out < count {
          for s in kept {
            for k in 0..<bytesPerSample {
              p[out] = p[i + s * bytesPerSample + k]
              out += 1
            }
          }
          i += stride
        }
      }
      rows.truncate(to: count, spare: image.height)
      encoding.rows = rows
      return encoding
    }
    // Gray packed below 8 bits: a new, smaller array.
    var rows = [UInt8].rows(count: encoding.rowBytes * image.height, spare: image.height)
    image.pixels.withUnsafeBufferPointer { p in
      rows.withUnsafeMutableBufferPointer { o in
        let stride = 4 * bytesPerSample
        let perByte = 8 / bitDepth
        for y in 0..<image.height {
          let rowStart = y * encoding.rowBytes
          for x in 0..<image.width {
            let value = Int(p[(y * image.width + x) * stride]) / graySCale
            let shift = 8 - bitDepth * (x % perByte + 1)
            o[rowStart + x / perByte] |= UInt8(value << shift)
          }
        }
      }
    }
    encoding.rows = rows
    return encoding
  }

  /// A palette encoding of the image's colours (at most 256) in `order`; entries with
  /// transparency come first, so that tRNS stays short.
  func paletteEncoding(colors: [(rgba: UInt32, count: Int)], order: PaletteOrder) -> PNGEncoding? {
    var entries = colors
    var backgroundIndex: Int?
    if let background = metadata.background {
      let rgb = UInt32(background[0]) << 24 | UInt32(background[1]) << 16 | UInt32(background[2]) << 8
      if !entries.contains(where: { $0.rgba & 0xFFFF_FF00 == rgb }) {
        entries.append((rgb | 0xFF, 0))
      }
    }
    guard entries.count <= 256 else { return nil }
    entries = ordered(entries, order)
    let depth = entries.count <= 2 ? 1 : entries.count <= 4 ? 2 : entries.count <= 16 ? 4 : 8
    var palette: [UInt8] = []
    var alphas: [UInt8] = []
    var index = ColorTable()
    for (position, entry) in entries.enumerated() {
      palette.append(UInt8(entry.rgba >> 24))
      palette.append(UInt8((entry.rgba >> 16) & 0xFF))
      palette.append(UInt8((entry.rgba >> 8) & 0xFF))
      alphas.append(UInt8(entry.rgba & 0xFF))
      _ = index.add(entry.rgba, value: position)
    }
    if let background = metadata.background {
      let rgb = UInt32(background[0]) << 24 | UInt32(background[1]) << 16 | UInt32(background[2]) << 8
      backgroundIndex = entries.firstIndex { $0.rgba & 0xFFFF_FF00 == rgb }
    }
    while let last = alphas.last, last == 255 { alphas.removeLast() }
    let rowBytes = (image.width * depth + 7) / 8
    var rows = [UInt8].rows(count: rowBytes * image.height, spare: image.height)
    let perByte = 8 / depth
    image.pixels.withUnsafeBufferPointer { p in
      rows.withUnsafeMutableBufferPointer { o in
        var previous: UInt32 = 0
        var previousIndex = index.value(
          of: UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3]))
        for y in 0..<image.height {
          let rowStart = y * rowBytes
          for x in 0..<image.width {
            let i = 4 * (y * image.width + x)
            let key = UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
            if key != previous {
              previous = key
              previousIndex = index.value(of: key)
            }
            if depth == 8 {
              o[rowStart + x] = UInt8(previousIndex)
            } else {
              o[rowStart + x / perByte] |= UInt8(previousIndex << (8 - depth * (x % perByte + 1)))
            }
          }
        }
      }
    }
    var encoding = PNGEncoding(
      width: image.width, height: image.height, colorType: .palette, bitDepth: depth,
      palette: palette, transparency: alphas.isEmpty ? nil : alphas, rows: rows, rowBytes: rowBytes)
    if let backgroundIndex { encoding.background = [UInt8(backgroundIndex)] }
    if let bits = metadata.significantBits {
      encoding.significantBits = PNGEncoding.significantBits(Array(bits[0...2]), depth: 8)
    }
    return encoding
  }

  /// `entries` in palette order: transparent entries first (by alpha), then the opaque ones by
  /// `order`.
  func ordered(_ entries: [(rgba: UInt32, count: Int)], _ order: PaletteOrder) -> [(rgba: UInt32, count: Int)]
  {
    func luminance(_ c: UInt32) -> Int {
      Int(c >> 24) * 299 + Int((c >> 16) & 0xFF) * 587 + Int((c >> 8) & 0xFF) * 114
    }
    var sorted = entries.sorted { lhs, rhs in
      let la = lhs.rgba & 0xFF, ra = rhs.rgba & 0xFF
      if (la == 255) != (ra == 255) { return la != 255 }
      if la != 255 && la != ra { return la < ra }
      switch order {
      case .frequency, .cooccurrence:
        if lhs.count != rhs.count { return lhs.count > rhs.count }
      case .luminance:
        let l = luminance(lhs.rgba), r = luminance(rhs.rgba)
        if l != r { return l < r }
      }
      return lhs.rgba < rhs.rgba
    }
    guard order == .cooccurrence else { return sorted }
    let transparent = sorted.prefix { $0.rgba & 0xFF != 255 }.count
    let opaque = Array(sorted[transparent...])
    guard opaque.count > 2 else { return sorted }
    sorted.replaceSubrange(transparent..., with: cooccurrenceChain(opaque))
    return sorted
  }

  /// `colors` (opaque, most frequent first) as a chain in which each colour is followed by the
  /// unused one it touches most often in the image (left/right and up/down neighbours), so
  /// that neighbouring pixels get neighbouring indices and the row filters see small steps.
  func cooccurrenceChain(_ colors: [(rgba: UInt32, count: Int)]) -> [(rgba: UInt32, count: Int)] {
    let n = colors.count
    var index = ColorTable()
    for (position, color) in colors.enumerated() { _ = index.add(color.rgba, value: position) }
    var touches = [UInt32](repeating: 0, count: n * n)
    let width = image.width
    var above = [Int](repeating: -1, count: width)
    image.pixels.withUnsafeBufferPointer { p in
      var previousKey: UInt32 = 0
      var previousIndex = -1
      for y in 0..<image.height {
        var left = -1
        for x in 0..<width {
          let i = 4 * (y * width + x)
          let key = UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
          if key != previousKey || previousIndex < 0 {
            previousKey = key
            previousIndex = key & 0xFF == 0xFF ? index.lookup(key) ?? -1 : -1
          }
          let current = previousIndex
          if current >= 0 {
            if left >= 0 && left != current {
              touches[left * n + current] &+= 1
              touches[current * n + left] &+= 1
            }
            let up = above[x]
            if up >= 0 && up != current {
              touches[up * n + current] &+= 1
              touches[current * n + up] &+= 1
            }
          }
          left = current
          above[x] = current
        }
      }
    }
    var used = [Bool](repeating: false, count: n)
    var chain: [Int] = [0]
    used[0] = true
    for _ in 1..<n {
      let last = chain[chain.count - 1]
      var best = -1
      var bestTouches: UInt32 = 0
      for candidate in 0..<n where !used[candidate] {
        let t = touches[last * n + candidate]
        if best < 0 || t > bestTouches {  // ties: the more frequent (earlier) colour
          best = candidate
          bestTouches = t
        }
      }
      used[best] = true
      chain.append(best)
    }
    return chain.map { colors[$0] }
  }
}

/// How palette entries are ordered: the order changes no pixel, only how well the indices
/// compress (sorts after oxipng's and pngquant's).
enum PaletteOrder: Sendable, Hashable, CaseIterable {
  /// The most used colours first.
  case frequency
  /// Dark to light: neighbouring shades of a photograph get neighbouring indices.
  case luminance
  /// A chain of colours that touch each other in the image.
  case cooccurrence
}

/// A small open-addressing table of up to 256 distinct 32-bit colours.
struct ColorTable {
  private var keys = [UInt32](repeating: 0, count: 1024)
  private var values = [Int](repeating: 0, count: 1024)
  private var used = [Bool](repeating: false, count: 1024)
  private(set) var count = 0

  /// Counts `key`; false when it would be the 257th distinct colour.
  mutating func add(_ key: UInt32, value: Int? = nil) -> Bool {
    var slot = Int((key &* 0x9E37_79B1) >> 22)
    while used[slot] {
      if keys[slot] == key {
        if value == nil { values[slot] += 1 }
        return true
      }
      slot = (slot + 1) & 1023
    }
    if count == 256 { return false }
    used[slot] = true
    keys[slot] = key
    values[slot] = value ?? 1
    count += 1
    return true
  }

  /// The value stored for `key` (its index in a palette), 0 when the table does not hold it.
  func value(of key: UInt32) -> Int { lookup(key) ?? 0 }

  /// The value stored for `key`, or nil when the table does not hold it.
  func lookup(_ key: UInt32) -> Int? {
    var slot = Int((key &* 0x9E37_79B1) >> 22)
    while used[slot] {
      if keys[slot] == key { return values[slot] }
      slot = (slot + 1) & 1023
    }
    return nil
  }

  func entries() -> [(rgba: UInt32, count: Int)] {
    (0..<1024).filter { used[$0] }.map { (keys[$0], values[$0]) }
  }
}

extension [UInt8] {
  /// Keeps the first `count` bytes and hands the pages of the capacity beyond `count + spare`
  /// back to the kernel (`MADV_DONTNEED`): after samples were compacted in place, the memory
  /// the dropped ones used stops counting against the process, while `spare` bytes stay for
  /// the filter bytes of in-place filtering. The pages lie inside the array's own allocation
  /// and read as zeros if touched again, so the allocator sees no change.
  mutating func truncate(to count: Int, spare: Int) {
    removeLast(self.count - count)
    let capacity = self.capacity
    withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      let page = Int(sysconf(Int32(_SC_PAGESIZE)))
      let start = (Int(bitPattern: base) + count + spare + page - 1) / page * page
      let end = (Int(bitPattern: base) + capacity) / page * page
      if end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) {
        _ = madvise(pointer, end - start, MADV_DONTNEED)
      }
    }
  }

  /// `count` zero bytes with room for `spare` more (the filter bytes of in-place filtering).
  static func rows(count: Int, spare: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count + spare) { buffer, initialized in
      buffer.initialize(repeating: 0)
      initialized = count
    }
  }
}
