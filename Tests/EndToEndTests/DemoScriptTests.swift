import Foundation
import ShelfTestSupport
import Testing

/// `make demo` is the newcomer's first run: it must show the four jobs, with the backups
/// inside SampleMedia catalogued by their real names (never as hashed blobs) and extracted.
@Suite struct DemoScriptTests {
  @Test func theDemoShowsTheFourJobs() throws {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      ShelfProcess.repositoryRoot.appendingPathComponent("scripts/demo.sh").path, ShelfProcess.binary,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    environment["XDG_DATA_HOME"] = ShelfProcess.isolatedDataHome
    environment["TZ"] = "UTC0"
    process.environment = environment
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    #expect(process.terminationStatus == 0, "scripts/demo.sh failed:\n\(text)")
    for job in ["== 1. Catalogue ==", "== 2. iPhone backups", "== 3. PNG ==", "== 4. Audio =="] {
      #expect(text.contains(job), "the demo lacks \(job)")
    }
    // The camera roll of every backup, by its real name.
    let cameraRoll = text.split(separator: "\n").filter {
      $0.contains("CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG")
    }
    #expect(cameraRoll.count >= 7, "the demo's ls area:camera-roll shows \(cameraRoll.count) rows:\n\(text)")
    // No stored file of a backup (40 hexadecimal digits) is listed as an entry of its own.
    let hashed = text.split(separator: "\n").filter { line in
      line.split(whereSeparator: { $0 == "/" || $0 == " " }).contains { part in
        part.count == 40 && part.allSatisfy(\.isHexDigit)
      }
    }
    #expect(hashed.isEmpty, "the demo lists backup blobs: \(hashed.prefix(3))")
    // One extract: each backup's voice memo under its device's name and date.
    #expect(text.contains("./Shelf Test iPhone 2024-05-01/MediaDomain/Media/Recordings/20240501 093000.wav"))
    #expect(text.contains("Shelf Test iPhone 2024-05-01 (2)/"))
  }
}
