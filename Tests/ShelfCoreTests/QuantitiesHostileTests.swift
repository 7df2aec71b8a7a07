import ShelfCore
import Testing

/// A length from a lying header (FFmpeg reports 2^63 - 1 time-base units as they are) is shown
/// as unknown, not converted to an `Int` that cannot hold it.
@Test func durationsBeyondAnyIntAreShownAsUnknown() {
  #expect(Quantities.formatDuration(Double(Int64.max)) == "-:--")
  #expect(Quantities.formatDuration(1e300) == "-:--")
  #expect(Quantities.formatDuration(.infinity) == "-:--")
  #expect(Quantities.formatDuration(999_999_999_999_999) == "277777777777:46:39")
}
