import ShelfCore
import ShelfFacts

/// M3U, M3U8 and PLS lists (`PlaylistFile.parse`), the format picked by the first byte; then
/// every file entry written back as M3U and M3U8 (`M3UWriter`). Parsing touches no file system.
enum PlaylistTarget: FuzzTarget {
  static let name = "playlist"
  static func run(_ input: [UInt8]) {
    let (format, bytes) = FuzzInput.pick(input, [PlaylistFormat.m3u, .m3u8, .pls])
    guard
      let list = try? PlaylistFile.parse(
        bytes, path: RawPath("/fuzz/list.\(format.rawValue)"), format: format)
    else { return }
    for entry in list.entries {
      guard case .file(let spellings) = entry.location else { continue }
      precondition(!spellings.isEmpty && spellings.allSatisfy { !$0.bytes.contains(0) }, "a path with a NUL")
      for path in spellings {
        _ = try? M3UWriter.entry(
          path: path, duration: entry.duration, artist: nil, title: entry.title, flavour: .m3u)
        _ = try? M3UWriter.entry(
          path: path, duration: entry.duration, artist: entry.title, title: entry.title, flavour: .m3u8)
      }
    }
    _ = list.diagnostics.map(\.description)
  }
}
