/// An image decoded and shrunk for display: 8-bit sRGB with straight alpha, upright.
public struct PreviewImage: Sendable, Equatable {
  /// Columns of pixels.
  public var width: Int
  /// Rows of pixels.
  public var height: Int
  /// `width * height * 4` bytes: R, G, B, A per pixel, rows top down.
  public var rgba: [UInt8]
  /// What was wrong with a file of which only part decoded (cut short, say): the picture
  /// holds what was there, the rest filled by the decoder. Nil for a whole picture.
  public var damage: String?

  /// Wraps decoded pixels.
  public init(width: Int, height: Int, rgba: [UInt8]) {
    precondition(rgba.count == width * height * 4, "RGBA size does not match the dimensions")
    self.width = width
    self.height = height
    self.rgba = rgba
  }

  /// The R, G, B, A of the pixel at column `x`, row `y`.
  public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
    let offset = (y * width + x) * 4
    return (rgba[offset], rgba[offset + 1], rgba[offset + 2], rgba[offset + 3])
  }
}
