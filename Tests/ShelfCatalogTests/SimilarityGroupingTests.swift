import ShelfAudio
import Testing

@testable import ShelfCatalog

@Suite struct SimilarityGroupingTests {
  /// `base` with the bits at `positions` flipped.
  static func flip(_ base: UInt64, _ positions: [Int]) -> UInt64 {
    positions.reduce(base) { $0 ^ (1 << UInt64($1)) }
  }

  @Test func membersJoinTheBestSeedWithinTheDistance() {
    let a: UInt64 = 0x0123_4567_89AB_CDEF
    let b: UInt64 = 0xFEDC_BA98_7654_3210
    let items: [(id: Int, hash: UInt64)] = [
      (10, a), (20, b), (11, Self.flip(a, [1, 2, 3])), (12, Self.flip(a, [40, 41, 42, 43, 44, 45])),
      (21, Self.flip(b, [7])), (30, Self.flip(b, Array(0..<32))),
    ]
    let groups = SimilarityGrouping.imageGroups(items, maxDistance: 6)
    #expect(groups.map(\.ids) == [[10, 11, 12], [20, 21]])
    #expect(groups.map(\.best) == [10, 20])
    // 11 and 12 differ in 3 + 6 bits: the pairwise spread, larger than either's distance to 10.
    #expect(groups.map(\.distance) == [9, 1])
  }

  @Test func aChainDoesNotJoinPicturesFarApart() {
    // Each 4 bits from the previous one: connected components would make one group of five.
    let chain = (0..<5).map { step in Self.flip(0, Array(0..<(4 * step))) }
    let items = chain.enumerated().map { (id: $0.offset, hash: $0.element) }
    let groups = SimilarityGrouping.imageGroups(items, maxDistance: 6)
    #expect(groups.map(\.ids) == [[0, 1], [2, 3]])
    #expect(groups.allSatisfy { group in group.distance <= 6 })
  }

  @Test func identicalHashesGroupAtDistanceZero() {
    let groups = SimilarityGrouping.imageGroups([(1, 5), (2, 5), (3, 5)], maxDistance: 0)
    #expect(groups == [SimilarityGrouping.ImageGroup(ids: [1, 2, 3], distance: 0)])
    #expect(SimilarityGrouping.imageGroups([], maxDistance: 6).isEmpty)
  }

  /// Pseudo-random fingerprint items (a fixed LCG), `count` long.
  static func items(seed: UInt32, count: Int) -> [UInt32] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 1_664_525 &+ 1_013_904_223
      return state
    }
  }

  @Test func audioGroupsByFingerprintWithinTheLengthWindow() {
    let song = Self.items(seed: 1, count: 400)
    let other = Self.items(seed: 2, count: 400)
    // A lossy copy: two bits of every item flipped (bit error rate 1/16), and shifted by 3 items.
    let copy = Array(song.dropFirst(3).map { $0 ^ 0b101 })
    let entries = [
      SimilarityGrouping.AudioItem(id: 1, fingerprint: AudioFingerprint(raw: song), duration: 180),
      SimilarityGrouping.AudioItem(id: 2, fingerprint: AudioFingerprint(raw: other), duration: 181),
      SimilarityGrouping.AudioItem(id: 3, fingerprint: AudioFingerprint(raw: copy), duration: 179.6),
      // The same fingerprint but a much longer file (a live version that starts alike): not grouped.
      SimilarityGrouping.AudioItem(id: 4, fingerprint: AudioFingerprint(raw: song), duration: 240),
    ]
    let groups = SimilarityGrouping.audioGroups(entries)
    #expect(groups.map(\.ids) == [[1, 3]])
    #expect(groups.map(\.best) == [1])
    #expect(abs(groups[0].similarity - 0.875) < 1e-9)
    #expect(abs(groups[0].distance - 0.125) < 1e-9)
    let wide = SimilarityGrouping.audioGroups(entries, maxDurationDifference: 100)
    #expect(wide.map(\.ids) == [[1, 3, 4]])
  }
}
