import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf info`: correct on every SampleMedia file, and one-line errors with the right exit
/// code on everything that is not a readable, non-empty regular file.
@Suite struct InfoCommandTests {
  @Test func manifestIsPresent() {
    #expect(SampleMediaManifest.entries.count >= 20)
  }

  @Test(arguments: SampleMediaManifest.entries)
  func reportsKindMimeAndSizeOfEverySampleFile(_ entry: SampleMediaManifest.Entry) throws {
    let path = SampleMediaManifest.path(of: entry)
    let result = try ShelfProcess.run(["info", "--json", path])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
    #expect(object?["path"] as? String == path)
    #expect(object?["kind"] as? String == entry.kind)
    #expect(object?["mime"] as? String == entry.mime)
    #expect(object?["size"] as? Int == entry.size)
  }

  @Test func humanOutputNamesKindMimeAndSize() throws {
    let entry = try #require(SampleMediaManifest.entries.first { $0.path.hasSuffix("holiday.jpg") })
    let result = try ShelfProcess.run(["info", SampleMediaManifest.path(of: entry)])
    #expect(result.status == 0)
    #expect(result.stdout.contains("kind:         image\n"))
    #expect(result.stdout.contains("mime:         image/png\n"))
    #expect(result.stdout.contains("size:         580 B (580 bytes)\n"))
    #expect(result.stdout.contains("the extension does not match the content"))
  }

  @Test func severalFilesGiveAJSONArray() throws {
    let paths = SampleMediaManifest.entries.prefix(3).map(SampleMediaManifest.path(of:))
    let result = try ShelfProcess.run(["info", "--json"] + paths)
    let array = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]]
    #expect(array?.map { $0["path"] as? String } == paths)
  }

  @Test func standardInputIsSniffedToo() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write(
      "input", Array("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8))
    let result = try ShelfProcess.run(["info", "--json", "-"], stdinPath: input)
    #expect(result.status == 0)
    #expect(
      result.stdout
        == #"{"path":"-","area":"other","kind":"plist","mime":"application/x-plist","size":59,"detected_by":"content","catalogued":false,"plist":{"format":"xml","root":"dictionary","keys":[]}}"#
        + "\n")
  }

  /// `info FILE`'s lines without those that name the file itself (path, time, extension).
  private func factLines(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter {
      !$0.hasPrefix("path:") && !$0.hasPrefix("modified:") && !$0.hasPrefix("detected by:")
    }
  }

  @Test(arguments: [
    "Documents/gradient-rgba.png", "Documents/tone-440-mono.wav", "Documents/Notes/welcome-utf8.txt",
  ])
  func standardInputGetsEveryFactAFileGets(_ relative: String) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/none.sqlite"
    let file = ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/" + relative).path
    let direct = try ShelfProcess.run(["--db", database, "info", file])
    // Through a real pipe, as `cat FILE | shelf info -` gives it.
    let piped = try ShelfProcess.run(
      ["--db", database, "info", "-"], environment: ["TMPDIR": scratch.path, "SHELF_INPUT": file],
      launcher: ["sh", "-c", #"cat "$SHELF_INPUT" | "$0" "$@""#])
    #expect(direct.status == 0)
    #expect(piped.status == 0)
    #expect(piped.stderr.isEmpty)
    #expect(piped.stdout.hasPrefix("path:         -\n"))
    #expect(factLines(piped.stdout) == factLines(direct.stdout))
    #expect(factLines(direct.stdout).count >= 8)
    // The spooled copy is gone.
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
  }

  @Test func emptyStandardInputIsBadInput() throws {
    let result = try ShelfProcess.run(["info", "-"])
    #expect(result.status == 65)
    #expect(result.stderr == "error: -: empty input\n")
  }

  @Test func missingFileExits66WithOneLine() throws {
    let result = try ShelfProcess.run(["info", "/nonexistent/file.png"])
    #expect(result.status == 66)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr == "error: /nonexistent/file.png: no such file or directory\n")
  }

  @Test func directoryExits66() throws {
    let scratch = try TemporaryDirectory()
    let result = try ShelfProcess.run(["info", scratch.path])
    #expect(result.status == 66)
    #expect(result.stderr == "error: \(scratch.path): is a directory\n")
  }

  @Test func fifoIsRefusedWithoutBlocking() throws {
    let scratch = try TemporaryDirectory()
    let fifo = scratch.path + "/pipe"
    #expect(mkfifo(fifo, 0o644) == 0)
    let result = try ShelfProcess.run(["info", fifo], timeout: 20)
    #expect(result.status == 66)
    #expect(result.stderr == "error: \(fifo): is a FIFO, not a regular file\n")
  }

  @Test func truncatedFileExits65AndStillShowsWhatWasRead() throws {
    let scratch = try TemporaryDirectory()
    let whole = try Data(
      contentsOf: ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents/rgb16.png"))
    let truncated = try scratch.write("cut.png", Array(whole.prefix(20)))
    let result = try ShelfProcess.run(["info", truncated])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(truncated): truncated PNG: IHDR ends early\n")
    #expect(result.stdout.contains("kind:         image\n"))
    #expect(result.stdout.contains("error:        truncated PNG: IHDR ends early\n"))
  }

  @Test func emptyFileExits65() throws {
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty.png", [])
    let result = try ShelfProcess.run(["info", empty])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(empty): file is empty\n")
  }

  @Test func unreadableFileExits66() throws {
    let scratch = try TemporaryDirectory()
    let secret = try scratch.write("secret.txt", Array("hidden\n".utf8))
    #expect(chmod(secret, 0) == 0)
    // Root reads everything: drop to an unprivileged user for this check.
    let prefix = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    #expect(chmod(scratch.path, 0o755) == 0)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = prefix + [ShelfProcess.binary, "info", secret]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 66)
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(message == "error: \(secret): permission denied\n")
  }

  @Test func batchWithSomeFailuresExits1AndReportsTheRest() throws {
    let entry = try #require(SampleMediaManifest.entries.first)
    let result = try ShelfProcess.run(["info", SampleMediaManifest.path(of: entry), "/nonexistent"])
    #expect(result.status == 1)
    #expect(result.stdout.contains("kind:"))
    #expect(result.stderr == "error: /nonexistent: no such file or directory\n")
  }

  @Test func nonUTF8AndControlCharacterNamesAreEscapedOrKeptExactly() throws {
    let scratch = try TemporaryDirectory()
    let name: [UInt8] = Array("bad".utf8) + [0xFF, 0x0A] + Array("name.txt".utf8)
    let path = Array(scratch.path.utf8) + [UInt8(ascii: "/")] + name
    let created = path.withUnsafeBufferPointer { buffer -> Int32 in
      let cPath = buffer.map { CChar(bitPattern: $0) } + [0]
      return cPath.withUnsafeBufferPointer { creat($0.baseAddress!, 0o644) }
    }
    #expect(created >= 0)
    _ = write(created, "text\n", 5)
    close(created)

    let human = try ShelfProcess.run(bytes: [Array("info".utf8), path])
    #expect(human.status == 0)
    #expect(human.stdout.contains("path:         \(scratch.path)/bad\\xff\\nname.txt\n"))

    let json = try ShelfProcess.run(bytes: [Array("info".utf8), Array("--json".utf8), path])
    let object = try JSONSerialization.jsonObject(with: Data(json.stdoutBytes)) as? [String: Any]
    let encoded = try #require(object?["path_b64"] as? String)
    #expect(Data(base64Encoded: encoded).map(Array.init) == path)
  }

  @Test(arguments: SampleMediaManifest.entries)
  func liveFactsOfEverySampleFileMatchTheGenerator(_ entry: SampleMediaManifest.Entry) throws {
    let scratch = try TemporaryDirectory()
    let result = try ShelfProcess.run(
      ["--db", scratch.path + "/none.sqlite", "info", "--json", SampleMediaManifest.path(of: entry)])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    #expect(factMismatches(entry, object) == [])
    #expect(object["catalogued"] as? Bool == false)
  }

  @Test(arguments: TestCatalogues.kinds) func cataloguedFilesShowRootAreaAndFacts(store: CatalogueStoreKind)
    throws
  {
    let sample = try IndexedSample(store)
    let path = sample.root + "/Documents/Notes/welcome-utf8.txt"
    let json = try sample.run(["info", "--json", path])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdoutBytes)) as? [String: Any])
    #expect(object["catalogued"] as? Bool == true)
    #expect(object["root"] as? String == sample.root)
    #expect(object["area"] as? String == "documents")
    let human = try sample.run(["info", path])
    #expect(human.stdout.contains("catalogue:    root \(sample.root), area documents\n"))
    #expect(human.stdout.contains("encoding:     utf-8\n"))
    #expect(human.stdout.contains("lines:        6\n"))
    #expect(human.stdout.contains("first line:   Welcome to Shelf\n"))
    // A file added since the last scan is read live, with its area in the sandbox.
    let fresh = sample.root + "/Library/Preferences/new.txt"
    try Data("fresh\n".utf8).write(to: URL(fileURLWithPath: fresh))
    let live = try sample.run(["info", "--json", fresh])
    let liveObject = try #require(
      try JSONSerialization.jsonObject(with: Data(live.stdoutBytes)) as? [String: Any])
    #expect(liveObject["catalogued"] as? Bool == false)
    #expect(liveObject["area"] as? String == "preferences")
  }

  @Test func otherAudioContainersGiveTheirFacts() throws {
    let scratch = try TemporaryDirectory()
    let expected: [(String, String, String)] = [
      ("aiff", "audio/aiff", "aiff"), ("caf", "audio/x-caf", "caf"), ("au", "audio/basic", "au"),
      ("w64", "audio/x-w64", "w64"),
    ]
    for (ext, mime, format) in expected {
      let path = scratch.path + "/tone." + ext
      let sox = Process()
      sox.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      sox.arguments = [
        "sox", "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "0.5", "sine", "440",
      ]
      try sox.run()
      sox.waitUntilExit()
      try #require(sox.terminationStatus == 0, "sox could not write \(ext)")
      let result = try ShelfProcess.run(["--db", scratch.path + "/none.sqlite", "info", "--json", path])
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
      #expect(object["kind"] as? String == "audio")
      #expect(object["mime"] as? String == mime)
      let audio = try #require(object["audio"] as? [String: Any], "\(ext)")
      #expect(audio["format"] as? String == format)
      #expect(audio["sample_rate"] as? Int == 48000)
      #expect(audio["channels"] as? Int == 2)
      #expect(audio["frames"] as? Int == 24000)
      #expect(audio["duration"] as? Double == 0.5)
    }
  }

  @Test func aFileThatIsNotACatalogueIsLeftUntouched() throws {
    let scratch = try TemporaryDirectory()
    let garbage = Array(repeating: UInt8(0x33), count: 4096)
    let database = try scratch.write("catalog.sqlite", garbage)
    let file = SampleMediaManifest.path(of: try #require(SampleMediaManifest.entries.first))
    let result = try ShelfProcess.run(["--db", database, "info", file])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(FileManager.default.contents(atPath: database) == Data(garbage))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["catalog.sqlite"])
  }
}
