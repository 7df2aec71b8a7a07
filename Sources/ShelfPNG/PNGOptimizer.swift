import Dispatch
import Synchronization

/// The outcome of crushing one PNG.
public struct PNGOptimizationResult: Sendable {
  /// The bytes to write: the new encoding, or the original when nothing smaller was found.
  public var bytes: [UInt8]
  /// The input's size in bytes.
  public var originalSize: Int
  /// Whether `bytes` differ from the input (false: the file is left as it is).
  public var changed: Bool
  /// What was chosen, e.g. "palette 4-bit, filter none"; why nothing changed otherwise.
  public var summary: String
  /// Whether the output is a CgBI file.
  public var isCgBI: Bool
}

/// Crushes PNG files losslessly: exact reductions, filter trials, libdeflate/zopfli, and a
/// verification decode of the result before it is returned.
public struct PNGOptimizer: Sendable {
  public var options: PNGOptimizationOptions

  public init(options: PNGOptimizationOptions = PNGOptimizationOptions()) {
    self.options = options
  }

  /// Optimizes a whole PNG (or CgBI) file held in memory.
  public func optimize(bytes: [UInt8]) throws(PNGError) -> PNGOptimizationResult {
    let decoded = try PNGDecoder(pixelLimit: options.pixelLimit).decode(bytes: bytes)
    let unchanged = { (why: String) in
      PNGOptimizationResult(
        bytes: bytes, originalSize: bytes.count, changed: false, summary: why,
        isCgBI: decoded.isCgBI)
    }
    if decoded.isAnimated { return unchanged("animated PNG kept as it is") }

    let output: [UInt8]
    let summary: String
    let writesCgBI: Bool
    let conversion: Bool
    if decoded.isCgBI && options.cgbi != .revertToStandard {
      (output, summary) = encodeCgBI(decoded.image, chunks: decoded.chunks)
      writesCgBI = true
      conversion = false
    } else if options.cgbi == .convertToCgBI && !decoded.isCgBI {
      var image = decoded.image
      if image.sampleDepth == 16 {
        guard Reducer.canReduceTo8Bit(image, background: nil) else {
          throw PNGError(.unsupported("CgBI needs 8-bit samples; this image has 16-bit detail"))
        }
        image = Reducer.reducedTo8Bit(image)
      }
      (output, summary) = encodeCgBI(CgBI.premultiplied(image), chunks: decoded.chunks)
      writesCgBI = true
      conversion = true
    } else {
      var image = decoded.image
      var chunks = decoded.chunks
      var colorType = decoded.colorType
      var bitDepth = decoded.bitDepth
      if decoded.isCgBI {
        image = CgBI.unpremultiplied(image)
        chunks = chunks.filter { !$0.is("bKGD") && !$0.is("sBIT") && !$0.is("hIST") }
        colorType = .rgba
        bitDepth = 8
      }
      (output, summary) = try encodeStandard(
        image, chunks: chunks, colorType: colorType, bitDepth: bitDepth)
      writesCgBI = false
      conversion = decoded.isCgBI
    }

    // Verify: the output must decode to the same pixels before anyone writes it.
    let check: PNGDecodedFile
    do {
      check = try PNGDecoder(pixelLimit: options.pixelLimit).decode(bytes: output)
    } catch {
      throw PNGError(.verificationFailed("output does not decode: \(error.message)"))
    }
    var reference = decoded.image
    if writesCgBI && !decoded.isCgBI {
      reference = CgBI.premultiplied(
        reference.sampleDepth == 16 ? Reducer.reducedTo8Bit(reference) : reference)
    } else if !writesCgBI && decoded.isCgBI {
      reference = CgBI.unpremultiplied(reference)
    }
    let ignoreTransparent = options.cleanTransparentColor && !writesCgBI
    guard check.image.hasSamePixels(as: reference, ignoringTransparentColor: ignoreTransparent)
    else {
      throw PNGError(.verificationFailed("pixels differ after re-decoding"))
    }

    if !conversion && output.count >= bytes.count {
      return unchanged("already optimal: no smaller encoding found (best \(output.count): \(summary))")
    }
    return PNGOptimizationResult(
      bytes: output, originalSize: bytes.count, changed: true, summary: summary,
      isCgBI: writesCgBI)
  }

  // MARK: - Standard PNG

  private func encodeStandard(
    _ source: PNGImage, chunks: [PNGChunk], colorType: PNGColorType, bitDepth: Int
  ) throws(PNGError) -> ([UInt8], String) {
    var metadata = CanonicalMetadata(chunks: chunks, colorType: colorType, bitDepth: bitDepth)
    if options.strip != .none { metadata.background = nil }
    if !options.strip.keeps("sBIT") { metadata.significantBits = nil }
    var image = source
    if options.cleanTransparentColor { image = Reducer.cleanedTransparentColor(image) }
    if Reducer.canReduceTo8Bit(image, background: metadata.background) {
      image = Reducer.reducedTo8Bit(image)
      metadata.background = metadata.background?.map { $0 / 257 }
    }
    let reducer = Reducer(image: image, metadata: metadata)
    let analysis = reducer.analyze()
    let level = options.level
    let candidates = reducer.candidates(analysis: analysis, paletteOrders: level.paletteOrders)

    // Trials: (candidate, strategy) pairs compressed fast; the best few get the final pass.
    var trials: [(candidate: Int, strategy: FilterStrategy)] = []
    var trialLevel = level.trialDeflateLevel
    if level.rawValue == 0 {
      let first = candidates[0]
      let strategy: FilterStrategy =
        first.colorType == .palette || first.bitDepth < 8 ? .fixed(0) : .minimumSum
      trials = [(0, strategy)]
    } else {
      // Small images: trials at the final level with every strategy cost little and win bytes.
      let small = candidates.allSatisfy { $0.rows.count <= Self.smallImageBytes }
      let strategies = level.strategies
      trialLevel = small ? min(12, level.finalDeflateLevel) : level.trialDeflateLevel
      for index in candidates.indices {
        for strategy in strategies {
          // Brute force on a big image costs more than it can win over the heuristics.
          if strategy == .bruteForce && candidates[index].rows.count > 4_000_000 { continue }
          trials.append((index, strategy))
        }
      }
    }
    let allTrials = trials
    let chosenTrialLevel = trialLevel
    var ranked: [(candidate: Int, strategy: FilterStrategy, size: Int)]
    if trials.count == 1 {
      ranked = [(trials[0].candidate, trials[0].strategy, 0)]
    } else {
      let sizes = parallelMap(trials.count) { index -> Int in
        let trial = allTrials[index]
        let encoding = candidates[trial.candidate]
        let filtered = RowFilter.filter(encoding, strategy: trial.strategy)
        let sample = Self.trialSample(filtered, lineLength: encoding.rowBytes + 1)
        let size = sample.withUnsafeBytes { Deflate.zlibSize($0, level: chosenTrialLevel) }
        // Scale a sampled size up to the whole image, and count PLTE and tRNS.
        let scaled = Int(Double(size) * Double(filtered.count) / Double(max(1, sample.count)))
        return scaled + encoding.overheadBytes
      }
      ranked = trials.indices.map { (trials[$0].candidate, trials[$0].strategy, sizes[$0]) }
      ranked.sort { $0.size < $1.size }
    }
    let finalists = Array(ranked.prefix(level.finalists))
    let finals = parallelMap(finalists.count) { index -> [UInt8] in
      let finalist = finalists[index]
      let filtered = RowFilter.filter(candidates[finalist.candidate], strategy: finalist.strategy)
      return filtered.withUnsafeBytes { data -> [UInt8] in
        if level.usesZopfli {
          let zopfli = Deflate.zopfli(data, iterations: level.zopfliIterations(for: data.count))
          let deflate = Deflate.zlib(data, level: 12)
          return zopfli.count <= deflate.count ? zopfli : deflate
        }
        return Deflate.zlib(data, level: level.finalDeflateLevel)
      }
    }
    let best = finals.indices.min { finals[$0].count < finals[$1].count }!
    let encoding = candidates[finalists[best].candidate]
    let file = assemble(encoding: encoding, idat: finals[best], chunks: chunks)
    return (file, "\(encoding.label), filter \(finalists[best].strategy)")
  }

  /// Images whose packed rows are at most this size get trials at the final level.
  static let smallImageBytes = 16 * 1024

  /// The largest amount of filtered data a trial compresses; bigger images are sampled.
  static let trialSampleLimit = 768 * 1024

  /// Evenly spaced bands of whole rows from filtered data, at most `trialSampleLimit` bytes,
  /// so that trials on big images stay fast while ranking strategies as the whole would.
  static func trialSample(_ filtered: [UInt8], lineLength: Int) -> [UInt8] {
    guard filtered.count > trialSampleLimit else { return filtered }
    let rows = filtered.count / lineLength
    let bandRows = max(1, min(rows, 65536 / lineLength, 32))
    let bands = max(1, trialSampleLimit / (bandRows * lineLength))
    let bandCount = rows / bandRows
    guard bands < bandCount else { return filtered }
    var out: [UInt8] = []
    out.reserveCapacity(bands * bandRows * lineLength)
    for band in 0..<bands {
      let first = (band * bandCount / bands) * bandRows
      out.append(contentsOf: filtered[(first * lineLength)..<((first + bandRows) * lineLength)])
    }
    return out
  }

  /// Chunks before PLTE in a standard file.
  static let beforePalette: Set<String> = ["cHRM", "gAMA", "iCCP", "sRGB", "cICP", "mDCv", "cLLi"]
  /// Chunks the rewrite regenerates or invalidates.
  static let regenerated: Set<String> = [
    "CgBI", "iDOT", "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "bKGD", "sBIT", "hIST",
  ]

  /// Splits the input's ancillary chunks that survive into (before IDAT, after IDAT).
  private func keptChunks(_ chunks: [PNGChunk]) -> (before: [PNGChunk], after: [PNGChunk]) {
    var before: [PNGChunk] = []
    var after: [PNGChunk] = []
    var seenData = false
    for chunk in chunks {
      let name = chunk.name
      if name == "IDAT" { seenData = true }
      if Self.regenerated.contains(name) || !options.strip.keeps(name) { continue }
      if seenData { after.append(chunk) } else { before.append(chunk) }
    }
    return (before, after)
  }

  private func assemble(encoding: PNGEncoding, idat: [UInt8], chunks: [PNGChunk]) -> [UInt8] {
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(encoding.width))
    header.appendBigEndian(UInt32(encoding.height))
    header.append(contentsOf: [UInt8(encoding.bitDepth), UInt8(encoding.colorType.rawValue), 0, 0, 0])
    let (before, after) = keptChunks(chunks)
    var out: [PNGChunk] = [PNGChunk("IHDR", data: header)]
    out += before.filter { Self.beforePalette.contains($0.name) }
    if let bits = encoding.significantBits { out.append(PNGChunk("sBIT", data: bits)) }
    if encoding.colorType == .palette { out.append(PNGChunk("PLTE", data: encoding.palette)) }
    if let trns = encoding.transparency { out.append(PNGChunk("tRNS", data: trns)) }
    if let background = encoding.background { out.append(PNGChunk("bKGD", data: background)) }
    out += before.filter { !Self.beforePalette.contains($0.name) }
    out.append(PNGChunk("IDAT", data: idat))
    out += after
    out.append(PNGChunk("IEND", data: []))
    return PNGChunkWriter().bytes(of: out)
  }

  // MARK: - CgBI

  private func encodeCgBI(_ image: PNGImage, chunks: [PNGChunk]) -> ([UInt8], String) {
    let opaque = CgBI.isOpaque(image)
    let (cgbi, header, data) = CgBI.imageChunks(image, opaque: opaque, level: options.level)
    let (before, after) = keptChunks(chunks)
    var out = [cgbi, header]
    out += before
    out.append(PNGChunk("IDAT", data: data))
    out += after
    out.append(PNGChunk("IEND", data: []))
    return (PNGChunkWriter().bytes(of: out), "CgBI \(opaque ? "opaque" : "premultiplied alpha")")
  }

  // MARK: - Parallel trials

  /// `body(0..<count)` on up to `options.parallelTrials` threads, results in order.
  private func parallelMap<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
    let width = max(1, min(options.parallelTrials, count))
    if width == 1 { return (0..<count).map(body) }
    let results = Mutex<[T?]>(Array(repeating: nil, count: count))
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: width) { _ in
      while true {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        if index >= count { break }
        let value = body(index)
        results.withLock { $0[index] = value }
      }
    }
    return results.withLock { $0.map { $0! } }
  }
}

extension PNGError {
  /// The message without a path, for wrapping in another error.
  fileprivate static func describe(_ error: PNGError) -> String { error.message }
}
