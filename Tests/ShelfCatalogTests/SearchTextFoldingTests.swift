import Testing

@testable import ShelfCatalog

/// What shelf hands both full-text engines, and what a query word becomes
/// (`SearchTextFolding`).
@Suite struct SearchTextFoldingTests {
  @Test func asciiTextIsLeftAsItIs() {
    let text = "Holiday NOTES, 2024\n"
    #expect(SearchTextFolding.indexed(text) == text)
    #expect(SearchTextFolding.queryWords("Holiday") == ["Holiday"])
  }

  @Test func cjkRunsBecomeOverlappingBigramsAndTheirLastCharacter() {
    #expect(SearchTextFolding.indexed("東京都庁で") == " 東京 京都 都庁 庁で で ")
    #expect(SearchTextFolding.indexed("a京b") == "a 京 b")
    #expect(SearchTextFolding.indexed("カタカナとひらがな") == " カタ タカ カナ ナと とひ ひら らが がな な ")
    #expect(SearchTextFolding.queryWords("東京都") == ["東京", "京都"])
    #expect(SearchTextFolding.queryWords("京") == ["京"])
    #expect(SearchTextFolding.queryWords("tokyo東京") == ["tokyo", "東京"])
    // Kana keep their voicing marks: が is not か.
    #expect(SearchTextFolding.queryWords("がか") == ["がか"])
  }

  @Test func latinAndGreekLoseTheirAccentsAndCase() {
    #expect(SearchTextFolding.indexed("Σαντορίνη ΟΔΟΣ Café İstanbul") == "σαντορινη οδοσ Cafe istanbul")
    #expect(SearchTextFolding.queryWords("σαντορινη") == ["σαντορινη"])
    #expect(SearchTextFolding.queryWords("οδος") == ["οδοσ"])
    // Decomposed accents go too; Cyrillic й stays, ё folds as unaccent folds it.
    #expect(SearchTextFolding.indexed("Σαντορι\u{301}νη") == "σαντορινη")
    #expect(SearchTextFolding.indexed("Йод ёлка") == "йод елка")
  }

  @Test func foldingFoldedTextAgainFindsTheSameWords() {
    let once = SearchTextFolding.indexed("東京都庁 Σαντορίνη")
    let twice = SearchTextFolding.indexed(once)
    let words = Set(once.split(separator: " "))
    #expect(Set(twice.split(separator: " ")).isSuperset(of: words))
  }
}
