import Foundation
import ShelfTestSupport
import Testing

/// `shelf devices`: ALSA's hints, as a table and as JSON.
@Suite struct DevicesCommandTests {
  @Test func listsTheNullDeviceAndConfiguredOnes() throws {
    let folder = try TemporaryDirectory()
    let config = try AudioE2E.alsaConfig(in: folder)
    let result = try ShelfProcess.run(["devices"], environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("NAME") == true)
    #expect(
      lines.contains { $0.hasPrefix("null ") && $0.contains("both") && $0.contains("Discard all samples") })
    #expect(lines.contains { $0.hasPrefix("shelftest ") && $0.hasSuffix("Shelf test device") })
  }

  @Test func jsonListsNamesDescriptionsAndDirections() throws {
    let folder = try TemporaryDirectory()
    let config = try AudioE2E.alsaConfig(in: folder)
    let result = try ShelfProcess.run(["devices", "--json"], environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 0)
    let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
    let shelftest = parsed?.first { $0["name"] as? String == "shelftest" }
    #expect(shelftest?["description"] as? String == "Shelf test device")
    #expect(shelftest?["playback"] as? Bool == true)
    #expect(shelftest?["capture"] as? Bool == true)
    #expect(
      result.stdout.contains(
        "{\"name\":\"null\",\"description\":\"Discard all samples (playback) or generate zero samples (capture)\",\"playback\":true,\"capture\":true}"
      ))
  }

  @Test func rejectsArguments() throws {
    let result = try ShelfProcess.run(["devices", "extra"])
    #expect(result.status == 64)
  }
}
