public import ShelfAudio

/// Groups of files that look or sound alike, for `dupes --similar`: images by the Hamming
/// distance of their perceptual hashes (ShelfImage's `PerceptualHash`), audio by the
/// similarity of their Chromaprint fingerprints (`AudioFingerprint`).
///
/// Groups are clusters around a seed, not connected components. Items come best first (the
/// caller's order: most pixels, highest bit rate); each item not yet grouped becomes a seed and
/// takes every ungrouped item within the limit of it. So every member is within the limit of
/// the group's best member, which is its first, and a chain of photographs each a few bits from
/// the next (a series shot in burst, a slow pan) cannot join two pictures that are far apart,
/// as connected components would. The price is that a copy near two seeds joins the better one.
/// Pairwise, members are within twice the limit; each group reports its largest pairwise
/// distance (images) or its least pairwise similarity (audio).
public enum SimilarityGrouping {
  /// The default limit of `imageGroups`: 6 of 64 bits (see PerceptualHashTests).
  public static let defaultImageDistance = 6

  /// A group of images that look alike.
  public struct ImageGroup: Sendable, Equatable {
    /// The members' ids, the best (the seed) first, then in the order they were given.
    public var ids: [Int]
    /// The largest Hamming distance between any two members.
    public var distance: Int
    /// The best member: the first of the group in the order given.
    public var best: Int { ids[0] }
  }

  /// Groups `items` (best first) whose hashes are within `maxDistance` bits of a group's best
  /// member; items that match nothing are left out. Groups come in the order of their best
  /// members. O(n × groups) comparisons of one XOR and popcount each: 10,000 images in well
  /// under a second.
  public static func imageGroups(_ items: [(id: Int, hash: UInt64)], maxDistance: Int = defaultImageDistance)
    -> [ImageGroup]
  {
    var grouped = [Bool](repeating: false, count: items.count)
    var groups: [ImageGroup] = []
    for seed in items.indices where !grouped[seed] {
      grouped[seed] = true
      var members = [seed]
      for other in items.indices where !grouped[other] {
        if (items[seed].hash ^ items[other].hash).nonzeroBitCount <= maxDistance {
          grouped[other] = true
          members.append(other)
        }
      }
      guard members.count > 1 else { continue }
      var distance = 0
      for (position, first) in members.enumerated() {
        for second in members[(position + 1)...] {
          distance = max(distance, (items[first].hash ^ items[second].hash).nonzeroBitCount)
        }
      }
      groups.append(ImageGroup(ids: members.map { items[$0].id }, distance: distance))
    }
    return groups
  }

  /// An audio file to group: its fingerprint and its length.
  public struct AudioItem: Sendable {
    /// The caller's id for the file.
    public var id: Int
    /// The file's fingerprint.
    public var fingerprint: AudioFingerprint
    /// The whole file's length in seconds (not only the fingerprinted part): two encodings of
    /// one recording last the same within a second or two, which spares comparing most pairs.
    public var duration: Double

    /// An item to group.
    public init(id: Int, fingerprint: AudioFingerprint, duration: Double) {
      self.id = id
      self.fingerprint = fingerprint
      self.duration = duration
    }
  }

  /// A group of audio files holding the same recording.
  public struct AudioGroup: Sendable, Equatable {
    /// The members' ids, the best (the seed) first, then in the order they were given.
    public var ids: [Int]
    /// The least `AudioFingerprint.similarity` between any two members (0…1).
    public var similarity: Double
    /// The best member: the first of the group in the order given.
    public var best: Int { ids[0] }
    /// The group's spread as a distance: 1 − `similarity` (0 for identical fingerprints).
    public var distance: Double { 1 - similarity }
  }

  /// Groups `items` (best first) whose fingerprints are at least `minSimilarity` alike with a
  /// group's best member and whose lengths differ from its by at most `maxDurationDifference`
  /// seconds; items that match nothing are left out.
  ///
  /// A comparison costs ~80 alignments of the fingerprints (about 0.1 ms for two minutes each,
  /// release build), so the length window matters: a music library is compared only within
  /// tracks of about the same length.
  public static func audioGroups(
    _ items: [AudioItem], minSimilarity: Double = AudioFingerprint.sameRecordingSimilarity,
    maxDurationDifference: Double = 5
  ) -> [AudioGroup] {
    // Indices by length, to find the candidates of a seed by two binary searches.
    let byDuration = items.indices.sorted { items[$0].duration < items[$1].duration }
    let durations = byDuration.map { items[$0].duration }
    func firstAtLeast(_ value: Double) -> Int {
      var low = 0
      var high = durations.count
      while low < high {
        let middle = (low + high) / 2
        if durations[middle] < value { low = middle + 1 } else { high = middle }
      }
      return low
    }
    var grouped = [Bool](repeating: false, count: items.count)
    var groups: [AudioGroup] = []
    for seed in items.indices where !grouped[seed] {
      grouped[seed] = true
      let low = firstAtLeast(items[seed].duration - maxDurationDifference)
      let high = firstAtLeast(items[seed].duration + maxDurationDifference + 1e-9)
      // Candidates in the caller's order, so that the members' order does not depend on lengths.
      let candidates = byDuration[low..<high].filter { !grouped[$0] }.sorted()
      var members = [seed]
      for other in candidates
      where items[other].duration <= items[seed].duration + maxDurationDifference
        && items[seed].fingerprint.similarity(to: items[other].fingerprint) >= minSimilarity
      {
        grouped[other] = true
        members.append(other)
      }
      guard members.count > 1 else { continue }
      var least = 1.0
      for (position, first) in members.enumerated() {
        for second in members[(position + 1)...] {
          least = min(least, items[first].fingerprint.similarity(to: items[second].fingerprint))
        }
      }
      groups.append(AudioGroup(ids: members.map { items[$0].id }, similarity: least))
    }
    return groups
  }
}
