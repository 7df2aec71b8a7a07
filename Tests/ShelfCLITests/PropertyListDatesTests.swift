import Testing

@testable import ShelfCLI

/// A property list's date is a Double of seconds since 2001 read from the file: one beyond
/// what nanoseconds in an Int64 count (1e11 s once passed the check and trapped) is shown as
/// the bare number, one inside as its time.
@Test func propertyListDatesOutsideTheNanosecondRangeShowAsNumbers() {
  #expect(ShowCommand.appleDate(1e11) == "100000000000.0")
  #expect(ShowCommand.appleDate(-1e11) == "-100000000000.0")
  #expect(ShowCommand.appleDate(.infinity) == "inf")
  #expect(ShowCommand.appleDate(.nan) == "nan")
  #expect(ShowCommand.appleDate(0).hasPrefix("200"))
}
