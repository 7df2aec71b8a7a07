import ShelfCore
import Testing

private func sequence(_ bytes: [UInt8]) -> UTF8Scalars.Sequence {
  UTF8Scalars.sequence(in: bytes, at: 0)
}

private func scalar(_ value: UInt32, _ length: Int) -> UTF8Scalars.Sequence {
  .scalar(Unicode.Scalar(value)!, length: length)
}

@Test func wellFormedSequencesDecodeToTheirScalars() {
  #expect(sequence([0x00]) == scalar(0x00, 1))
  #expect(sequence([0x41, 0xFF]) == scalar(0x41, 1))
  #expect(sequence([0x7F]) == scalar(0x7F, 1))
  #expect(sequence([0xC2, 0x80]) == scalar(0x80, 2))
  #expect(sequence([0xC3, 0xA9, 0x41]) == scalar(0xE9, 2))
  #expect(sequence([0xDF, 0xBF]) == scalar(0x7FF, 2))
  #expect(sequence([0xE0, 0xA0, 0x80]) == scalar(0x800, 3))
  #expect(sequence([0xE2, 0x82, 0xAC]) == scalar(0x20AC, 3))
  #expect(sequence([0xED, 0x9F, 0xBF]) == scalar(0xD7FF, 3))
  #expect(sequence([0xEE, 0x80, 0x80]) == scalar(0xE000, 3))
  #expect(sequence([0xEF, 0xBF, 0xBF]) == scalar(0xFFFF, 3))
  #expect(sequence([0xF0, 0x90, 0x80, 0x80]) == scalar(0x10000, 4))
  #expect(sequence([0xF0, 0x9F, 0x98, 0x80]) == scalar(0x1F600, 4))
  #expect(sequence([0xF4, 0x8F, 0xBF, 0xBF]) == scalar(0x10FFFF, 4))
}

@Test func overlongFormsAreInvalid() {
  for bytes: [UInt8] in [
    [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80],
    [0xF0, 0x8F, 0xBF, 0xBF],
  ] {
    #expect(sequence(bytes) == .invalid, "\(bytes)")
  }
}

@Test func surrogatesAreInvalid() {
  for bytes: [UInt8] in [[0xED, 0xA0, 0x80], [0xED, 0xAD, 0xBF], [0xED, 0xB0, 0x80], [0xED, 0xBF, 0xBF]] {
    #expect(sequence(bytes) == .invalid, "\(bytes)")
  }
}

@Test func valuesAboveUnicodeAndBytesThatBeginNothingAreInvalid() {
  for bytes: [UInt8] in [
    [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF7, 0xBF, 0xBF, 0xBF],
    [0xF8, 0x88, 0x80, 0x80, 0x80],
    [0xFE], [0xFF], [0x80], [0xBF],
  ] {
    #expect(sequence(bytes) == .invalid, "\(bytes)")
  }
}

@Test func aMissingContinuationByteIsInvalid() {
  #expect(sequence([0xC3, 0x41]) == .invalid)
  #expect(sequence([0xE2, 0x28, 0xA1]) == .invalid)
  #expect(sequence([0xE2, 0x82, 0xC3]) == .invalid)
  #expect(sequence([0xF0, 0x9F, 0x98, 0x7F]) == .invalid)
}

@Test func aSequenceCutByTheEndIsTruncatedOnlyWhileItCouldStillBeWellFormed() {
  for bytes: [UInt8] in [[0xC3], [0xE2], [0xE2, 0x82], [0xE0, 0xA0], [0xF0, 0x9F, 0x98], [0xF4, 0x8F]] {
    #expect(sequence(bytes) == .truncated, "\(bytes)")
  }
  // Beginnings no more bytes can complete: overlong, a surrogate, above U+10FFFF.
  for bytes: [UInt8] in [[0xE0, 0x80], [0xED, 0xA0], [0xF0, 0x80], [0xF4, 0x90], [0xC0]] {
    #expect(sequence(bytes) == .invalid, "\(bytes)")
  }
}

@Test func offsetsAreIndicesOfTheCollection() {
  let bytes: [UInt8] = [0x41, 0xE2, 0x82, 0xAC, 0xC3]
  let slice = bytes[1...]
  #expect(UTF8Scalars.sequence(in: slice, at: 1) == scalar(0x20AC, 3))
  #expect(UTF8Scalars.sequence(in: slice, at: 4) == .truncated)
  #expect(UTF8Scalars.sequence(in: slice.prefix(2), at: 1) == .truncated)
}

/// The scalar the standard library's validation finds at the start of `bytes`, if any.
private func validated(_ bytes: [UInt8]) -> UTF8Scalars.Sequence? {
  for length in 1...min(4, bytes.count) {
    if let text = String(validating: bytes.prefix(length), as: UTF8.self),
      let first = text.unicodeScalars.first
    {
      return .scalar(first, length: length)
    }
  }
  return nil
}

@Test func resultsAgreeWithTheStandardLibrarysValidation() {
  // Every lead byte with every second byte, and zero to two continuation bytes after them:
  // each length's limits (overlongs, surrogates, U+10FFFF) lie in the first two bytes.
  var disagreements: [[UInt8]] = []
  for lead in 0...255 {
    for second in 0...255 {
      for tail in [[], [0x80], [0xBF, 0x80]] as [[UInt8]] {
        let bytes = [UInt8(lead), UInt8(second)] + tail
        var expected = validated(bytes)
        if expected == nil {
          // Cut off when continuation bytes would complete it.
          if case .scalar(_, let length) = validated(bytes + [0x80, 0x80, 0x80]), length > bytes.count {
            expected = .truncated
          } else {
            expected = .invalid
          }
        }
        if sequence(bytes) != expected { disagreements.append(bytes) }
      }
    }
  }
  #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
}

@Test func unitsMarkEachIllFormedByteAndCanHoldACutEnd() {
  let bytes: [UInt8] = [0x41, 0xFF, 0xC3, 0xA9, 0xED, 0xA0, 0x80, 0xE2, 0x82]
  let base = UTF8Scalars.invalidByteBase
  var units: [UInt32] = []
  #expect(UTF8Scalars.appendUnits(of: bytes, to: &units, holdingCutEnd: true) == 7)
  #expect(units == [0x41, base + 0xFF, 0xE9, base + 0xED, base + 0xA0, base + 0x80])
  units = [7]
  #expect(UTF8Scalars.appendUnits(of: bytes[2...], to: &units) == 9)
  #expect(units == [7, 0xE9, base + 0xED, base + 0xA0, base + 0x80, base + 0xE2, base + 0x82])
  units = []
  #expect(UTF8Scalars.appendUnits(of: [UInt8](), to: &units, holdingCutEnd: true) == 0)
  #expect(units.isEmpty)
}
