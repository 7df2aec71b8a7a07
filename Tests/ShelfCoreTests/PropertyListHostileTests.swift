import ShelfCore
import ShelfTestSupport
import Testing

/// Binary plists whose sizes and references would make the parser's arithmetic trap: each is a
/// `corrupt binary plist` error naming what is wrong, never a crash.
@Suite struct PropertyListHostileTests {
  @Test(arguments: [5, 6, 15] as [UInt8])
  func anIntegerWiderThan16BytesIsCorrupt(_ nibble: UInt8) {
    let bytes = HostileFiles.plistWideInteger(nibble: nibble)
    #expect(bytes.count < 64)
    #expect(throws: HeaderError("corrupt binary plist: integer of \(1 << Int(nibble)) bytes at byte 8")) {
      try PropertyList.parse(bytes)
    }
  }

  @Test func sixteenByteIntegersKeepTheirLowEightBytes() throws {
    // CoreFoundation writes a UInt64 beyond Int64.max as a 128-bit integer.
    let bytes = HostileFiles.binaryPlist(
      [[0x14] + [UInt8](repeating: 0, count: 8) + HostileFiles.bigEndian(UInt64.max, count: 8)], refSize: 1)
    #expect(try PropertyList.parse(bytes).root == .integer(-1))
    // One byte short of the 16 it declares.
    let short = HostileFiles.binaryPlist([[0x14] + [UInt8](repeating: 0, count: 15)], refSize: 1)
    #expect(throws: HeaderError("corrupt binary plist: object runs past the end")) {
      try PropertyList.parse(short)
    }
  }

  @Test func anArrayReferenceOf2To63IsCorrupt() {
    #expect(
      throws: HeaderError("corrupt binary plist: reference 9223372036854775808 past the object table")
    ) { try PropertyList.parse(HostileFiles.plistArrayReference()) }
    #expect(
      throws: HeaderError("corrupt binary plist: reference 18446744073709551615 past the object table")
    ) { try PropertyList.parse(HostileFiles.plistArrayReference(.max)) }
    #expect(throws: HeaderError("corrupt binary plist: reference 1 past the object table")) {
      try PropertyList.parse(HostileFiles.plistArrayReference(1))
    }
  }

  @Test func aDictionaryKeyReferenceOf2To63IsCorrupt() throws {
    #expect(
      throws: HeaderError("corrupt binary plist: reference 9223372036854775808 past the object table")
    ) { try PropertyList.parse(HostileFiles.plistDictionaryKeyReference()) }
    // The same dictionary with a good key reference reads.
    #expect(
      try PropertyList.parse(HostileFiles.plistDictionaryKeyReference(1)).root
        == .dictionary([("a", .string("a"))]))
  }

  @Test func aDictionaryValueReferenceOf2To63IsCorrupt() {
    let bytes = HostileFiles.binaryPlist(
      [
        [0xD1] + HostileFiles.bigEndian(1, count: 8) + HostileFiles.bigEndian(1 << 63, count: 8),
        [0x51, 0x61],
      ],
      refSize: 8)
    #expect(
      throws: HeaderError("corrupt binary plist: reference 9223372036854775808 past the object table")
    ) { try PropertyList.parse(bytes) }
  }

  @Test func aCollectionCountWhoseReferencesOverflowIsCorrupt() {
    // An array of 2^62 - 1 references of 8 bytes (the count in an extended 8-byte integer).
    let count = HostileFiles.bigEndian((1 << 62) - 1, count: 8)
    let bytes = HostileFiles.binaryPlist([[0xAF, 0x13] + count], refSize: 8)
    #expect(throws: HeaderError("corrupt binary plist: count too large")) { try PropertyList.parse(bytes) }
  }
}

/// XML integers beyond Int64, as CoreFoundation writes UInt64 values.
@Suite struct XMLPlistIntegerTests {
  static func xml(_ integer: String) -> [UInt8] {
    Array("<?xml version=\"1.0\"?><plist><integer>\(integer)</integer></plist>".utf8)
  }

  @Test func integersUpToUInt64MaxKeepTheirLow64Bits() throws {
    #expect(try PropertyList.parse(Self.xml("18446744073709551615")).root == .integer(-1))
    #expect(try PropertyList.parse(Self.xml("9223372036854775813")).root == .integer(Int64.min + 5))
    #expect(try PropertyList.parse(Self.xml("-9223372036854775808")).root == .integer(Int64.min))
  }

  @Test func integersBeyondUInt64AreBad() {
    #expect(throws: HeaderError("XML plist: bad integer \"18446744073709551616\"")) {
      try PropertyList.parse(Self.xml("18446744073709551616"))
    }
    #expect(throws: HeaderError("XML plist: bad integer \"-9223372036854775809\"")) {
      try PropertyList.parse(Self.xml("-9223372036854775809"))
    }
  }
}
