import ShelfImage

/// Draws a preview with character cells: each cell shows two pixels, the upper as the
/// foreground of `▀` and the lower as its background, in 24-bit colour; without colour, one
/// grey ASCII shade per cell.
enum PreviewHalfBlocks {
  /// The picture as lines of cells, `image.width` cells wide and `⌈height / 2⌉` rows high.
  /// Transparent pixels are laid over a dark checkerboard so that transparency stays visible.
  static func render(_ image: PreviewImage, color: Bool) -> String {
    var out = ""
    let shades = Array(" .:-=+*#%@")
    for y in stride(from: 0, to: image.height, by: 2) {
      for x in 0..<image.width {
        let top = composited(image, x: x, y: y)
        let bottom = y + 1 < image.height ? composited(image, x: x, y: y + 1) : nil
        if color {
          out += "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m"
          if let bottom {
            out += "\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m▀"
          } else {
            out += "\u{1B}[49m▀"
          }
        } else {
          var luma = (top.0 * 299 + top.1 * 587 + top.2 * 114) / 1000
          if let bottom { luma = (luma + (bottom.0 * 299 + bottom.1 * 587 + bottom.2 * 114) / 1000) / 2 }
          out.append(shades[min(shades.count - 1, luma * shades.count / 256)])
        }
      }
      out += color ? "\u{1B}[0m\n" : "\n"
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
