/// How rows are given their PNG filter (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth).
public enum FilterStrategy: Sendable, Hashable, CustomStringConvertible {
  /// The same filter for every row.
  case fixed(UInt8)
  /// Per row, the filter with the minimum sum of absolute (signed) differences.
  case minimumSum
  /// Per row, the filter whose bytes have the lowest Shannon entropy.
  case entropy
  /// Per row, the filter producing the fewest distinct byte pairs.
  case bigrams
  /// Per row, the filter that compresses smallest together with the rows before it.
  case bruteForce

  public var description: String {
    switch self {
    case .fixed(let f): return ["none", "sub", "up", "average", "paeth"][Int(f)]
    case .minimumSum: return "minsum"
    case .entropy: return "entropy"
    case .bigrams: return "bigrams"
    case .bruteForce: return "brute"
    }
  }
}

/// Applies PNG row filters to packed rows.
enum RowFilter {
  /// Filters `encoding.rows`, returning `height * (1 + rowBytes)` bytes.
  static func filter(_ encoding: PNGEncoding, strategy: FilterStrategy) -> [UInt8] {
    let rowBytes = encoding.rowBytes
    let height = encoding.height
    let unit = encoding.filterUnit
    var out = [UInt8](repeating: 0, count: height * (rowBytes + 1))
    let zero = [UInt8](repeating: 0, count: rowBytes)
    var scratch = [UInt8](repeating: 0, count: 5 * rowBytes)
    var stamps = strategy == .bigrams ? [UInt32](repeating: 0, count: 65536) : []
    var generation: UInt32 = 0
    encoding.rows.withUnsafeBufferPointer { rows in
      zero.withUnsafeBufferPointer { zero in
        out.withUnsafeMutableBufferPointer { out in
          scratch.withUnsafeMutableBufferPointer { scratch in
            for y in 0..<height {
              let current = rows.baseAddress! + y * rowBytes
              let previous = y == 0 ? zero.baseAddress! : rows.baseAddress! + (y - 1) * rowBytes
              let target = out.baseAddress! + y * (rowBytes + 1)
              switch strategy {
              case .fixed(let f):
                target[0] = f
                apply(f, current, previous, rowBytes, unit, target + 1)
              case .minimumSum, .entropy, .bigrams:
                var bestFilter = 0
                var bestScore = Double.infinity
                for f in 0..<5 {
                  let candidate = scratch.baseAddress! + f * rowBytes
                  apply(UInt8(f), current, previous, rowBytes, unit, candidate)
                  let score: Double
                  switch strategy {
                  case .minimumSum: score = Double(absoluteSum(candidate, rowBytes))
                  case .entropy: score = entropy(candidate, rowBytes)
                  default:
                    generation &+= 1
                    if generation == 0 {
                      for k in 0..<stamps.count { stamps[k] = 0 }
                      generation = 1
                    }
                    score = Double(distinctPairs(candidate, rowBytes, &stamps, generation))
                  }
                  if score < bestScore {
                    bestScore = score
                    bestFilter = f
                  }
                }
                target[0] = UInt8(bestFilter)
                (target + 1).update(from: scratch.baseAddress! + bestFilter * rowBytes, count: rowBytes)
              case .bruteForce:
                bruteForceRow(
                  y: y, current: current, previous: previous, rowBytes: rowBytes, unit: unit,
                  out: out, scratch: scratch)
              }
            }
          }
        }
      }
    }
    return out
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
    var sum = 0
    for i in 0..<count {
      let v = Int(bytes[i])
      sum += v < 128 ? v : 256 - v
    }
    return sum
  }

  static func entropy(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Double {
    var histogram = (0..<256).map { _ in 0 }
    histogram.withUnsafeMutableBufferPointer { h in
      for i in 0..<count { h[Int(bytes[i])] += 1 }
    }
    var sum = 0.0
    for c in histogram where c > 0 {
      let v = Double(c)
      sum -= v * log2Table(v)
    }
    return sum
  }

  @inline(__always)
  static func log2Table(_ v: Double) -> Double {
    // log2 via the exponent/mantissa split: fast and precise enough for ranking.
    Double.log2(v)
  }

  static func distinctPairs(
    _ bytes: UnsafePointer<UInt8>, _ count: Int, _ stamps: inout [UInt32], _ generation: UInt32
  ) -> Int {
    guard count > 1 else { return count }
    var distinct = 0
    stamps.withUnsafeMutableBufferPointer { s in
      for i in 1..<count {
        let key = Int(bytes[i - 1]) << 8 | Int(bytes[i])
        if s[key] != generation {
          s[key] = generation
          distinct += 1
        }
      }
    }
    return distinct
  }

  /// Chooses the filter of row `y` by compressing it after up to a few already filtered rows.
  static func bruteForceRow(
    y: Int, current: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, rowBytes: Int,
    unit: Int, out: UnsafeMutableBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<UInt8>
  ) {
    let lineLength = rowBytes + 1
    let contextRows = min(y, max(1, min(4, 16384 / lineLength)))
    let contextStart = (y - contextRows) * lineLength
    let target = out.baseAddress! + y * lineLength
    var bestFilter = 0
    var bestSize = Int.max
    for f in 0..<5 {
      target[0] = UInt8(f)
      apply(UInt8(f), current, previous, rowBytes, unit, target + 1)
      let size = Deflate.zlibSize(
        UnsafeRawBufferPointer(start: out.baseAddress! + contextStart, count: (y + 1) * lineLength - contextStart),
        level: 2)
      if size < bestSize {
        bestSize = size
        bestFilter = f
      }
    }
    target[0] = UInt8(bestFilter)
    apply(UInt8(bestFilter), current, previous, rowBytes, unit, target + 1)
    _ = scratch
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
