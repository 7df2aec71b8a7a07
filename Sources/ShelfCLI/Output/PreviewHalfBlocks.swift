import ShelfImage

/// Draws a preview with character cells: each cell shows two pixels, the upper as the
/// foreground of `▀` and the lower as its background, in the colours the terminal has (24-bit,
/// 256 or 16); without colour, one grey ASCII shade per cell.
enum PreviewHalfBlocks {
  /// The picture as lines of cells, `image.width` cells wide and `⌈height / 2⌉` rows high, in
  /// `colors` (nil: grey ASCII shades). Transparent pixels are laid over a dark checkerboard
  /// so that transparency stays visible.
  static func render(_ image: PreviewImage, colors: TerminalColors?) -> String {
    var out = ""
    let shades = Array(" .:-=+*#%@")
    for y in stride(from: 0, to: image.height, by: 2) {
      for x in 0..<image.width {
        let top = composited(image, x: x, y: y)
        let bottom = y + 1 < image.height ? composited(image, x: x, y: y + 1) : nil
        if let colors {
          out += colors.sequence(top.0, top.1, top.2, background: false)
          if let bottom {
            out += colors.sequence(bottom.0, bottom.1, bottom.2, background: true) + "▀"
          } else {
            out += "\u{1B}[49m▀"
          }
        } else {
          var luma = (top.0 * 299 + top.1 * 587 + top.2 * 114) / 1000
          if let bottom { luma = (luma + (bottom.0 * 299 + bottom.1 * 587 + bottom.2 * 114) / 1000) / 2 }
          out.append(shades[min(shades.count - 1, luma * shades.count / 256)])
        }
      }
      out += colors != nil ? "\u{1B}[0m\n" : "\n"
    }
    return out
  }

  /// The pixel over a checkerboard of 4-pixel squares in two dark greys.
  static func composited(_ image: PreviewImage, x: Int, y: Int) -> (Int, Int, Int) {
    let pixel = image.pixel(x: x, y: y)
    let alpha = Int(pixel.alpha)
    guard alpha < 255 else { return (Int(pixel.red), Int(pixel.green), Int(pixel.blue)) }
    let backdrop = ((x / 4 + y / 4) % 2 == 0) ? 64 : 96
    func over(_ value: UInt8) -> Int { (Int(value) * alpha + backdrop * (255 - alpha) + 127) / 255 }
    return (over(pixel.red), over(pixel.green), over(pixel.blue))
  }
}
