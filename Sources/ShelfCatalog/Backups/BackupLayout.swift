/// Names the area of an iPhone backup's file from its domain and path, for what people look
/// for in a backup: the camera roll, voice recordings, voicemail, Messages and Notes
/// attachments, and each app's documents, preferences and caches as in a sandbox.
public enum BackupLayout {
  /// The area of the file at `relativePath` in `domain`.
  public static func area(domain: String, relativePath: [UInt8]) -> CatalogArea {
    func under(_ prefix: String) -> Bool { relativePath.starts(with: Array(prefix.utf8)) }
    let media = domain == "CameraRollDomain" || domain == "MediaDomain"
    if media && isCameraRoll(relativePath) { return .cameraRoll }
    if domain == "AppDomainGroup-group.com.apple.notes" && under("Accounts/")
      && contains(relativePath, "/Media/")
    {
      return .notes
    }
    if domain == "MediaDomain" && under("Media/Recordings/") { return .recordings }
    if domain == "AppDomainGroup-group.com.apple.VoiceMemos.shared" && under("Recordings/") {
      return .recordings
    }
    if domain == "HomeDomain" && under("Library/Voicemail/") { return .voicemail }
    if (domain == "MediaDomain" || domain == "HomeDomain") && under("Library/SMS/Attachments/") {
      return .attachments
    }
    let containers = ["AppDomain-", "AppDomainGroup-", "AppDomainPlugin-"]
    if domain == "HomeDomain" || containers.contains(where: domain.hasPrefix) {
      return sandboxArea(relativePath)
    }
    return .other
  }

  /// True for what the Photos app shows: the originals in `Media/DCIM`, the iCloud-era ones kept
  /// on the phone (`Media/PhotoData/CPLAssets/groupNNN/<UUID>.<ext>`), and the renders of edits
  /// (`Media/PhotoData/Mutations/<original's folder>/<stem>/Adjustments/FullSizeRender.<ext>`);
  /// not thumbnails, caches or metadata (`PhotoData/Thumbnails`, `.ithmb`, `PhotoData/Metadata`).
  private static func isCameraRoll(_ path: [UInt8]) -> Bool {
    if path.starts(with: Array("Media/DCIM/".utf8))
      || path.starts(with: Array("Media/PhotoData/CPLAssets/".utf8))
    {
      return true
    }
    guard path.starts(with: Array("Media/PhotoData/Mutations/".utf8)) else { return false }
    let name = path.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
    return name.starts(with: Array("FullSizeRender.".utf8)) && contains(path, "/Adjustments/")
  }

  /// True when `path` holds `part`.
  private static func contains(_ path: [UInt8], _ part: String) -> Bool {
    let needle = Array(part.utf8)
    guard path.count >= needle.count else { return false }
    return (0...(path.count - needle.count)).contains { path[$0..<($0 + needle.count)].elementsEqual(needle) }
  }

  /// The area of a path inside an app's container, as `SandboxLayout` names it.
  private static func sandboxArea(_ relative: [UInt8]) -> CatalogArea {
    let area = SandboxLayout(isSandbox: true, bundleName: nil).area(of: relative)
    return area == .bundle ? .other : area
  }
}
