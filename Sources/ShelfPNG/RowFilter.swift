/// How rows are given their PNG filter (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth).
public enum FilterStrategy: Sendable, Hashable, CustomStringConvertible {
  /// The same filter for every row.
  case fixed(UInt8)
  /// Per row, the filter with the minimum sum of absolute (signed) differences.
  case minimumSum
  /// Per row, the filter whose bytes have the lowest Shannon entropy.
  case entropy
  /// Per row, the filter producing the fewest distinct byte pairs (pngwolf's measure).
  case bigrams
  /// Per row, the filter whose byte pairs have the lowest entropy (oxipng's BigEnt): like
  /// `entropy`, but it sees the short repeats that deflate's matches feed on.
  case bigramEntropy
  /// Per row, the filter that compresses smallest together with the rows before it.
  case bruteForce

  public var description: String {
    switch self {
    case .fixed(let f): return ["none", "sub", "up", "average", "paeth"][Int(f)]
    case .minimumSum: return "minsum"
    case .entropy: return "entropy"
    case .bigrams: return "bigrams"
    case .bigramEntropy: return "bigram-entropy"
    case .bruteForce: return "brute"
    }
  }
}

extension FilterStrategy {
  /// Whether the strategy scores each row's five filterings on their own (chosen in one pass
  /// by `RowFilter.chooseFilters`).
  var isRowHeuristic: Bool {
    switch self {
    case .minimumSum, .entropy, .bigrams, .bigramEntropy: return true
    case .fixed, .bruteForce: return false
    }
  }
}

/// Applies PNG row filters to packed rows.
enum RowFilter {
  /// Filters `encoding.rows`, returning `height * (1 + rowBytes)` bytes.
  static func filter(_ encoding: PNGEncoding, strategy: FilterStrategy) -> [UInt8] {
    switch strategy {
    case .fixed(let f):
      return filter(encoding, rowFilters: [UInt8](repeating: f, count: encoding.height))
    case .bruteForce:
      return bruteForce(encoding)
    default:
      return filter(encoding, rowFilters: chooseFilters(encoding, heuristics: [strategy])[0])
    }
  }

  /// Filters every row with the filter given for it.
  static func filter(_ encoding: PNGEncoding, rowFilters: [UInt8]) -> [UInt8] {
    let rowBytes = encoding.rowBytes
    let unit = encoding.filterUnit
    var out = [UInt8](repeating: 0, count: encoding.height * (rowBytes + 1))
    let zero = [UInt8](repeating: 0, count: rowBytes)
    encoding.rows.withUnsafeBufferPointer { rows in
      zero.withUnsafeBufferPointer { zero in
        out.withUnsafeMutableBufferPointer { out in
          for y in 0..<encoding.height {
            let current = rows.baseAddress! + y * rowBytes
            let previous = y == 0 ? zero.baseAddress! : current - rowBytes
            let target = out.baseAddress! + y * (rowBytes + 1)
            target[0] = rowFilters[y]
            apply(rowFilters[y], current, previous, rowBytes, unit, target + 1)
          }
        }
      }
    }
    return out
  }

  /// The per-row filter choices of several heuristic strategies, computed in one pass: each
  /// row is filtered five ways once and every heuristic scores the same five candidates.
  static func chooseFilters(_ encoding: PNGEncoding, heuristics: [FilterStrategy]) -> [[UInt8]] {
    let rowBytes = encoding.rowBytes
    let height = encoding.height
    let unit = encoding.filterUnit
    var choices = [[UInt8]](repeating: [UInt8](repeating: 0, count: height), count: heuristics.count)
    let zero = [UInt8](repeating: 0, count: rowBytes)
    var scratch = [UInt8](repeating: 0, count: 5 * rowBytes)
    let wantsBigrams = heuristics.contains(.bigrams)
    let wantsEntropy = heuristics.contains(.entropy) || heuristics.contains(.bigramEntropy)
    let wantsPairCounts = heuristics.contains(.bigramEntropy)
    // Counts of byte pairs in the row being scored; reset pair by pair after each row.
    var pairCounts = [UInt32](repeating: 0, count: wantsPairCounts ? 65536 : 0)
    // Byte pairs seen in the row being scored, one bit each (8 KiB: stays in L1); the bits a
    // row sets are cleared again after it is scored.
    var seenPairs = [UInt64](repeating: 0, count: wantsBigrams ? 1024 : 0)
    // c·log2(c) for every count a row can reach.
    var entropyTable = [Double](repeating: 0, count: wantsEntropy ? rowBytes + 1 : 0)
    if wantsEntropy { for c in 1..<(rowBytes + 1) { entropyTable[c] = Double(c) * Double.log2(Double(c)) } }
    // Four interleaved histograms, so that runs of one byte value do not stall on one counter.
    var histogram = [Int32](repeating: 0, count: 4 * 256)
    encoding.rows.withUnsafeBufferPointer { rows in
      zero.withUnsafeBufferPointer { zero in
        scratch.withUnsafeMutableBufferPointer { scratch in
          seenPairs.withUnsafeMutableBufferPointer { seenPairs in
            pairCounts.withUnsafeMutableBufferPointer { pairCounts in
              entropyTable.withUnsafeBufferPointer { table in
                histogram.withUnsafeMutableBufferPointer { histogram in
                  for y in 0..<height {
                    let current = rows.baseAddress! + y * rowBytes
                    let previous = y == 0 ? zero.baseAddress! : current - rowBytes
                    for f in 0..<5 {
                      apply(UInt8(f), current, previous, rowBytes, unit, scratch.baseAddress! + f * rowBytes)
                    }
                    for (index, heuristic) in heuristics.enumerated() {
                      var bestFilter = 0
                      var bestScore = Double.infinity
                      for f in 0..<5 {
                        let candidate = scratch.baseAddress! + f * rowBytes
                        let score: Double
                        switch heuristic {
                        case .entropy:
                          let counts = histogram.baseAddress!
                          counts.update(repeating: 0, count: 4 * 256)
                          var i = 0
                          while i + 4 <= rowBytes {
                            counts[Int(candidate[i])] &+= 1
                            counts[256 + Int(candidate[i + 1])] &+= 1
                            counts[512 + Int(candidate[i + 2])] &+= 1
                            counts[768 + Int(candidate[i + 3])] &+= 1
                            i += 4
                          }
                          while i < rowBytes {
                            counts[Int(candidate[i])] &+= 1
                            i += 1
                          }
                          var sum = 0.0
                          for k in 0..<256 {
                            let count = counts[k] &+ counts[256 + k] &+ counts[512 + k] &+ counts[768 + k]
                            if count > 1 { sum -= table[Int(count)] }
                          }
                          score = sum
                        case .bigrams:
                          var distinct = 0
                          if rowBytes > 1 {
                            let bits = seenPairs.baseAddress!
                            var last = -1
                            for i in 1..<rowBytes {
                              let key = Int(candidate[i - 1]) << 8 | Int(candidate[i])
                              if key == last { continue }  // runs (flat areas) repeat one pair
                              last = key
                              let mask = UInt64(1) << UInt64(key & 63)
                              let word = bits[key >> 6]
                              distinct &+= word & mask == 0 ? 1 : 0
                              bits[key >> 6] = word | mask
                            }
                            if rowBytes > 2048 {
                              bits.update(repeating: 0, count: 1024)
                            } else {
                              for i in 1..<rowBytes {
                                bits[(Int(candidate[i - 1]) << 8 | Int(candidate[i])) >> 6] = 0
                              }
                            }
                          }
                          score = Double(distinct)
                        case .bigramEntropy:
                          // Σ c·log2(c) over the pair counts, kept up as the counts grow.
                          var sum = 0.0
                          if rowBytes > 1 {
                            let counts = pairCounts.baseAddress!
                            for i in 1..<rowBytes {
                              let key = Int(candidate[i - 1]) << 8 | Int(candidate[i])
                              let c = Int(counts[key])
                              sum += table[c + 1] - table[c]
                              counts[key] = UInt32(c + 1)
                            }
                            for i in 1..<rowBytes {
                              counts[Int(candidate[i - 1]) << 8 | Int(candidate[i])] = 0
                            }
                          }
                          score = -sum
                        default:
                          score = Double(absoluteSum(candidate, rowBytes))
                        }
                        if score < bestScore {
                          bestScore = score
                          bestFilter = f
                        }
                      }
                      choices[index][y] = UInt8(bestFilter)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return choices
  }

  /// Writes filter `f` of one row into `out`.
  @inline(__always)
  static func apply(
    _ f: UInt8, _ row: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ count: Int,
    _ unit: Int, _ out: UnsafeMutablePointer<UInt8>
  ) {
    switch f {
    case 0:
      out.update(from: row, count: count)
    case 1:
      for i in 0..<min(unit, count) { out[i] = row[i] }
      var i = unit
      while i < count {
        out[i] = row[i] &- row[i - unit]
        i += 1
      }
    case 2:
      for i in 0..<count { out[i] = row[i] &- prior[i] }
    case 3:
      for i in 0..<min(unit, count) { out[i] = row[i] &- prior[i] >> 1 }
      var i = unit
      while i < count {
        out[i] = row[i] &- UInt8((Int(row[i - unit]) + Int(prior[i])) >> 1)
        i += 1
      }
    default:
      for i in 0..<min(unit, count) { out[i] = row[i] &- prior[i] }
      var i = unit
      while i < count {
        let a = Int(row[i - unit]), b = Int(prior[i]), c = Int(prior[i - unit])
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
        out[i] = row[i] &- UInt8(predictor)
        i += 1
      }
    }
  }

  @inline(__always)
  static func absoluteSum(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    // |signed byte| without overflow checks, so that the loop vectorizes.
    var sum: UInt = 0
    for i in 0..<count { sum &+= UInt(Int8(bitPattern: bytes[i]).magnitude) }
    return Int(sum)
  }

  /// Chooses each row's filter by compressing it after a few already filtered rows.
  static func bruteForce(_ encoding: PNGEncoding) -> [UInt8] {
    let rowBytes = encoding.rowBytes
    let unit = encoding.filterUnit
    let lineLength = rowBytes + 1
    var out = [UInt8](repeating: 0, count: encoding.height * lineLength)
    let zero = [UInt8](repeating: 0, count: rowBytes)
    encoding.rows.withUnsafeBufferPointer { rows in
      zero.withUnsafeBufferPointer { zero in
        out.withUnsafeMutableBufferPointer { out in
          for y in 0..<encoding.height {
            let current = rows.baseAddress! + y * rowBytes
            let previous = y == 0 ? zero.baseAddress! : current - rowBytes
            let contextRows = min(y, max(1, min(4, 16384 / lineLength)))
            let contextStart = (y - contextRows) * lineLength
            let target = out.baseAddress! + y * lineLength
            var bestFilter = 0
            var bestSize = Int.max
            for f in 0..<5 {
              target[0] = UInt8(f)
              apply(UInt8(f), current, previous, rowBytes, unit, target + 1)
              let size = Deflate.zlibSize(
                UnsafeRawBufferPointer(
                  start: out.baseAddress! + contextStart, count: (y + 1) * lineLength - contextStart),
                level: 2)
              if size < bestSize {
                bestSize = size
                bestFilter = f
              }
            }
            target[0] = UInt8(bestFilter)
            apply(UInt8(bestFilter), current, previous, rowBytes, unit, target + 1)
          }
        }
      }
    }
    return out
  }
}

extension Double {
  @inline(__always)
  static func log2(_ x: Double) -> Double {
    #if canImport(Glibc)
      return Glibc.log2(x)
    #else
      return Foundation.log2(x)
    #endif
  }
}

#if canImport(Glibc)
  import Glibc
#endif

extension RowFilter {
  /// Filters packed rows in place: `rows` (`height * rowBytes` bytes, uniquely held, with
  /// capacity for `height` more) becomes the filtered data, a filter byte before each row, for
  /// the duration of `body`, and is restored exactly afterwards. Big images are compressed this
  /// way without a second copy of their pixels.
  static func withFilteredInPlace<R>(
    _ rows: inout [UInt8], height: Int, rowBytes: Int, unit: Int, rowFilters: [UInt8],
    _ body: (UnsafeRawBufferPointer) -> R
  ) -> R {
    rows.append(contentsOf: repeatElement(0, count: height))
    defer { rows.removeLast(height) }
    return rows.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      filterInPlace(base, height: height, rowBytes: rowBytes, unit: unit, rowFilters: rowFilters)
      defer { unfilterInPlace(base, height: height, rowBytes: rowBytes, unit: unit) }
      return body(UnsafeRawBufferPointer(buffer))
    }
  }

  /// Rows at `y * rowBytes` become filtered lines at `y * (rowBytes + 1)`: last row first, each
  /// from right to left, so that every byte is read before it is overwritten (a line lies at or
  /// after its source row, and after the row above it, which it reads).
  static func filterInPlace(
    _ base: UnsafeMutablePointer<UInt8>, height: Int, rowBytes: Int, unit: Int, rowFilters: [UInt8]
  ) {
    var y = height - 1
    while y >= 0 {
      let row = base + y * rowBytes
      let prior = base + (y - 1) * rowBytes  // used only when y > 0
      let out = base + y * (rowBytes + 1) + 1
      let filter = rowFilters[y]
      var i = rowBytes - 1
      switch filter {
      case 0:
        while i >= 0 {
          out[i] = row[i]
          i -= 1
        }
      case 1:
        while i >= 0 {
          out[i] = i >= unit ? row[i] &- row[i - unit] : row[i]
          i -= 1
        }
      case 2:
        while i >= 0 {
          out[i] = y > 0 ? row[i] &- prior[i] : row[i]
          i -= 1
        }
      case 3:
        while i >= 0 {
          let a = i >= unit ? Int(row[i - unit]) : 0
          let b = y > 0 ? Int(prior[i]) : 0
          out[i] = row[i] &- UInt8((a + b) >> 1)
          i -= 1
        }
      default:
        while i >= 0 {
          let a = i >= unit ? Int(row[i - unit]) : 0
          let b = y > 0 ? Int(prior[i]) : 0
          let c = i >= unit && y > 0 ? Int(prior[i - unit]) : 0
          out[i] = row[i] &- UInt8(paeth(a, b, c))
          i -= 1
        }
      }
      (out - 1).pointee = filter
      y -= 1
    }
  }

  /// The inverse of `filterInPlace`: first row first, left to right.
  static func unfilterInPlace(
    _ base: UnsafeMutablePointer<UInt8>, height: Int, rowBytes: Int, unit: Int
  ) {
    for y in 0..<height {
      let line = base + y * (rowBytes + 1)
      let filter = line[0]
      let input = line + 1
      let row = base + y * rowBytes
      let prior = base + (y - 1) * rowBytes
      for i in 0..<rowBytes {
        let value = input[i]
        let a = i >= unit ? Int(row[i - unit]) : 0
        let b = y > 0 ? Int(prior[i]) : 0
        switch filter {
        case 0: row[i] = value
        case 1: row[i] = value &+ UInt8(a)
        case 2: row[i] = value &+ UInt8(b)
        case 3: row[i] = value &+ UInt8((a + b) >> 1)
        default:
          let c = i >= unit && y > 0 ? Int(prior[i - unit]) : 0
          row[i] = value &+ UInt8(paeth(a, b, c))
        }
      }
    }
  }

  @inline(__always)
  static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
    let p = a + b - c
    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
  }

  /// Rows `first..<(first + count)` of `encoding` filtered as `rowFilters` says, appended to
  /// `out` (each with its filter byte), reading only those rows and the one above them.
  static func appendFiltered(
    _ encoding: PNGEncoding, rows first: Int, count: Int, rowFilters: [UInt8], to out: inout [UInt8]
  ) {
    let rowBytes = encoding.rowBytes
    let unit = encoding.filterUnit
    let start = out.count
    out.append(contentsOf: repeatElement(0, count: count * (rowBytes + 1)))
    let zero = [UInt8](repeating: 0, count: rowBytes)
    encoding.rows.withUnsafeBufferPointer { rows in
      zero.withUnsafeBufferPointer { zero in
        out.withUnsafeMutableBufferPointer { out in
          for y in first..<(first + count) {
            let current = rows.baseAddress! + y * rowBytes
            let previous = y == 0 ? zero.baseAddress! : current - rowBytes
            let target = out.baseAddress! + start + (y - first) * (rowBytes + 1)
            target[0] = rowFilters[y]
            apply(rowFilters[y], current, previous, rowBytes, unit, target + 1)
          }
        }
      }
    }
  }
}
