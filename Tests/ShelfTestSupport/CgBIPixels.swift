/// Straight RGBA to CgBI's premultiplied BGRA as Xcode's pngcrush writes it:
/// `c' = (c·a + 127) / 255`, red and blue swapped. Written here independently of ShelfPNG, so
/// the tests of its CgBI writer compare against an oracle of their own.
public func premultipliedBGRA(_ rgba: [UInt8]) -> [UInt8] {
  var out = rgba
  for i in stride(from: 0, to: rgba.count, by: 4) {
    let a = Int(rgba[i + 3])
    out[i] = UInt8((Int(rgba[i + 2]) * a + 127) / 255)
    out[i + 1] = UInt8((Int(rgba[i + 1]) * a + 127) / 255)
    out[i + 2] = UInt8((Int(rgba[i]) * a + 127) / 255)
  }
  return out
}
