public import ShelfCore

// How the facts of audio and video files travel from an extraction worker to shelf (see
// `WireCodable`): every stored property, in declaration order.

extension ReplayGain.Source: WireCodable {}
extension AudioError.Reason: WireCodable {}

extension AudioTags: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(title)
    wire.write(artist)
    wire.write(album)
    wire.write(date)
    wire.write(track)
    wire.write(genre)
    wire.write(comment)
    wire.write(albumArtist)
    wire.write(trackTotal)
    wire.write(disc)
    wire.write(discTotal)
    wire.write(replayGain)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      title: try wire.read(), artist: try wire.read(), album: try wire.read(), date: try wire.read(),
      track: try wire.read(), genre: try wire.read(), comment: try wire.read(), albumArtist: try wire.read(),
      trackTotal: try wire.read(), disc: try wire.read(), discTotal: try wire.read())
    replayGain = try wire.read()
  }
}

extension ReplayGain: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(trackGain)
    wire.write(trackPeak)
    wire.write(albumGain)
    wire.write(albumPeak)
    wire.write(source)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      trackGain: try wire.read(), trackPeak: try wire.read(), albumGain: try wire.read(),
      albumPeak: try wire.read(), source: try wire.read())
  }
}

extension AudioError: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(subject)
    wire.write(reason)
    wire.write(message)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(subject: try wire.read(), reason: try wire.read(), message: try wire.read())
  }
}

extension AudioFileInfo: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(duration)
    wire.write(sampleRate)
    wire.write(channels)
    wire.write(frames)
    wire.write(formatName)
    wire.write(encodingName)
    wire.write(bitsPerSample)
    wire.write(isLossless)
    wire.write(tags)
    wire.write(codec)
    wire.write(bitrate)
    wire.write(hasArtwork)
    wire.write(defect)
    wire.write(container)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      duration: try wire.read(), sampleRate: try wire.read(), channels: try wire.read(),
      frames: try wire.read(),
      formatName: try wire.read(), encodingName: try wire.read(), bitsPerSample: try wire.read(),
      isLossless: try wire.read(), tags: try wire.read(), codec: try wire.read(), bitrate: try wire.read(),
      hasArtwork: try wire.read(), defect: try wire.read(), container: try wire.read())
  }
}

extension VideoFileInfo: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.write(duration)
    wire.write(width)
    wire.write(height)
    wire.write(codec)
    wire.write(frameRate)
    wire.write(rotation)
    wire.write(audioCodec)
    wire.write(sampleRate)
    wire.write(channels)
    wire.write(bitrate)
    wire.write(taken)
    wire.write(contentIdentifier)
    wire.write(tags)
    wire.write(formatName)
    wire.write(container)
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    self.init(
      duration: try wire.read(), width: try wire.read(), height: try wire.read(), codec: try wire.read(),
      frameRate: try wire.read(), rotation: try wire.read(), audioCodec: try wire.read(),
      sampleRate: try wire.read(), channels: try wire.read(), bitrate: try wire.read(),
      taken: try wire.read(),
      contentIdentifier: try wire.read(), tags: try wire.read(), formatName: try wire.read(),
      container: try wire.read())
  }
}
