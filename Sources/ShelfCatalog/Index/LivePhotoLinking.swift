import ShelfCore
import ShelfDatabase
import ShelfFacts

/// Live Photos: an iPhone saves the still (HEIC or JPEG) and the movie (MOV) of one Live
/// Photo as two files that share Apple's content identifier (the still's MakerNote tag 17,
/// the movie's `com.apple.quicktime.content.identifier`). The catalogue links such a pair
/// both ways when both lie in one folder, so `live_photo` names the other half.
extension CatalogStore {
  /// Recomputes the Live Photo links of the files directly inside each of `folders`: a still
  /// and a movie sharing a content identifier point at each other (with several, at the first
  /// by path); every other file there loses a link it had. Runs inside the caller's
  /// transaction.
  func linkLivePhotos(inFolders folders: Set<RawPath>) throws {
    for folder in folders {
      let prefix = folder.bytes + [UInt8(ascii: "/")]
      // Only the folder's own files: a pair never spans folders.
      let rows = try livePhotoCandidates(inFolder: folder).filter {
        !$0.path[prefix.count...].contains(UInt8(ascii: "/"))
      }
      var stills: [String: [UInt8]] = [:]
      var movies: [String: [UInt8]] = [:]
      for row in rows.sorted(by: { $0.path.lexicographicallyPrecedes($1.path) }) {
        guard let id = row.contentID else { continue }
        if row.kind == FileKind.image.rawValue, stills[id] == nil { stills[id] = row.path }
        if row.kind == FileKind.video.rawValue, movies[id] == nil { movies[id] = row.path }
      }
      for row in rows {
        var partner: [UInt8]?
        if let id = row.contentID {
          if row.kind == FileKind.image.rawValue { partner = movies[id] }
          if row.kind == FileKind.video.rawValue { partner = stills[id] }
        }
        guard partner != row.link else { continue }
        try setLivePhoto(id: row.id, partner: partner)
      }
    }
  }

  /// The folders of a root holding a file with a content identifier but no link: a scan that
  /// was interrupted before linking left them, and the next scan finds their files unchanged.
  func foldersAwaitingLivePhotoLinks(rootID: Int64) throws -> Set<RawPath> {
    Set(try pathsAwaitingLivePhotoLinks(rootID: rootID).map(\.parent))
  }
}

/// A file that may be half of a Live Photo, as the store holds it.
struct LivePhotoCandidate {
  var id: Int64
  var path: [UInt8]
  var kind: String
  var contentID: String?
  /// The partner recorded now, if any.
  var link: [UInt8]?
}

extension LivePhotoCandidate {
  /// The columns a candidate is read from (see `init(row:)`), in the order selected.
  enum Column: Int, SelectedColumn {
    case id, path, kind, contentID, link

    var sql: String {
      switch self {
      case .id: "f.id"
      case .path: "f.path"
      case .kind: "f.kind"
      case .contentID: "f.content_id"
      case .link: "f.live_photo"
      }
    }
  }

  /// Reads a row of `Column.selectList`.
  init(row: some DatabaseRow) {
    let link = Column.link.rawValue
    self.init(
      id: row.integer(at: Column.id.rawValue) ?? 0, path: row.blob(at: Column.path.rawValue),
      kind: row.text(at: Column.kind.rawValue) ?? "", contentID: row.text(at: Column.contentID.rawValue),
      link: row.text(at: link) == nil ? nil : row.blob(at: link))
  }

  /// The SQL condition (two byte-string parameters) for the files below a folder with a
  /// content identifier or a link: every path below it sorts between "folder/" and "folder0"
  /// ('0' follows '/').
  static let condition =
    "f.path >= ? AND f.path < ? AND (f.content_id IS NOT NULL OR f.live_photo IS NOT NULL)"

  /// The two bounds of `condition` for `folder`.
  static func bounds(_ folder: RawPath) -> [DatabaseValue] {
    let bounds = folder.descendantBounds
    return [.blob(bounds.lower), .blob(bounds.upper)]
  }
}

extension RawPath {
  /// The byte strings between which every path below this folder sorts, as SQL compares
  /// blobs: "folder/" and "folder0" ('0' follows '/'); "/" and "0" below the file system's root.
  var descendantBounds: (lower: [UInt8], upper: [UInt8]) {
    let stem = bytes.last == UInt8(ascii: "/") ? Array(bytes.dropLast()) : bytes
    return (stem + [UInt8(ascii: "/")], stem + [UInt8(ascii: "0")])
  }
}
