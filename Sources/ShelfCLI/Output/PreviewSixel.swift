import ShelfImage

/// Encodes a preview as DEC sixel graphics: a palette of 6 × 7 × 6 colour levels (252
/// registers, chosen per pixel by rounding, no dithering), pixels with alpha below half left
/// unpainted (the background shows through), run-length encoded rows of six pixels.
enum PreviewSixel {
  static let redLevels = 6
  static let greenLevels = 7
  static let blueLevels = 6

  /// The palette register of a colour.
  static func register(red: UInt8, green: UInt8, blue: UInt8) -> Int {
    func level(_ value: UInt8, _ count: Int) -> Int { (Int(value) * (count - 1) + 127) / 255 }
    return (level(red, redLevels) * greenLevels + level(green, greenLevels)) * blueLevels
      + level(blue, blueLevels)
  }

  /// The colour of register `index`, 0–255 per channel.
  static func color(ofRegister index: Int) -> (red: Int, green: Int, blue: Int) {
    let blue = index % blueLevels
    let green = index / blueLevels % greenLevels
    let red = index / (blueLevels * greenLevels)
    return (
      red * 255 / (redLevels - 1), green * 255 / (greenLevels - 1), blue * 255 / (blueLevels - 1)
    )
  }

  static func encode(_ image: PreviewImage) -> [UInt8] {
    // DCS P1=0 (aspect 2:1, overridden by the raster attributes), P2=1 (unpainted pixels stay
    // transparent), then raster attributes: 1:1 pixels, width, height.
    var out = Array("\u{1B}P0;1;0q\"1;1;\(image.width);\(image.height)".utf8)
    var registers = [Int](repeating: -1, count: image.width * image.height)
    var used = [Bool](repeating: false, count: redLevels * greenLevels * blueLevels)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let pixel = image.pixel(x: x, y: y)
        guard pixel.alpha >= 128 else { continue }
        let index = register(red: pixel.red, green: pixel.green, blue: pixel.blue)
        registers[y * image.width + x] = index
        used[index] = true
      }
    }
    for index in used.indices where used[index] {
      let color = color(ofRegister: index)
      func percent(_ value: Int) -> Int { (value * 100 + 127) / 255 }
      out += Array("#\(index);2;\(percent(color.red));\(percent(color.green));\(percent(color.blue))".utf8)
    }
    // Per band, one row of sixels for each register the band uses, built in one pass.
    var rows = [[UInt8]](repeating: [], count: used.count)
    var inBand: [Int] = []
    for top in stride(from: 0, to: image.height, by: 6) {
      for index in inBand { rows[index] = [] }
      inBand.removeAll(keepingCapacity: true)
      for row in 0..<min(6, image.height - top) {
        let base = (top + row) * image.width
        for x in 0..<image.width where registers[base + x] >= 0 {
          let index = registers[base + x]
          if rows[index].isEmpty {
            rows[index] = [UInt8](repeating: 0, count: image.width)
            inBand.append(index)
          }
          rows[index][x] |= 1 << row
        }
      }
      inBand.sort()
      for (position, index) in inBand.enumerated() {
        if position > 0 { out.append(UInt8(ascii: "$")) }
        out += Array("#\(index)".utf8)
        appendRuns(rows[index], to: &out)
      }
      out.append(UInt8(ascii: "-"))
    }
    out += [0x1B, UInt8(ascii: "\\")]
    return out
  }

  /// One colour's row of sixels, runs of four or more as `!count char`, trailing blanks dropped.
  static func appendRuns(_ bits: [UInt8], to out: inout [UInt8]) {
    var end = bits.count
    while end > 0 && bits[end - 1] == 0 { end -= 1 }
    var x = 0
    while x < end {
      var run = 1
      while x + run < end && bits[x + run] == bits[x] { run += 1 }
      let character = 63 + bits[x]
      if run >= 4 {
        out += Array("!\(run)".utf8)
        out.append(character)
      } else {
        out += [UInt8](repeating: character, count: run)
      }
      x += run
    }
  }
}
