import ShelfCore
import Testing

/// `Timestamp`: the ways files write dates read into RFC 3339, nothing guessed, nothing trapped.
@Suite struct TimestampTests {
  @Test(arguments: [
    ("2024-05-01T14:30:00+0200", "2024-05-01T14:30:00+02:00"),
    ("2024-05-01T14:30:00+02:00", "2024-05-01T14:30:00+02:00"),
    ("2024-05-01T12:00:00.000000Z", "2024-05-01T12:00:00Z"),
    ("2024-05-01 14:30:00", "2024-05-01T14:30:00"),
    ("2024:05:01 14:30:00", "2024-05-01T14:30:00"),
    ("2024-05-01T14:30:00-05", "2024-05-01T14:30:00-05:00"),
    ("2024-05-01T14:30:00+00:00", "2024-05-01T14:30:00Z"),
  ])
  func recordedTimesBecomeRFC3339(_ recorded: String, _ expected: String) {
    #expect(Timestamp.normalized(recorded) == expected)
  }

  @Test(arguments: [
    "", "2024", "2024-13-01T00:00:00", "2023-02-29T00:00:00", "2024-05-01T24:00:00", "2024-05-01T14:30:00+2",
    "2024-05-01T14:30:00+25:00", "2024-05-01T14:30:00.", "2024-05-01T14:30:00Zjunk",
    "Mon May 01 14:30:00 2024",
    "2024-05-01T14:30:00" + String(repeating: "9", count: 100),
  ])
  func anythingElseIsLeftAsItWas(_ text: String) {
    #expect(Timestamp(parsing: text) == nil)
    #expect(Timestamp.normalized(text) == text)
  }

  @Test func momentsWithAnOffsetKnowTheirEpochAndWallClockTimesDoNot() throws {
    let paris = try #require(Timestamp(parsing: "2024-05-01T14:30:00+02:00"))
    #expect(paris.epochSeconds == 1_714_566_600)
    #expect(try #require(Timestamp(parsing: "1969-12-31T23:59:59Z")).epochSeconds == -1)
    #expect(try #require(Timestamp(parsing: "0000-03-01T00:00:00Z")).epochSeconds == -62_162_035_200)
    #expect(Timestamp(parsing: "2024-05-01T14:30:00")?.epochSeconds == nil)
    #expect(paris.formatted("%Y/%m/%d %a %j %z") == "2024/05/01 Wed 122 +0200")
    #expect(Timestamp(parsing: "2024-05-01T14:30:00")?.formatted("%H:%M%z") == "14:30")
  }
}
