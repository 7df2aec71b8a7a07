import ShelfCore

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
    guard !folders.isEmpty else { return }
    let select = try db.prepare(
      "SELECT id, path, kind, content_id, live_photo FROM files WHERE path >= ? AND path < ? AND (content_id IS NOT NULL OR live_photo IS NOT NULL)"
    )
    let update = try db.prepare("UPDATE files SET live_photo = ?, live_photo_text = ? WHERE id = ?")
    for folder in folders {
      let prefix = folder.bytes + [UInt8(ascii: "/")]
      // Every path below the folder sorts between "folder/" and "folder0" ('0' follows '/').
      try select.bind([.blob(prefix), .blob(folder.bytes + [UInt8(ascii: "0")])])
      var rows: [(id: Int64, path: [UInt8], kind: String, contentID: String?, link: [UInt8]?)] = []
      while try select.step() {
        let path = select.blob(at: 1)
        // Only the folder's own files: a pair never spans folders.
        guard !path[prefix.count...].contains(UInt8(ascii: "/")) else { continue }
        rows.append(
          (
            select.integer(at: 0) ?? 0, path, select.text(at: 2) ?? "", select.text(at: 3),
            select.value(at: 4).bytes
          ))
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
        try update.run([
          partner.map { .blob($0) } ?? .null,
          partner.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null,
          .integer(row.id),
        ])
      }
    }
  }

  /// The folders of a root holding a file with a content identifier but no link: a scan that
  /// was interrupted before linking left them, and the next scan finds their files unchanged.
  func foldersAwaitingLivePhotoLinks(rootID: Int64) throws -> Set<RawPath> {
    let rows = try db.query(
      "SELECT path FROM files WHERE root_id = ? AND content_id IS NOT NULL AND live_photo IS NULL",
      [.integer(rootID)])
    return Set(rows.compactMap { $0.first?.bytes.map { RawPath(bytes: $0).parent } })
  }
}
