import ShelfCore
import Testing

/// The form in which workers send facts: every value comes back as it went, and bytes that are
/// not such a value are an error, never a trap.
@Suite struct WireFormatTests {
  struct Inner: WireCodable, Equatable {
    var name: String
    var ratio: Double
    var flags: [Bool]

    init(name: String, ratio: Double, flags: [Bool]) {
      self.name = name
      self.ratio = ratio
      self.flags = flags
    }

    func write(to wire: inout WireWriter) {
      wire.write(name)
      wire.write(ratio)
      wire.write(flags)
    }

    init(from wire: inout WireReader) throws(WireFormatError) {
      self.init(name: try wire.read(), ratio: try wire.read(), flags: try wire.read())
    }
  }

  struct Sample: WireCodable, Equatable {
    var path: [UInt8]
    var size: Int64
    var inode: UInt64
    var count: Int
    var word: UInt32
    var optional: String?
    var absent: Int?
    var inner: Inner
    var list: [Inner]
    var nested: [[String]]
    var rawBytes: [UInt8]

    func write(to wire: inout WireWriter) {
      wire.writeBytes(path)
      wire.write(size)
      wire.write(inode)
      wire.write(count)
      wire.write(word)
      wire.write(optional)
      wire.write(absent)
      wire.write(inner)
      wire.write(list)
      wire.write(nested)
      wire.writeBytes(rawBytes)
    }

    init(from wire: inout WireReader) throws(WireFormatError) {
      path = try wire.readBytes()
      size = try wire.read()
      inode = try wire.read()
      count = try wire.read()
      word = try wire.read()
      optional = try wire.read()
      absent = try wire.read()
      inner = try wire.read()
      list = try wire.read()
      nested = try wire.read()
      rawBytes = try wire.readBytes()
    }

    init() {
      path = [0x2F, 0xFF, 0x00, 0x1B]
      size = -42
      inode = .max
      count = .min
      word = .max
      optional = "crème brûlée"
      absent = nil
      inner = Inner(name: "", ratio: -0.5, flags: [true, false])
      list = [Inner(name: "a", ratio: .infinity, flags: []), Inner(name: "日本", ratio: 1e300, flags: [true])]
      nested = [[], ["one", "two"]]
      rawBytes = []
    }
  }

  @Test func everyKindOfValueComesBackAsItWent() throws {
    let bytes = WireFormat.encode(Sample())
    #expect(try WireFormat.decode(Sample.self, from: bytes) == Sample())
    #expect(try WireFormat.decode(String.self, from: WireFormat.encode("plain")) == "plain")
    #expect(
      try WireFormat.decode(FailureKind.self, from: WireFormat.encode(FailureKind.noPermission))
        == .noPermission)
  }

  @Test func everyTruncationIsAnError() throws {
    let bytes = WireFormat.encode(Sample())
    for length in 0..<bytes.count {
      #expect(throws: WireFormatError.self) {
        try WireFormat.decode(Sample.self, from: Array(bytes.prefix(length)))
      }
    }
  }

  @Test func lyingLengthsAndValuesAreErrors() throws {
    // A string claiming 2^63 bytes, a list claiming 2^64 - 1 entries (refused before anything is
    // allocated), a truth value of 2, an optional's presence of 7, a case no enumeration has,
    // an integer too big for its type, trailing bytes.
    let hugeString: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x80] + Array("abc".utf8)
    #expect(throws: WireFormatError("length past the end")) {
      try WireFormat.decode(String.self, from: hugeString)
    }
    let hugeList = [UInt8](repeating: 0xFF, count: 8)
    #expect(throws: WireFormatError("length past the end")) {
      try WireFormat.decode([Int].self, from: hugeList)
    }
    #expect(throws: WireFormatError("not a truth value")) { try WireFormat.decode(Bool.self, from: [2]) }
    #expect(throws: WireFormatError("not an optional")) { try WireFormat.decode(Int?.self, from: [7]) }
    #expect(throws: WireFormatError("unknown case 'lost'")) {
      try WireFormat.decode(FailureKind.self, from: WireFormat.encode("lost"))
    }
    #expect(throws: WireFormatError("out of range")) {
      try WireFormat.decode(UInt32.self, from: WireFormat.encode(Int64(1) << 40))
    }
    #expect(throws: WireFormatError("trailing bytes")) { try WireFormat.decode(Bool.self, from: [1, 0]) }
    #expect(WireFormatError("x").description == "malformed reply: x")
  }
}
