import ShelfCatalog
import Testing

/// The areas of backup entries: what people look for, wherever each iOS version put it.
@Test(arguments: [
  ("CameraRollDomain", "Media/DCIM/100APPLE/IMG_0001.HEIC", "camera-roll"),
  ("MediaDomain", "Media/DCIM/100APPLE/IMG_0002.JPG", "camera-roll"),
  ("CameraRollDomain", "Media/PhotoData/Photos.sqlite", "other"),
  // iCloud-era originals kept on the phone, and edited renders; thumbnails and metadata are not
  // the camera roll.
  (
    "CameraRollDomain", "Media/PhotoData/CPLAssets/group12/0B8C6B0E-2B1D-4C9A-9E1A-000000000042.HEIC",
    "camera-roll"
  ),
  (
    "CameraRollDomain", "Media/PhotoData/Mutations/DCIM/100APPLE/IMG_0001/Adjustments/FullSizeRender.jpg",
    "camera-roll"
  ),
  (
    "CameraRollDomain",
    "Media/PhotoData/Mutations/PhotoData/CPLAssets/group12/0B8C/Adjustments/FullSizeRender.heic",
    "camera-roll"
  ),
  (
    "CameraRollDomain", "Media/PhotoData/Mutations/DCIM/100APPLE/IMG_0001/Adjustments/Adjustments.plist",
    "other"
  ),
  ("CameraRollDomain", "Media/PhotoData/Thumbnails/V2/DCIM/100APPLE/IMG_0001.JPG/5005.JPG", "other"),
  ("CameraRollDomain", "Media/PhotoData/Thumbnails/3141.ithmb", "other"),
  ("CameraRollDomain", "Media/PhotoData/Metadata/DCIM/100APPLE/IMG_0001.JPG", "other"),
  // Notes' attachments; the rest of its group container is an app's.
  ("AppDomainGroup-group.com.apple.notes", "Accounts/LocalAccount/Media/5C1A/IMG_0005.JPG", "notes"),
  ("AppDomainGroup-group.com.apple.notes", "NoteStore.sqlite", "other"),
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
