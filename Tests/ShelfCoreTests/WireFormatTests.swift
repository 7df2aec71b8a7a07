import ShelfCore
import Testing

/// The form in which workers send facts: every value comes back as it went, and bytes that are
/// not such a value are an error, never a trap.
@Suite struct WireFormatTests {
  struct Inner: Codable, Equatable {
    var name: String
    var ratio: Double
    var flags: [Bool]
  }

  enum Outcome: Codable, Equatable {
    case found(Inner, count: Int)
    case missing(reason: String)
    case empty
  }

  struct Sample: Codable, Equatable {
    var path: [UInt8]
    var size: Int64
    var inode: UInt64
    var small: Int8
    var optional: String?
    var absent: Int?
    var inner: Inner
    var list: [Inner]
    var outcomes: [Outcome]
    var nested: [[String]]
    var rawBytes: [UInt8]
  }

  static let sample = Sample(
    path: [0x2F, 0xFF, 0x00, 0x1B], size: -42, inode: .max, small: -128, optional: "crème brûlée",
    absent: nil, inner: Inner(name: "", ratio: -0.5, flags: [true, false]),
    list: [Inner(name: "a", ratio: .infinity, flags: []), Inner(name: "日本", ratio: 1e300, flags: [true])],
    outcomes: [.found(Inner(name: "x", ratio: 2, flags: []), count: 7), .missing(reason: "gone"), .empty],
    nested: [[], ["one", "two"]], rawBytes: [])

  @Test func everyKindOfValueComesBackAsItWent() throws {
    let bytes = try WireFormat.encode(Self.sample)
    #expect(try WireFormat.decode(Sample.self, from: bytes) == Self.sample)
    #expect(
      try WireFormat.decode([Outcome].self, from: WireFormat.encode(Self.sample.outcomes))
        == Self.sample.outcomes)
    #expect(try WireFormat.decode(String.self, from: WireFormat.encode("plain")) == "plain")
  }

  @Test func everyTruncationIsAnError() throws {
    let bytes = try WireFormat.encode(Self.sample)
    for length in 0..<bytes.count {
      #expect(throws: (any Error).self) {
        try WireFormat.decode(Sample.self, from: Array(bytes.prefix(length)))
      }
    }
  }

  @Test func lyingLengthsAndTagsAreErrors() throws {
    // A string claiming 2^63 bytes, a list claiming 2^64 - 1 entries, an unknown tag, nesting
    // past the limit, a value of the wrong type, trailing bytes.
    let hugeString: [UInt8] = [6] + [0, 0, 0, 0, 0, 0, 0, 0x80] + Array("abc".utf8)
    #expect(throws: WireFormatError.self) { try WireFormat.decode(String.self, from: hugeString) }
    let hugeList: [UInt8] = [7] + [UInt8](repeating: 0xFF, count: 8)
    #expect(throws: WireFormatError.self) { try WireFormat.decode([Int].self, from: hugeList) }
    #expect(throws: WireFormatError.self) { try WireFormat.decode(Int.self, from: [42]) }
    let deep = (0..<100).flatMap { _ in [7, 1, 0, 0, 0, 0, 0, 0, 0] as [UInt8] }
    #expect(throws: WireFormatError.self) { try WireFormat.decode([[Int]].self, from: deep) }
    #expect(throws: (any Error).self) { try WireFormat.decode(Int.self, from: WireFormat.encode("text")) }
    #expect(throws: WireFormatError.self) { try WireFormat.decode(Bool.self, from: [2, 0]) }
    // An integer that does not fit the type asked for.
    #expect(throws: (any Error).self) {
      try WireFormat.decode(Int8.self, from: WireFormat.encode(Int64(300)))
    }
  }
}
