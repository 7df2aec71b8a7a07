import Foundation
import ShelfTestSupport
import Testing

/// The SampleMedia photos through the commands: EXIF facts in `info` and `ls --json`, the Live
/// Photo pair, `ls --sort taken` and `stats` by year.
@Suite struct PhotoCommandTests {
  @Test func infoPrintsTheEXIFFacts() throws {
    let path = ShelfProcess.repositoryRoot.appendingPathComponent(
      "SampleMedia/Documents/Camera/IMG_0001.HEIC"
    ).path
    let result = try ShelfProcess.run(["info", path])
    #expect(result.status == 0)
    #expect(
      result.stdout.contains(
        """
        taken:        2024-05-17T10:30:00-07:00
        camera:       Apple iPhone 15 Pro
        lens:         iPhone 15 Pro back triple camera 6.765mm f/1.78
        orientation:  6 (rotate 90 CW)
        GPS:          37.750000, -122.500000, 16.3 m
        software:     17.5.1

        """), "\(result.stdout)")
  }

  @Test(arguments: TestCatalogues.kinds) func jsonNamesTheFactsAndTheLivePhotoPartner(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let records = try sample.records(["ext:heic,ext:mov,ext:jpg"])
    let still = try #require(records["Documents/Camera/IMG_0001.HEIC"])
    let image = try #require(still["image"] as? [String: Any])
    #expect(image["taken"] as? String == "2024-05-17T10:30:00-07:00")
    #expect(image["camera"] as? String == "Apple iPhone 15 Pro")
    #expect(image["lens"] as? String == "iPhone 15 Pro back triple camera 6.765mm f/1.78")
    #expect(image["orientation"] as? Int == 6)
    #expect(image["software"] as? String == "17.5.1")
    let gps = try #require(image["gps"] as? [String: Any])
    #expect(
      gps["lat"] as? Double == 37.75 && gps["lon"] as? Double == -122.5 && gps["alt"] as? Double == 16.25)
    #expect(still["live_photo"] as? String == sample.root + "/Documents/Camera/IMG_0001.MOV")
    #expect(records["Documents/Camera/IMG_0001.MOV"]?["live_photo"] as? String == still["path"] as? String)
    #expect(records["Documents/Camera/portrait-clip.mov"]?["live_photo"] == nil)
    #expect(records["Documents/Camera/DSC01234.JPG"]?["live_photo"] == nil)
    let info = try sample.run(["info", sample.root + "/Documents/Camera/IMG_0001.MOV"])
    #expect(info.stdout.contains("Live Photo:   \(sample.root)/Documents/Camera/IMG_0001.HEIC\n"))
  }

  @Test(arguments: TestCatalogues.kinds) func listingsSortByWhenTakenAndQueryTheFields(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let sorted = try sample.run(["ls", "-f", "{taken} {name}", "--sort", "taken", "taken:"])
    #expect(
      sorted.stdout == """
        2022-08-14T16:20:05+01:00 DSC01234.JPG
        2024-05-01T14:30:00+02:00 portrait-clip.mov
        2024-05-17T10:30:00-07:00 IMG_0001.HEIC

        """)
    let newest = try sample.run(["ls", "-f", "{name}", "--sort", "taken:desc", "--limit", "1"])
    #expect(newest.stdout == "IMG_0001.HEIC\n")
    for (query, expected) in [
      (["camera:iphone"], "IMG_0001.HEIC\n"), (["camera:sony", "gps:true", "lon<0"], "DSC01234.JPG\n"),
      (["taken:2024-05", "kind:image"], "IMG_0001.HEIC\n"), (["orientation:6"], "IMG_0001.HEIC\n"),
      (["lens:FE"], "DSC01234.JPG\n"), (["software:17.5"], "IMG_0001.HEIC\n"),
      (["live_photo:yes", "kind:video"], "IMG_0001.MOV\n"),
    ] {
      #expect(try sample.run(["ls", "-f", "{name}"] + query).stdout == expected, "\(query)")
    }
    let bad = try sample.run(["ls", "taken:soon"])
    #expect(bad.status == 64)
    #expect(bad.stderr == "error: field 'taken' cannot compare with 'soon'\n")
  }

  @Test(arguments: TestCatalogues.kinds) func statsCountsPhotosByYearTaken(store: CatalogueStoreKind) throws {
    let sample = try IndexedSample(store)
    let result = try sample.run(["stats", "--json"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    let years = try #require(object["photos_by_year"] as? [String: [String: Any]])
    #expect(years.keys.sorted() == ["2022", "2024"])
    #expect(years["2022"]?["files"] as? Int == 1 && years["2024"]?["files"] as? Int == 1)
    #expect(years["2024"]?["size"] as? Int == 1388)
  }
}
