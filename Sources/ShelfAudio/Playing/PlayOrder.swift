/// How `--shuffle` and `--album-shuffle` order a playlist.
public enum ShuffleMode: String, Sendable, CaseIterable {
  /// The order given.
  case off
  /// Every track in a random order.
  case tracks
  /// Albums in a random order, each album's tracks in track order (disc, track).
  case albums
}

/// What happens after a track ends.
public enum RepeatMode: String, Sendable, CaseIterable {
  /// The playlist ends after its last track.
  case off
  /// The playlist starts again (reshuffled when shuffling) after its last track.
  case all
  /// The track plays again until another is asked for.
  case one

  /// The mode after this one when the `r` key cycles: off, all, one, off.
  public var next: RepeatMode {
    switch self {
    case .off: .all
    case .all: .one
    case .one: .off
    }
  }
}

/// SplitMix64 (Steele, Lea and Flood): a small generator whose sequence a `--seed` fixes, so that
/// a shuffled order can be played again. Not for secrets.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The order a player plays its tracks in.
public enum PlayOrder {
  /// Playlist indices of the tracks (one album key each in `albums`) in `mode`'s order. With
  /// `first`, the order starts there: the tracks after it in list order, or the rest shuffled
  /// (by album: the rest of its album first). By album, an album's tracks play by their
  /// `positions` (disc, track); tracks without one follow, in list order.
  public static func order(
    albums: [String?], positions: [AlbumPosition?] = [], mode: ShuffleMode, first: Int? = nil,
    using generator: inout SeededGenerator
  ) -> [Int] {
    let count = albums.count
    let first = first.flatMap { (0..<count).contains($0) ? $0 : nil }
    switch mode {
    case .off:
      return Array((first ?? 0)..<count)
    case .tracks:
      var order = Array(0..<count).filter { $0 != first }
      order.shuffle(using: &generator)
      return (first.map { [$0] } ?? []) + order
    case .albums:
      // Albums play their tracks in track order; an untagged track is an album of its own.
      var keys: [String] = []
      var members: [String: [Int]] = [:]
      for (index, album) in albums.enumerated() {
        let key = album ?? "\u{0}\(index)"
        if members[key] == nil { keys.append(key) }
        members[key, default: []].append(index)
      }
      func position(_ index: Int) -> AlbumPosition {
        (positions.indices.contains(index) ? positions[index] : nil) ?? AlbumPosition(disc: .max, track: .max)
      }
      for key in keys {
        members[key]?.sort { (position($0), $0) < (position($1), $1) }
      }
      var opening: [Int] = []
      if let first {
        let key = albums[first] ?? "\u{0}\(first)"
        opening = Array(members[key]!.drop { $0 != first })
        keys.removeAll { $0 == key }
      }
      keys.shuffle(using: &generator)
      return opening + keys.flatMap { members[$0]! }
    }
  }
}
