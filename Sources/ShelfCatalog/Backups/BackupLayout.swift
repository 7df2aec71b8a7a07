/// Names the area of an iPhone backup's file from its domain and path, for what people look
/// for in a backup: the camera roll, voice recordings, voicemail, Messages attachments, and
/// each app's documents, preferences and caches as in a sandbox.
public enum BackupLayout {
  /// The area of the file at `relativePath` in `domain`.
  public static func area(domain: String, relativePath: [UInt8]) -> CatalogArea {
    func under(_ prefix: String) -> Bool { relativePath.starts(with: Array(prefix.utf8)) }
    let media = domain == "CameraRollDomain" || domain == "MediaDomain"
    if media && under("Media/DCIM/") { return .cameraRoll }
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

  /// The area of a path inside an app's container, as `SandboxLayout` names it.
  private static func sandboxArea(_ relative: [UInt8]) -> CatalogArea {
    let area = SandboxLayout(isSandbox: true, bundleName: nil).area(of: relative)
    return area == .bundle ? .other : area
  }
}
