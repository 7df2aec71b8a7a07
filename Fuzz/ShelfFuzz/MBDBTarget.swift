import ShelfBackup
import ShelfCore

/// `Manifest.mbdb` records (`MBDBManifest.records`).
enum MBDBTarget: FuzzTarget {
  static let name = "mbdb"
  static func run(_ input: [UInt8]) {
    let folder = RawPath("/nonexistent/shelf-fuzz")
    _ = try? MBDBManifest.records(input, folder: folder, manifestPath: folder.appending("Manifest.mbdb"))
  }
}
