import Testing

@testable import ShelfCLI

/// How `ls` fits a table to a terminal: tag columns give way before paths, and paths keep the
/// part that tells rows apart.
@Suite struct ListingFitTests {
  private let columns = [
    ListingColumn(header: "KIND", rightAligned: false, isTag: true),
    ListingColumn(header: "MIME", rightAligned: false, isTag: true),
    ListingColumn(header: "AREA", rightAligned: false, isTag: true),
    ListingColumn(header: "MODIFIED", rightAligned: false),
    ListingColumn(header: "SIZE", rightAligned: true),
    ListingColumn(header: "FACTS", rightAligned: false),
  ]

  private func rendered(_ rows: [ListingRow], width: Int, wide: Bool = false) -> [String] {
    var text = ""
    ListingLayout(columns: columns, isTerminal: true, width: width, wide: wide).render(rows) { text += $0 }
    return text.split(separator: "\n").map(String.init)
  }

  private let rows = ["A", "B"].map { name in
    ListingRow(
      path: "Backups/\(name)/CameraRollDomain/IMG_0001.PNG", style: nil,
      cells: ["image", "image/png", "camera-roll", "2024-05-01", "4 KiB", "64×48"])
  }

  @Test func tagColumnsAreCutBeforeThePath() {
    // Whole, the rows take 96 columns; at 90 the area and MIME columns give up what the path
    // needs, and the path stays whole.
    #expect(
      rendered(rows, width: 90) == [
        "PATH                                     KIND   MIME     AREA     MODIFIED     SIZE  FACTS",
        "Backups/A/CameraRollDomain/IMG_0001.PNG  image  image/…  camera…  2024-05-01  4 KiB  64×48",
        "Backups/B/CameraRollDomain/IMG_0001.PNG  image  image/…  camera…  2024-05-01  4 KiB  64×48",
      ])
    // Tags stop at six columns; only then does the path lose what both rows share.
    #expect(
      rendered(rows, width: 70) == [
        "PATH                KIND   MIME    AREA    MODIFIED     SIZE  FACTS",
        "…/A/…/IMG_0001.PNG  image  image…  camer…  2024-05-01  4 KiB  64×48",
        "…/B/…/IMG_0001.PNG  image  image…  camer…  2024-05-01  4 KiB  64×48",
      ])
    // --wide: nothing is cut.
    #expect(
      rendered(rows, width: 60, wide: true)[1]
        == "Backups/A/CameraRollDomain/IMG_0001.PNG  image  image/png  camera-roll  2024-05-01  4 KiB  64×48")
  }

  @Test func pathsKeepWhatTellsThemApart() {
    let shortener = PathShortener([
      "/m/Backups/manifest-db/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG",
      "/m/Backups/mbdb/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG",
    ])
    let first = "/m/Backups/manifest-db/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG"
    #expect(shortener.shortened(first, to: 80) == first)
    #expect(
      shortener.shortened(first, to: 71)
        == "…/Backups/manifest-db/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG")
    #expect(
      shortener.shortened(first, to: 70) == "…/manifest-db/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG")
    #expect(shortener.shortened(first, to: 50) == "…/manifest-db/…/Media/DCIM/100APPLE/IMG_0001.PNG")
    #expect(shortener.shortened(first, to: 30) == "…/manifest-db/…/IMG_0001.PNG")
    #expect(shortener.shortened(first, to: 20) == "…/manifes…G_0001.PNG")
    // One path alone keeps its file name; nothing in common, the middle goes as before.
    let alone = PathShortener(["/a/very/long/folder/name/file.txt"])
    #expect(alone.shortened("/a/very/long/folder/name/file.txt", to: 20) == "…/name/file.txt")
    let apart = PathShortener(["Documents/Photos/2024/Holidays/IMG_0001.PNG", "notes.txt"])
    // A file name no other path has stays whole after what folders fit.
    #expect(apart.shortened("Documents/Photos/2024/Holidays/IMG_0001.PNG", to: 20) == "…/IMG_0001.PNG")
    #expect(
      apart.shortened("Documents/Photos/2024/Holidays/IMG_0001.PNG", to: 30) == "…/2024/Holidays/IMG_0001.PNG"
    )
  }
}
