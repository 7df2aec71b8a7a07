import Foundation

/// The facts the sample-media generator wrote about each file of SampleMedia/
/// (Tests/Fixtures/sample-media.json), for checking what shelf reports.
struct SampleMediaManifest {
  struct Entry: Sendable, CustomStringConvertible {
    let path: String
    let kind: String
    let mime: String
    let size: Int
    let area: String
    /// The per-kind facts object (`image`, `audio`, `text`, `plist`) as JSON text.
    let factsJSON: String

    /// The per-kind facts, parsed.
    var facts: [String: Any] {
      (try? JSONSerialization.jsonObject(with: Data(factsJSON.utf8)) as? [String: Any]) ?? [:]
    }

    var description: String { path }
  }

  static let entries: [Entry] = {
    let url = ShelfProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/sample-media.json")
    guard let data = try? Data(contentsOf: url),
      let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let files = root["files"] as? [[String: Any]]
    else { return [] }
    return files.map { file in
      let kind = file["kind"] as? String ?? ""
      return Entry(
        path: file["path"] as? String ?? "", kind: kind, mime: file["mime"] as? String ?? "",
        size: file["size"] as? Int ?? -1, area: file["area"] as? String ?? "",
        factsJSON: String(
          decoding: (try? JSONSerialization.data(withJSONObject: file[kind] ?? [:])) ?? Data(),
          as: UTF8.self))
    }
  }()

  /// The absolute path of an entry in the committed SampleMedia folder.
  static func path(of entry: Entry) -> String {
    ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/" + entry.path).path
  }
}
