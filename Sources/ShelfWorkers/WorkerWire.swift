import ShelfCore
import ShelfFacts

// How requests and replies travel between shelf and its extraction workers (see
// `WireCodable`): a case as a byte, then its values.

extension WorkerTask: WireCodable {
  func write(to wire: inout WireWriter) {
    switch self {
    case .facts: wire.writeCase(0)
    case .fingerprint(let kind):
      wire.writeCase(1)
      wire.write(kind)
    }
  }

  init(from wire: inout WireReader) throws(WireFormatError) {
    switch try wire.readCase() {
    case 0: self = .facts
    case 1: self = .fingerprint(try wire.read())
    default: throw WireFormatError("unknown task")
    }
  }
}

extension WorkerRequest: WireCodable {
  func write(to wire: inout WireWriter) {
    wire.writeBytes(path)
    wire.write(fileExtension)
    wire.write(cpuSeconds)
    wire.write(task)
  }

  init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      path: try wire.readBytes(), fileExtension: try wire.read(), cpuSeconds: try wire.read(),
      task: try wire.read())
  }
}

extension SimilarityFingerprint: WireCodable {
  public func write(to wire: inout WireWriter) {
    switch self {
    case .image(let hash):
      wire.writeCase(0)
      wire.write(hash)
    case .audio(let fingerprint):
      wire.writeCase(1)
      wire.write(fingerprint)
    }
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    switch try wire.readCase() {
    case 0: self = .image(try wire.read())
    case 1: self = .audio(try wire.read())
    default: throw WireFormatError("unknown fingerprint")
    }
  }
}

extension WorkerReply: WireCodable {
  func write(to wire: inout WireWriter) {
    switch self {
    case .extracted(let facts):
      wire.writeCase(0)
      wire.write(facts)
    case .fingerprinted(let fingerprint):
      wire.writeCase(1)
      wire.write(fingerprint)
    case .unreadable(let reason, let vanished):
      wire.writeCase(2)
      wire.write(reason)
      wire.write(vanished)
    }
  }

  init(from wire: inout WireReader) throws(WireFormatError) {
    switch try wire.readCase() {
    case 0: self = .extracted(try wire.read())
    case 1: self = .fingerprinted(try wire.read())
    case 2: self = .unreadable(reason: try wire.read(), vanished: try wire.read())
    default: throw WireFormatError("unknown reply")
    }
  }
}
