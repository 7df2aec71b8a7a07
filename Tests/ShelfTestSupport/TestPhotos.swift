import Foundation

/// Photos whose EXIF other programs wrote (Pillow, heif-enc, exiftool into ImageMagick's files),
/// made by `scripts/exif_photos.py` in a scratch folder, and hand-made EXIF structures: shared by
/// the fact readers' tests and the catalogue's.
public enum TestPhotos {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  /// A tool that failed while a test made its photos.
  public struct SetUpFailure: Error {
    public var message: String

    public init(message: String) { self.message = message }
  }

  /// A scratch folder holding the test set in `photos/`.
  public static func make() throws -> TemporaryDirectory {
    let scratch = try TemporaryDirectory()
    let outcome = try ExternalTool.run(
      ["python3", repository + "/scripts/exif_photos.py", scratch.file("photos")])
    guard outcome.status == 0 else { throw SetUpFailure(message: "exif_photos.py: " + outcome.stderr) }
    return scratch
  }

  /// A big-endian TIFF structure: IFD0 at 8 with `entries` (tag, type, count, value/offset),
  /// then `next` as the next-IFD offset, then `tail`.
  public static func tiff(
    _ entries: [(UInt16, UInt16, UInt32, UInt32)], next: UInt32 = 0, tail: [UInt8] = []
  ) -> [UInt8] {
    func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
    var bytes: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + be32(8) + be16(UInt16(entries.count))
    for (tag, type, count, value) in entries { bytes += be16(tag) + be16(type) + be32(count) + be32(value) }
    return bytes + be32(next) + tail
  }
}
