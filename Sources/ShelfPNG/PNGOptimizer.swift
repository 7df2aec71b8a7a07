internal import CPNGSupport
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
  /// The size of the smallest encoding made, kept or not (nil when none was made): when it is
  /// not below `originalSize`, the input's bytes are kept and a report can say by how much
  /// the new encoding would have grown the file.
  public var smallestEncoding: Int?
  /// What the user should know about this file's output: a lossy step, dropped chunks.
  public var notes: [PNGOptimizationNote] = []
}

/// Something a crush did that is not lossless or keeps less than the input held: reported to
/// the user, never silent.
public enum PNGOptimizationNote: Sendable, Equatable, CustomStringConvertible {
  /// 16-bit samples were rounded to 8 bits to write CgBI, which holds 8-bit samples only
  /// (rounded as libpng's `png_set_scale_16` does: `(v·255 + 32895) >> 16`).
  case roundedTo8Bit
  /// An ancillary chunk libpng rejects was left out of the output.
  case droppedChunk(PNGRejectedChunk)

  public var description: String {
    switch self {
    case .roundedTo8Bit: return "16-bit samples rounded to 8 bits for CgBI (lossy)"
    case .droppedChunk(let chunk): return "dropped \(chunk)"
    }
  }
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
    let decoder = PNGDecoder(pixelLimit: options.pixelLimit, maxDecodedBytes: options.maxDecodedBytes)
    var decoded = try decoder.decode(bytes: bytes)
    // Chunks libpng rejects are left out of every output; the rest keep their order.
    let rejected = Set(decoded.rejectedChunks.map(\.index))
    let survivors = decoded.chunks.indices.filter { !rejected.contains($0) }.map { decoded.chunks[$0] }
    var notes = decoded.rejectedChunks.map(PNGOptimizationNote.droppedChunk)
    // What a new encoding must beat: the input, or the input without its rejected chunks.
    let baseline = rejected.isEmpty ? bytes : PNGChunkWriter().bytes(of: survivors)
    let kept = { (why: String, smallest: Int?) -> PNGOptimizationResult in
      let count = decoded.rejectedChunks.count
      return PNGOptimizationResult(
        bytes: baseline, originalSize: bytes.count, changed: !rejected.isEmpty,
        summary: rejected.isEmpty ? why : "\(why); \(count) invalid chunk\(count == 1 ? "" : "s") dropped",
        isCgBI: decoded.isCgBI, smallestEncoding: smallest, notes: notes)
    }
    if decoded.isAnimated {
      // Frames are recompressed with their filtered bytes untouched, or the file is kept.
      guard !decoded.isCgBI,
        let output = try AnimatedPNG.recompress(
          survivors, colorType: decoded.colorType, bitDepth: decoded.bitDepth,
          interlaced: decoded.interlaced, level: options.level, strip: options.strip),
        output.count < baseline.count,
        let check = try? decoder.decode(bytes: output),
        check.image == decoded.image
      else { return kept("animated PNG kept as it is", nil) }
      return PNGOptimizationResult(
        bytes: output, originalSize: bytes.count, changed: true,
        summary: "animated PNG, frames recompressed", isCgBI: false, smallestEncoding: output.count,
        notes: notes)
    }

    // The image data is made anew: the input's IDAT payloads (kept in place for the order of
    // the chunks around them) are not held while the pixels are crushed.
    let chunks = (consume survivors).map { $0.is("IDAT") ? PNGChunk(type: $0.type, data: []) : $0 }
    decoded.chunks = []
    let writesCgBI = decoded.isCgBI ? options.cgbi != .revertToStandard : options.cgbi == .convertToCgBI
    let conversion = writesCgBI != decoded.isCgBI
    let ignoreTransparent = options.cleanTransparentColor && !writesCgBI
    // What the output must decode to, row by row, taken before the pixels are transformed in
    // place: the image is then held once, by the encoder.
    let reference = RowDigests(
      decoded.image,
      transform: writesCgBI && !decoded.isCgBI
        ? .premultiply
        : !writesCgBI && decoded.isCgBI ? .unpremultiply : .none,
      ignoringTransparentColor: ignoreTransparent)
    var image = decoded.image
    decoded.image.pixels = []

    let output: [UInt8]
    let summary: String
    if writesCgBI && !conversion {
      (output, summary) = encodeCgBI(consume image, chunks: chunks)
    } else if writesCgBI {
      // CgBI holds 8-bit samples: 16-bit ones are rounded (exactly when every sample is a
      // multiple of 257), as Xcode's pngcrush does through libpng.
      if image.sampleDepth == 16 && !Reducer.canReduceTo8Bit(image, background: nil) {
        notes.insert(.roundedTo8Bit, at: 0)
      }
      CgBI.premultiply(&image)
      (output, summary) = encodeCgBI(consume image, chunks: chunks)
    } else {
      var chunks = chunks
      var colorType = decoded.colorType
      var bitDepth = decoded.bitDepth
      if decoded.isCgBI {
        CgBI.unpremultiply(&image)
        chunks = chunks.filter { !$0.is("bKGD") && !$0.is("sBIT") && !$0.is("hIST") }
        colorType = .rgba
        bitDepth = 8
      }
      (output, summary) = try encodeStandard(
        consume image, chunks: chunks, colorType: colorType, bitDepth: bitDepth)
    }

    // Verify: the output must decode to the same pixels before anyone writes it.
    try reference.verify(output, decoder: decoder)

    if !conversion && output.count >= baseline.count {
      return kept("no smaller encoding found (best: \(summary))", output.count)
    }
    return PNGOptimizationResult(
      bytes: output, originalSize: bytes.count, changed: true, summary: summary,
      isCgBI: writesCgBI, smallestEncoding: output.count, notes: notes)
  }

  // MARK: - Standard PNG

  private func encodeStandard(
    _ source: consuming PNGImage, chunks: [PNGChunk], colorType: PNGColorType, bitDepth: Int
  ) throws(PNGError) -> ([UInt8], String) {
    var metadata = CanonicalMetadata(chunks: chunks, colorType: colorType, bitDepth: bitDepth)
    if options.strip != .none { metadata.background = nil }
    if !options.strip.keeps("sBIT") { metadata.significantBits = nil }
    var image = consume source
    if options.cleanTransparentColor { Reducer.cleanTransparentColor(&image) }
    if Reducer.canReduceTo8Bit(image, background: metadata.background) {
      image = Reducer.reducedTo8Bit(consume image)
      metadata.background = metadata.background?.map { $0 / 257 }
    }
    let level = options.level
    // The image ends here: the direct encoding takes over its pixels, the others are new arrays.
    var candidates = Self.candidates(of: consume image, metadata: metadata, level: level)

    var ranked: [(plan: Plan, size: Int)]
    let screening = level.screeningStrategies
    if candidates.count > 1, !screening.isEmpty {
      // As oxipng does: every candidate encoding with a few filter strategies, then the other
      // strategies on the best encoding only.
      ranked = rank(plans(for: candidates, strategies: screening), of: candidates)
      let winner = ranked[0].plan.candidate
      let others = level.strategies.filter { !screening.contains($0) }
      ranked += rank(plans(for: candidates, only: winner, strategies: others), of: candidates)
      ranked.sort { $0.size < $1.size }
    } else {
      let all = plans(for: candidates, strategies: level.strategies)
      // A single plan needs no trial.
      ranked = all.count > 1 ? rank(all, of: candidates) : all.map { ($0, 0) }
    }
    // The best trials are compressed at the final level and the smallest file wins: the trial
    // level can rank two close candidates the other way round.
    let imageBytes = candidates.map(\.rows.count).max() ?? 0
    // Others than the best only when their trials came close to it (within `closeCall`).
    let finalists = ranked.prefix(level.finalists(imageBytes: imageBytes)).filter {
      Double($0.size) <= Double(ranked[0].size) * (1 + PNGOptimizationLevel.closeCall)
    }.map(\.plan)
    let finalLevel = level.finalDeflateLevel(imageBytes: imageBytes)
    // The trials' samples and outputs are freed; on a big image the allocator is told to hand
    // their pages back before the longest step, which holds the pixels and a compressor.
    if imageBytes > Self.bigImageTrimBytes { shelf_png_release_free_memory() }
    let finish = { @Sendable (data: UnsafeRawBufferPointer) -> [UInt8] in
      var final = Deflate.zlib(data, level: finalLevel)
      // libdeflate's levels are not monotonic: on small data the strongest is nearly free
      // and sometimes a few bytes smaller.
      if finalLevel < 12, data.count <= Self.cheapStrongestBytes {
        let strongest = Deflate.zlib(data, level: 12)
        if strongest.count < final.count { final = strongest }
      }
      return Deflate.smallest(final, orEntropyCodingOf: data)
    }
    var finals: [[UInt8]]
    if finalists.count == 1 || imageBytes > Self.inPlaceBytes {
      // One at a time, each filtered in place: the pixels are held once.
      finals = finalists.map { plan in
        Self.withFiltered(&candidates[plan.candidate], plan, finish)
      }
    } else {
      let shared = candidates
      finals = parallelMap(finalists.count) { index -> [UInt8] in
        let filtered = Self.filtered(shared[finalists[index].candidate], finalists[index])
        return filtered.withUnsafeBytes(finish)
      }
    }
    // A palette's PLTE and tRNS count as well as the image data.
    let fileSizes = finals.indices.map {
      finals[$0].count + candidates[finalists[$0].candidate].overheadBytes
    }
    let best = fileSizes.indices.min { fileSizes[$0] < fileSizes[$1] }!
    var winner = finalists[best]
    var idat = finals[best]
    finals = []
    if level.usesZopfli {
      (winner, idat) = zopfliWinner(
        of: &candidates, ranked: ranked, libdeflateWinner: winner, idat: idat,
        imageBytes: imageBytes)
    }
    // The file needs the winner's header, palette and image data, not its pixels.
    var encoding = candidates[winner.candidate]
    encoding.rows = []
    candidates = []
    let file = assemble(encoding: encoding, idat: idat, chunks: chunks)
    return (file, "\(encoding.label), filter \(winner.strategy)")
  }

  /// Zopfli on the libdeflate winner and, on small images, on the other trials that came
  /// close: zopfli's smallest is often another filtering than libdeflate's (oxipng's
  /// strongest setting compresses every one with zopfli), and on small images each run is
  /// cheap. Returns the plan and image data of the smallest file, `idat` included.
  private func zopfliWinner(
    of candidates: inout [PNGEncoding], ranked: [(plan: Plan, size: Int)],
    libdeflateWinner: Plan, idat: [UInt8], imageBytes: Int
  ) -> (Plan, [UInt8]) {
    let level = options.level
    var contenders = [libdeflateWinner]
    let limit = Double(ranked[0].size) * (1 + PNGOptimizationLevel.zopfliCloseCall)
    for entry in ranked where Double(entry.size) <= limit {
      if contenders.count >= level.zopfliContenders(imageBytes: imageBytes) { break }
      let plan = entry.plan
      if !contenders.contains(where: { $0.candidate == plan.candidate && $0.strategy == plan.strategy }) {
        contenders.append(plan)
      }
    }
    let compress = { @Sendable (data: UnsafeRawBufferPointer) -> [UInt8] in
      Deflate.zopfli(data, iterations: level.zopfliIterations(for: data.count))
    }
    let outputs: [[UInt8]]
    if contenders.count == 1 || imageBytes > Self.inPlaceBytes {
      outputs = contenders.map { Self.withFiltered(&candidates[$0.candidate], $0, compress) }
    } else {
      let shared = candidates
      let plans = contenders
      outputs = parallelMap(plans.count) { index -> [UInt8] in
        Self.filtered(shared[plans[index].candidate], plans[index]).withUnsafeBytes(compress)
      }
    }
    var best = (plan: libdeflateWinner, idat: idat)
    var bestSize = idat.count + candidates[libdeflateWinner.candidate].overheadBytes
    for (plan, output) in zip(contenders, outputs) where !output.isEmpty {
      let size = output.count + candidates[plan.candidate].overheadBytes
      if size < bestSize { (best, bestSize) = ((plan, output), size) }
    }
    return best
  }

  /// The candidate encodings of `image`, which ends here (the direct encoding takes its pixels).
  private static func candidates(
    of image: consuming PNGImage, metadata: CanonicalMetadata, level: PNGOptimizationLevel
  ) -> [PNGEncoding] {
    var reducer = Reducer(image: consume image, metadata: metadata)
    return reducer.candidates(
      analysis: reducer.analyze(), paletteOrders: level.paletteOrders,
      alwaysDirect: level.alwaysTriesDirect)
  }

  /// Images whose packed rows exceed this return the trials' memory to the system before
  /// their final compression.
  static let bigImageTrimBytes = 4 * 1024 * 1024

  /// Images whose packed rows exceed this are compressed one finalist at a time, filtered in
  /// place, rather than in parallel from filtered copies.
  static let inPlaceBytes = 16 * 1024 * 1024

  /// `body` over `encoding`'s rows filtered as `plan` says: in place (restored afterwards)
  /// for a plan with row filters, from a copy for brute force (small images only).
  static func withFiltered<R>(
    _ encoding: inout PNGEncoding, _ plan: Plan, _ body: (UnsafeRawBufferPointer) -> R
  ) -> R {
    guard let rowFilters = plan.rowFilters else {
      return filtered(encoding, plan).withUnsafeBytes(body)
    }
    let (height, rowBytes, unit) = (encoding.height, encoding.rowBytes, encoding.filterUnit)
    return RowFilter.withFilteredInPlace(
      &encoding.rows, height: height, rowBytes: rowBytes, unit: unit, rowFilters: rowFilters, body)
  }

  /// The trials of this level: per candidate encoding and filter strategy, the filter of
  /// every row (nil for brute force, which decides while filtering); duplicates are dropped.
  private func plans(
    for candidates: [PNGEncoding], only: Int? = nil, strategies: [FilterStrategy]
  ) -> [Plan] {
    let level = options.level
    var strategies = strategies
    var indices = only.map { [$0] } ?? Array(candidates.indices)
    if level.rawValue == 0 {
      let first = candidates[0]
      strategies = [first.colorType == .palette || first.bitDepth < 8 ? .fixed(0) : .minimumSum]
      indices = [0]
    }
    let heuristics = strategies.filter(\.isRowHeuristic)
    let chosenIndices = indices
    let chosen = parallelMap(indices.count) { position -> [[UInt8]] in
      heuristics.isEmpty
        ? [] : RowFilter.chooseFilters(candidates[chosenIndices[position]], heuristics: heuristics)
    }
    var plans: [Plan] = []
    for (position, index) in indices.enumerated() {
      var seen = Set<[UInt8]>()
      for strategy in strategies {
        var rowFilters: [UInt8]?
        switch strategy {
        case .fixed(let f): rowFilters = [UInt8](repeating: f, count: candidates[index].height)
        case .bruteForce:
          // Brute force on a big image costs more than it can win over the heuristics.
          if candidates[index].rows.count > 4_000_000 { continue }
        default: rowFilters = chosen[position][heuristics.firstIndex(of: strategy)!]
        }
        if let rowFilters, !seen.insert(rowFilters).inserted { continue }  // same as another
        plans.append(Plan(candidate: index, strategy: strategy, rowFilters: rowFilters))
      }
    }
    return plans
  }

  /// Orders `plans` by the file size their trial compressions predict, best first.
  ///
  /// Where the level has `fullTrials` and every plan's data exceeds `coarseSampleBytes`,
  /// all plans are first ranked by libdeflate's fastest level on a sample of that size, and
  /// only the best `fullTrials` get the full trial: the first ranking rarely puts the winner
  /// lower, and full trials of the others cost most of the ranking on photographs. The others
  /// follow them in the order of their coarse sizes (scaled to the whole, so never below a
  /// full trial's by much: level 1 compresses less than the trial level).
  private func rank(_ plans: [Plan], of candidates: [PNGEncoding]) -> [(plan: Plan, size: Int)] {
    let level = options.level
    // Small images: trials at the final level cost little and rank exactly as it will.
    let small = candidates.allSatisfy { $0.rows.count <= Self.smallImageBytes }
    let trialLevel = small ? level.finalDeflateLevel : level.trialDeflateLevel
    let trialSize = { @Sendable (plan: Plan, sampleLimit: Int, deflateLevel: Int) -> Int in
      let encoding = candidates[plan.candidate]
      let (sample, filteredCount) = Self.trialData(encoding, plan, sampleLimit: sampleLimit)
      let size = sample.withUnsafeBytes { Deflate.zlibSize($0, level: deflateLevel) }
      // Scale a sampled size up to the whole image, and count PLTE and tRNS.
      let scale = Double(filteredCount) / Double(max(1, sample.count))
      return Int(Double(size) * scale) + encoding.overheadBytes
    }
    var order = Array(plans.indices)
    var sizes = [Int](repeating: 0, count: plans.count)
    let coarse =
      level.fullTrials.map { plans.count > $0 } == true && !small
      && plans.allSatisfy { Self.filteredCount(candidates[$0.candidate]) > Self.coarseSampleBytes }
    if coarse, let fullTrials = level.fullTrials {
      sizes = parallelMap(plans.count) { trialSize(plans[$0], Self.coarseSampleBytes, 1) }
      order.sort { sizes[$0] < sizes[$1] }
      let finalists = Array(order.prefix(fullTrials))
      let full = parallelMap(finalists.count) {
        trialSize(plans[finalists[$0]], Self.trialSampleLimit, trialLevel)
      }
      for (index, size) in zip(finalists, full) { sizes[index] = size }
      order = finalists.sorted { sizes[$0] < sizes[$1] } + order.dropFirst(fullTrials)
    } else {
      sizes = parallelMap(plans.count) { trialSize(plans[$0], Self.trialSampleLimit, trialLevel) }
      order.sort { sizes[$0] < sizes[$1] }
    }
    return order.map { (plans[$0], sizes[$0]) }
  }

  /// The size of `encoding`'s filtered data: its rows with a filter byte each.
  static func filteredCount(_ encoding: PNGEncoding) -> Int {
    encoding.height * (encoding.rowBytes + 1)
  }

  /// The sample a coarse trial compresses (see `rank`).
  static let coarseSampleBytes = 256 * 1024

  /// Filtered data up to this size also gets libdeflate's level 12 when the level's final
  /// compression is weaker.
  static let cheapStrongestBytes = 256 * 1024

  /// One trial: a candidate encoding filtered one way.
  struct Plan: Sendable {
    var candidate: Int
    var strategy: FilterStrategy
    /// The filter of every row; nil for brute force, which decides while filtering.
    var rowFilters: [UInt8]?
  }

  static func filtered(_ encoding: PNGEncoding, _ plan: Plan) -> [UInt8] {
    if let rowFilters = plan.rowFilters { return RowFilter.filter(encoding, rowFilters: rowFilters) }
    return RowFilter.filter(encoding, strategy: plan.strategy)
  }

  /// Images whose packed rows are at most this size get trials at the final level.
  static let smallImageBytes = 4 * 1024

  /// The largest amount of filtered data a trial compresses; bigger images are sampled.
  /// Trials see the whole of smaller images: a sample misses the long-distance matches that
  /// make filter None win on screenshots and diagrams.
  static let trialSampleLimit = 4 * 1024 * 1024

  /// What a trial compresses (`trialSample` of the filtered data, at most `sampleLimit`
  /// bytes) and the size of the whole filtered data; the sampled rows of a big image are
  /// filtered alone, never the whole image.
  static func trialData(
    _ encoding: PNGEncoding, _ plan: Plan, sampleLimit: Int = trialSampleLimit
  ) -> (sample: [UInt8], count: Int) {
    let lineLength = encoding.rowBytes + 1
    let count = filteredCount(encoding)
    if let rowFilters = plan.rowFilters, count > sampleLimit,
      let bands = trialBands(rows: encoding.height, lineLength: lineLength, sampleLimit: sampleLimit)
    {
      var out: [UInt8] = []
      out.reserveCapacity(bands.count * bands.rows * lineLength)
      for first in bands.starts {
        RowFilter.appendFiltered(encoding, rows: first, count: bands.rows, rowFilters: rowFilters, to: &out)
      }
      return (out, count)
    }
    let filtered = filtered(encoding, plan)
    return (trialSample(filtered, lineLength: lineLength, sampleLimit: sampleLimit), filtered.count)
  }

  /// The first rows of `trialSample`'s bands and the rows in each; nil when it takes all.
  static func trialBands(
    rows: Int, lineLength: Int, sampleLimit: Int = trialSampleLimit
  ) -> (starts: [Int], rows: Int, count: Int)? {
    let bandRows = max(1, min(rows, 65536 / lineLength, 32))
    let bands = max(1, sampleLimit / (bandRows * lineLength))
    let bandCount = rows / bandRows
    guard bands < bandCount else { return nil }
    return ((0..<bands).map { ($0 * bandCount / bands) * bandRows }, bandRows, bands)
  }

  /// Evenly spaced bands of whole rows from filtered data, at most `sampleLimit` bytes, so
  /// that trials on big images stay fast while ranking strategies as the whole would.
  static func trialSample(
    _ filtered: [UInt8], lineLength: Int, sampleLimit: Int = trialSampleLimit
  ) -> [UInt8] {
    guard filtered.count > sampleLimit else { return filtered }
    let rows = filtered.count / lineLength
    let bandRows = max(1, min(rows, 65536 / lineLength, 32))
    let bands = max(1, sampleLimit / (bandRows * lineLength))
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

  private func encodeCgBI(_ source: consuming PNGImage, chunks: [PNGChunk]) -> ([UInt8], String) {
    var image = consume source
    let opaque = CgBI.isOpaque(image)
    let (cgbi, header, data) = CgBI.imageChunks(&image, opaque: opaque, level: options.level)
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
