import ShelfAudio
public import ShelfCore

// How a file's facts travel from an extraction worker to shelf (see `WireCodable`): every
// stored property, in declaration order.

extension FileKind: WireCodable {}
extension DetectionMethod: WireCodable {}
extension TextEncoding: WireCodable {}
extension LineEndings: WireCodable {}
extension PlistFormat: WireCodable {}
extension ImageColorType: WireCodable {}

extension FileFacts: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(kind)
    wire.write(mime)
    wire.write(detectedBy)
    wire.write(extensionMismatch)
    wire.write(error)
    wire.write(image)
    wire.write(exif)
    wire.write(audio)
    wire.write(video)
    wire.write(text)
    wire.write(plist)
    wire.write(searchText)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      kind: try wire.read(), mime: try wire.read(), detectedBy: try wire.read(),
      extensionMismatch: try wire.read(), error: try wire.read())
    image = try wire.read()
    exif = try wire.read()
    audio = try wire.read()
    video = try wire.read()
    text = try wire.read()
    plist = try wire.read()
    searchText = try wire.read()
  }
}

extension FileFactsError: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(reason)
    wire.write(failure)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(reason: try wire.read(), failure: try wire.read())
  }
}

extension ImageFacts: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(format)
    wire.write(width)
    wire.write(height)
    wire.write(bitDepth)
    wire.write(colorType)
    wire.write(alpha)
    wire.write(interlaced)
    wire.write(cgbi)
    wire.write(frames)
    wire.write(loop)
    wire.write(chunks)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      format: try wire.read(), width: try wire.read(), height: try wire.read(), bitDepth: try wire.read(),
      colorType: try wire.read(), alpha: try wire.read(), interlaced: try wire.read(), cgbi: try wire.read(),
      frames: try wire.read(), loop: try wire.read(), chunks: try wire.read())
  }
}

extension TextFacts: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(encoding)
    wire.write(bom)
    wire.write(lineEndings)
    wire.write(lines)
    wire.write(words)
    wire.write(chars)
    wire.write(firstLine)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      encoding: try wire.read(), bom: try wire.read(), lineEndings: try wire.read(), lines: try wire.read(),
      words: try wire.read(), chars: try wire.read(), firstLine: try wire.read())
  }
}

extension PlistFacts: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(format)
    wire.write(root)
    wire.write(keys)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(format: try wire.read(), root: try wire.read(), keys: try wire.read())
  }
}

extension GPSPosition: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(latitude)
    wire.write(longitude)
    wire.write(altitude)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(latitude: try wire.read(), longitude: try wire.read(), altitude: try wire.read())
  }
}

extension EXIFFacts: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(taken)
    wire.write(camera)
    wire.write(lens)
    wire.write(orientation)
    wire.write(gps)
    wire.write(software)
    wire.write(contentIdentifier)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      taken: try wire.read(), camera: try wire.read(), lens: try wire.read(), orientation: try wire.read(),
      gps: try wire.read(), software: try wire.read(), contentIdentifier: try wire.read())
  }
}
