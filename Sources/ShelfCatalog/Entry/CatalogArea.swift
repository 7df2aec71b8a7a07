/// Where in an app's sandbox or an iPhone backup a file lies, by the names the catalogue stores
/// and `area:` compares. `allCases` is the documented order: the sandbox's areas
/// (`SandboxLayout`), then those only backups have (`BackupLayout`; an app's container in a
/// backup takes the sandbox's).
public enum CatalogArea: String, CaseIterable, Sendable {
  case bundle, documents, preferences, caches, library, tmp, other
  case cameraRoll = "camera-roll"
  /// Voice Memos.
  case recordings
  case voicemail
  /// Messages attachments.
  case attachments
  /// Notes attachments.
  case notes
}
