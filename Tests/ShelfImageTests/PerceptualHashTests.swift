import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfImage

/// The real photographs the tests hash, those of the list that are installed.
enum SimilarPhotographs {
  static let paths: [String] = {
    let mate = "/usr/share/backgrounds/mate/nature/"
    let plasma = "/usr/share/wallpapers/"
    let paths =
      [
        "Aqua", "Blinds", "Dune", "FreshFlower", "Garden", "GreenMeadow", "LadyBird", "RainDrops", "Storm",
        "TwoWings", "Wood", "YellowFlower",
      ].map { mate + $0 + ".jpg" }
      + [
        "BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour", "EveningGlow", "FallenLeaf", "Grey",
        "Kite",
        "OneStandsOut", "Path", "summer_1am",
      ].map { plasma + $0 + "/contents/images/2560x1600.jpg" }
    return paths.filter { FileManager.default.fileExists(atPath: $0) }
  }()
}

/// Perceptual hashes of real photographs: the twelve nature photographs of Debian's
/// mate-backgrounds and the eleven photographs of plasma-workspace-wallpapers (leaves, flowers,
/// grass, water, a dusk sky, a foggy lake: several smooth, dark or alike in colour), as PNG
/// originals of 1280 pixels, each with three copies ImageMagick makes: resized to 50 %, saved as
/// JPEG quality 60, converted from PNG to JPEG (quality 92).
@Suite(
  .enabled(
    if: SimilarPhotographs.paths.count >= 20 && ExternalTool.isInstalled(["convert"]),
    "needs mate-backgrounds, plasma-workspace-wallpapers and ImageMagick (scripts/setup.sh installs them)"))
struct PerceptualHashTests {
  /// The originals and their copies, made in `folder`: for each photograph its original's path
  /// and the copies' paths.
  static func make(in folder: TemporaryDirectory) throws -> [(original: String, copies: [String])] {
    try SimilarPhotographs.paths.enumerated().map { index, source in
      let original = folder.file("\(index)-original.png")
      try ExternalTool.make(["convert", source, "-resize", "1280x1280>", original])
      let half = folder.file("\(index)-half.png")
      try ExternalTool.make(["convert", original, "-resize", "50%", half])
      let quality60 = folder.file("\(index)-q60.jpg")
      try ExternalTool.make(["convert", original, "-quality", "60", quality60])
      let converted = folder.file("\(index)-converted.jpg")
      try ExternalTool.make(["convert", original, converted])
      return (original, [half, quality60, converted])
    }
  }

  /// Largest distance between a photograph and its copies, and smallest between two
  /// photographs (copies included), for one hash function.
  static func spread(_ sets: [[UInt64]]) -> (same: Int, different: Int) {
    var same = 0
    var different = 64
    for (index, set) in sets.enumerated() {
      for copy in set.dropFirst() { same = max(same, PerceptualHash.distance(set[0], copy)) }
      for other in sets[(index + 1)...] {
        for a in set { for b in other { different = min(different, PerceptualHash.distance(a, b)) } }
      }
    }
    return (same, different)
  }

  @Test func copiesAreWithinTheDefaultDistanceAndDistinctPhotographsAreNot() throws {
    let folder = try TemporaryDirectory()
    let sets = try Self.make(in: folder)
    var pHashes: [[UInt64]] = []
    var dHashes: [[UInt64]] = []
    for set in sets {
      var pSet: [UInt64] = []
      var dSet: [UInt64] = []
      for path in [set.original] + set.copies {
        let preview = try ImagePreviewDecoder.preview(
          path: RawPath(path), maxWidth: PerceptualHash.previewSide, maxHeight: PerceptualHash.previewSide)
        let hash = try PerceptualHash.imageHash(path: RawPath(path))
        #expect(hash == PerceptualHash.imageHash(of: preview))
        pSet.append(hash)
        dSet.append(PerceptualHash.differenceHash(PerceptualHash.luma(preview, width: 9, height: 8)))
      }
      for (copy, hash) in zip(set.copies, pSet.dropFirst()) {
        let distance = PerceptualHash.distance(pSet[0], hash)
        #expect(distance <= PerceptualHash.defaultDistance, "\(copy): \(distance) bits from its original")
      }
      pHashes.append(pSet)
      dHashes.append(dSet)
    }
    for first in sets.indices {
      for second in sets.indices where second > first {
        let distance = PerceptualHash.distance(pHashes[first][0], pHashes[second][0])
        #expect(
          distance > PerceptualHash.defaultDistance,
          "\(SimilarPhotographs.paths[first]) and \(SimilarPhotographs.paths[second]) are \(distance) bits apart"
        )
      }
    }
    let p = Self.spread(pHashes)
    let d = Self.spread(dHashes)
    print(
      "pHash (DCT): copies at most \(p.same) bits from their originals, distinct photographs at least \(p.different)"
    )
    print(
      "dHash: copies at most \(d.same) bits from their originals, distinct photographs at least \(d.different)"
    )
    #expect(p.different > PerceptualHash.defaultDistance)
  }

  @Test func exifOrientationIsRespected() throws {
    let folder = try TemporaryDirectory()
    let upright = folder.file("upright.jpg")
    let turned = folder.file("turned.jpg")
    try ExternalTool.make(["convert", SimilarPhotographs.paths[4], "-resize", "800x800>", upright])
    // Stored turned a quarter to the left, with the tag that says to turn it back to the right.
    try ExternalTool.make(["convert", upright, "-rotate", "-90", turned])
    if ExternalTool.isInstalled(["exiftool"]) {
      try ExternalTool.make(["exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", turned])
      let distance = PerceptualHash.distance(
        try PerceptualHash.imageHash(path: RawPath(upright)),
        try PerceptualHash.imageHash(path: RawPath(turned)))
      #expect(distance <= PerceptualHash.defaultDistance, "\(distance) bits")
    }
  }

  @Test func distanceCountsDifferingBits() {
    #expect(PerceptualHash.distance(0, 0) == 0)
    #expect(PerceptualHash.distance(0, .max) == 64)
    #expect(PerceptualHash.distance(0b1011, 0b0110) == 3)
  }

  @Test func unreadableFilesThrow() throws {
    let folder = try TemporaryDirectory()
    let path = try folder.write("broken.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8))
    #expect(throws: (any Error).self) { try PerceptualHash.imageHash(path: RawPath(path)) }
    #expect(throws: (any Error).self) {
      try PerceptualHash.imageHash(path: RawPath(folder.file("missing.png")))
    }
  }
}
