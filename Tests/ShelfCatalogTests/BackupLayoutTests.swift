import ShelfCatalog
import Testing

/// The areas of backup entries: what people look for, wherever each iOS version put it.
@Test(arguments: [
  ("CameraRollDomain", "Media/DCIM/100APPLE/IMG_0001.HEIC", "camera-roll"),
  ("MediaDomain", "Media/DCIM/100APPLE/IMG_0002.JPG", "camera-roll"),
  ("CameraRollDomain", "Media/PhotoData/Photos.sqlite", "other"),
  ("MediaDomain", "Media/Recordings/20240501 093000.m4a", "recordings"),
  ("AppDomainGroup-group.com.apple.VoiceMemos.shared", "Recordings/20240501 093000.m4a", "recordings"),
  ("HomeDomain", "Library/Voicemail/1.amr", "voicemail"),
  ("MediaDomain", "Library/SMS/Attachments/0a/10/IMG_0003.HEIC", "attachments"),
  ("HomeDomain", "Library/SMS/sms.db", "library"),
  ("AppDomain-com.example.notes", "Documents/welcome.txt", "documents"),
  ("AppDomain-com.example.notes", "Library/Preferences/com.example.notes.plist", "preferences"),
  ("AppDomainPlugin-com.example.notes.widget", "Library/Caches/cache.db", "caches"),
  ("AppDomain-com.example.notes", "tmp/x", "tmp"),
  ("SystemPreferencesDomain", "SystemConfiguration/preferences.plist", "other"),
])
func backupAreas(domain: String, path: String, area: String) {
  #expect(BackupLayout.area(domain: domain, relativePath: Array(path.utf8)).rawValue == area)
}
