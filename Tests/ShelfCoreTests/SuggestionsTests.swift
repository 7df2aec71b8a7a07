import ShelfCore
import Testing

@Test func suggestionDistanceCountsTranspositionsAsOneEdit() {
  #expect(Suggestions.distance("idnex", "index") == 1)
  #expect(Suggestions.distance("", "abc") == 3)
  #expect(Suggestions.closest(to: "stast", among: ["stats", "show"]) == "stats")
  #expect(Suggestions.closest(to: "zzzzzz", among: ["stats", "show"]) == nil)
}

@Test func suggestionsAllowMoreEditsInLongerWordsAndTakeUniqueAbbreviations() {
  // Seven letters: a swap and a doubled letter (two edits) are still a likely typo.
  #expect(Suggestions.closest(to: "atrsitt", among: ["artist", "album"]) == "artist")
  // Two letters: one edit at most, but an unambiguous prefix is an abbreviation.
  #expect(Suggestions.closest(to: "xy", among: ["kind", "size"]) == nil)
  #expect(Suggestions.closest(to: "dur", among: ["duration", "date"]) == "duration")
}
