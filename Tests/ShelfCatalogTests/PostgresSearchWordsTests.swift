import ShelfDatabase
import Testing

@testable import ShelfCatalog

/// The PostgreSQL store builds the `tsvector` of plain ASCII words itself and leaves the rest to
/// the server's `to_tsvector('simple', unaccent(…))`: the split must give the same lexemes.
@Test func plainASCIIWordsBecomeLowercasedLexemesAndTheRestGoesToTheServer() {
  let words = PostgresEngine.searchWords(
    tags: "The Title", body: "Crème BRÛLÉE, abc123 0x1F; 1e4f 12E3 5e x² Zürich e5")
  #expect(words.text == .text("The Title Crème BRÛLÉE abc123 0x1F 1e4f 12E3 5e x² Zürich e5"))
  #expect(words.lexemes == .text("the:1 title:2 abc123:5 0x1f:6 e5:12"))
  // Other letters (for unaccent), digits then an e (scientific notation to the parser).
  #expect(words.serverWords == .text("Crème BRÛLÉE 1e4f 12E3 5e x² Zürich"))
}

@Test func aWordTooLongForALexemeIsLeftToTheServerWhichDropsIt() {
  let long = String(repeating: "a", count: 2048)
  let words = PostgresEngine.searchWords(tags: "", body: "short " + long)
  #expect(words.lexemes == .text("short:1"))
  #expect(words.serverWords == .text(long))
}

@Test func noWordsGiveNoVector() {
  let words = PostgresEngine.searchWords(tags: "", body: " — ... !")
  #expect(words == PostgresEngine.SearchWords(text: .null, lexemes: .null, serverWords: .null))
}
