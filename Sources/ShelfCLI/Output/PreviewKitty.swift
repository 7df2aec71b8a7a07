import ShelfCore
import ShelfImage

/// Encodes a preview for the kitty graphics protocol: the RGBA pixels (`f=32`), base64 in
/// chunks of at most 4096 characters, each in its own APC escape (`ESC _ G … ESC \`), displayed
/// at once (`a=T`) over `columns` × `rows` cells, with the terminal's replies suppressed (`q=2`).
enum PreviewKitty {
  /// The most base64 characters one escape carries (the protocol's limit).
  static let chunkSize = 4096

  static func encode(_ image: PreviewImage, columns: Int, rows: Int) -> [UInt8] {
    let payload = Array(Base64.encode(image.rgba).utf8)
    var out: [UInt8] = []
    out.reserveCapacity(payload.count + payload.count / chunkSize * 16 + 64)
    var offset = 0
    repeat {
      let end = min(offset + chunkSize, payload.count)
      let more = end < payload.count ? 1 : 0
      let keys =
        offset == 0
        ? "a=T,f=32,s=\(image.width),v=\(image.height),c=\(columns),r=\(rows),q=2,m=\(more)"
        : "m=\(more)"
      out += Array("\u{1B}_G\(keys);".utf8)
      out += payload[offset..<end]
      out += [0x1B, UInt8(ascii: "\\")]
      offset = end
    } while offset < payload.count
    return out
  }
}
