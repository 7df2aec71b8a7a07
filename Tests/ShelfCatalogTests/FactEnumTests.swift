import ShelfCore
import ShelfDatabase
import ShelfFacts
import Testing

@testable import ShelfCatalog

/// The facts with a closed set of values (area, colour type, line endings, plist format): each
/// value is stored by its name and read back as itself, a name this shelf does not know reads as
/// the fallback rather than trapping, and `area:`, `endings:` and `plist:` accept exactly the
/// names stored.
@Suite struct FactEnumTests {
  typealias StoredRow = FactTableTests.StoredRow

  /// The fixtures of the round-trip test: an image, a sound, a video, a text and a plist.
  var image: CatalogEntry { FactTableTests.entries[0] }
  var text: CatalogEntry { FactTableTests.entries[3] }
  var plist: CatalogEntry { FactTableTests.entries[4] }

  /// `entry` read back from its row after its `column` was given the stored text `value`.
  func readBack(_ entry: CatalogEntry, storing value: String, in column: String) -> CatalogEntry {
    var row = StoredRow(entry)
    let index = CatalogSchema.EntryReading.full.fields.firstIndex { $0.column?.name == column }!
    row.values[index] = .text(value)
    return CatalogStore.entry(from: row)
  }

  @Test func everyValueIsStoredByItsNameAndReadBack() {
    for area in CatalogArea.allCases {
      var entry = image
      entry.area = area
      #expect(CatalogStore.entry(from: StoredRow(entry)) == entry)
      #expect(readBack(image, storing: area.rawValue, in: "area").area == area)
    }
    for colour in ImageColorType.allCases {
      #expect(readBack(image, storing: colour.rawValue, in: "color_type").image?.colorType == colour)
    }
    for endings in LineEndings.allCases {
      #expect(readBack(text, storing: endings.rawValue, in: "line_endings").text?.lineEndings == endings)
    }
    for format in PlistFormat.allCases {
      #expect(readBack(plist, storing: format.rawValue, in: "plist_format").plist?.format == format)
    }
  }

  @Test func anUnknownStoredNameReadsAsTheFallback() {
    #expect(readBack(image, storing: "attic", in: "area").area == .other)
    let sepia = readBack(image, storing: "sepia", in: "color_type")
    #expect(sepia.image != nil && sepia.image?.colorType == nil)
    #expect(readBack(text, storing: "nel", in: "line_endings").text?.lineEndings == .noBreak)
    // A plist of a format shelf cannot name has no plist facts, as a text of an unknown encoding.
    #expect(readBack(plist, storing: "json", in: "plist_format").plist == nil)
  }

  @Test func queriesAcceptTheStoredNamesInDocumentedOrder() {
    #expect(CatalogQuery.fixedValues["area"] == CatalogArea.allCases.map(\.rawValue))
    #expect(
      CatalogArea.allCases.map(\.rawValue) == [
        "bundle", "documents", "preferences", "caches", "library", "tmp", "other", "camera-roll",
        "recordings", "voicemail", "attachments", "notes",
      ])
    #expect(CatalogQuery.fixedValues["endings"] == ["lf", "crlf", "cr", "mixed", "none"])
    #expect(CatalogQuery.fixedValues["plist"] == ["xml", "binary"])
  }
}
