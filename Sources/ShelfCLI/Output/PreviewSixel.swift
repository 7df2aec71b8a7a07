import ShelfImage

/// Encodes a preview as DEC sixel graphics: a palette of 6 × 7 × 6 colour levels (252
/// registers, chosen per pixel by rounding, no dithering), pixels with alpha below half left
/// unpainted (the background shows through), run-length encoded rows of six pixels.
enum PreviewSixel {
  static let redLevels = 6
  static let greenLevels = 7
  static let blueLevels = 6

  /// The colour of register `index`, 0–255 per channel.
  static func color(ofRegister index: Int) -> (red: Int, green: Int, blue: Int) {
    let blue = index % blueLevels
    let green = index / blueLevels % greenLevels
    let red = index / (blueLevels * greenLevels)
    return (
      red * 255 / (redLevels - 1), green * 255 / (greenLevels - 1), blue * 255 / (blueLevels - 1)
    )
  }

  /// The sixel stream of `image`, from the DCS introducer to the string terminator. Per band of
  /// six rows, one pass marks each register's pixels in a row buffer of its own, then each
  /// register the band uses is written as one run-length encoded row.
  static func encode(_ image: PreviewImage) -> [UInt8] {
    let (width, height) = (image.width, image.height)
    let registerCount = redLevels * greenLevels * blueLevels
    // The register is the sum of one part per channel, looked up per 8-bit value.
    func parts(_ count: Int, _ weight: Int) -> [Int16] {
      (0..<256).map { Int16((($0 * (count - 1) + 127) / 255) * weight) }
    }
    let redParts = parts(redLevels, greenLevels * blueLevels)
    let greenParts = parts(greenLevels, blueLevels)
    let blueParts = parts(blueLevels, 1)
    var out: [UInt8] = []
    out.reserveCapacity(width * height / 2 + 4096)
    // DCS P1=0 (aspect 2:1, overridden by the raster attributes), P2=1 (unpainted pixels stay
    // transparent), then raster attributes: 1:1 pixels, width, height.
    out += Array("\u{1B}P0;1;0q\"1;1;".utf8)
    appendDecimal(width, to: &out)
    out.append(UInt8(ascii: ";"))
    appendDecimal(height, to: &out)
    // The register of each pixel, -1 where it is less than half opaque.
    var registers = [Int16](repeating: -1, count: width * height)
    var used = [Bool](repeating: false, count: registerCount)
    image.rgba.withUnsafeBufferPointer { rgba in
      registers.withUnsafeMutableBufferPointer { registers in
        for index in 0..<width * height {
          let offset = index * 4
          guard rgba[offset + 3] >= 128 else { continue }
          let register =
            redParts[Int(rgba[offset])] + greenParts[Int(rgba[offset + 1])] + blueParts[Int(rgba[offset + 2])]
          registers[index] = register
          used[Int(register)] = true
        }
      }
    }
    for index in used.indices where used[index] {
      let color = color(ofRegister: index)
      func percent(_ value: Int) -> Int { (value * 100 + 127) / 255 }
      out.append(UInt8(ascii: "#"))
      appendDecimal(index, to: &out)
      out += Array(";2;".utf8)
      appendDecimal(percent(color.red), to: &out)
      out.append(UInt8(ascii: ";"))
      appendDecimal(percent(color.green), to: &out)
      out.append(UInt8(ascii: ";"))
      appendDecimal(percent(color.blue), to: &out)
    }
    // One row of sixels per register, `width` bytes each, cleared after use; the registers the
    // band uses and the end of each one's painted columns.
    var rows = [UInt8](repeating: 0, count: registerCount * width)
    var rowEnds = [Int](repeating: 0, count: registerCount)
    var inBand: [Int] = []
    registers.withUnsafeBufferPointer { registers in
      rows.withUnsafeMutableBufferPointer { rows in
        for top in stride(from: 0, to: height, by: 6) {
          for row in 0..<min(6, height - top) {
            let base = (top + row) * width
            let bit = UInt8(1) << row
            for x in 0..<width {
              let register = Int(registers[base + x])
              guard register >= 0 else { continue }
              if rowEnds[register] == 0 { inBand.append(register) }
              rows[register * width + x] |= bit
              if x + 1 > rowEnds[register] { rowEnds[register] = x + 1 }
            }
          }
          inBand.sort()
          for (position, register) in inBand.enumerated() {
            if position > 0 { out.append(UInt8(ascii: "$")) }
            out.append(UInt8(ascii: "#"))
            appendDecimal(register, to: &out)
            let row = UnsafeMutableBufferPointer(
              rebasing: rows[register * width..<register * width + rowEnds[register]])
            appendRuns(UnsafeBufferPointer(row), to: &out)
            row.update(repeating: 0)
            rowEnds[register] = 0
          }
          inBand.removeAll(keepingCapacity: true)
          out.append(UInt8(ascii: "-"))
        }
      }
    }
    out += [0x1B, UInt8(ascii: "\\")]
    return out
  }

  /// One colour's row of sixels (ending at its last painted column), runs of four or more as
  /// `!count char`.
  static func appendRuns(_ bits: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    let end = bits.count
    var x = 0
    while x < end {
      var run = 1
      while x + run < end && bits[x + run] == bits[x] { run += 1 }
      let character = 63 + bits[x]
      if run >= 4 {
        out.append(UInt8(ascii: "!"))
        appendDecimal(run, to: &out)
        out.append(character)
      } else {
        for _ in 0..<run { out.append(character) }
      }
      x += run
    }
  }

  /// The decimal digits of a non-negative number, as ASCII.
  static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &out) }
    out.append(UInt8(ascii: "0") + UInt8(value % 10))
  }
}
