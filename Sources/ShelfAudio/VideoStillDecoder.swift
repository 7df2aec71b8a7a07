internal import CFFmpeg
internal import CFFmpegSupport
internal import CSwscale
public import ShelfCore

/// The first picture of a video, scaled to fit a box and turned upright.
public struct VideoStill: Sendable, Equatable {
  /// Columns of pixels.
  public var width: Int
  /// Rows of pixels.
  public var height: Int
  /// `width * height * 4` bytes: R, G, B, A per pixel, rows top down.
  public var rgba: [UInt8]
}

/// Decodes the first frame of a video's first real video stream (not cover art) with FFmpeg,
/// scales it with libswscale straight to the size a preview needs, and applies the stream's
/// display rotation (a phone's portrait clip is stored sideways).
public enum VideoStillDecoder {
  /// The most packets read before giving up on a first frame (a stream that never decodes).
  static let packetLimit = 2000

  /// The first frame of the video at `path`, at most `maxWidth` × `maxHeight` pixels once
  /// upright, keeping its aspect ratio and never enlarged.
  public static func firstFrame(path: RawPath, maxWidth: Int, maxHeight: Int) throws(FFmpegError)
    -> VideoStill
  {
    let input = try FFmpegInput(path: path)
    guard let stream = input.videoStream, let parameters = input.codecParameters(stream: stream.index) else {
      throw FFmpegError(
        path: path, call: "find video stream", code: -EINVAL, message: "no video stream", failure: .badInput)
    }
    guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw FFmpegError(
        path: path, call: "avcodec_find_decoder", code: -ENOSYS,
        message: "no decoder for video codec \(stream.codec)", failure: .badInput)
    }
    var context = avcodec_alloc_context3(codec)
    defer { avcodec_free_context(&context) }
    guard let context else { throw FFmpegError.outOfMemory(path: path, call: "avcodec_alloc_context3") }
    try FFmpegError.check("avcodec_parameters_to_context", path: path) {
      avcodec_parameters_to_context(context, parameters)
    }
    try FFmpegError.check("avcodec_open2", path: path) { avcodec_open2(context, codec, nil) }
    var frame = av_frame_alloc()
    var packet = av_packet_alloc()
    defer {
      av_frame_free(&frame)
      av_packet_free(&packet)
    }
    guard let frame, let packet else { throw FFmpegError.outOfMemory(path: path, call: "av_frame_alloc") }
    var decoded = false
    var packets = 0
    reading: while !decoded && packets < packetLimit {
      let more = try input.readPacket(into: packet)
      defer { av_packet_unref(packet) }
      if more && packet.pointee.stream_index != Int32(stream.index) { continue }
      packets += 1
      // At the end of the file, an empty packet drains the frames the decoder holds back.
      try FFmpegError.check("avcodec_send_packet", path: path) {
        let sent = avcodec_send_packet(context, more ? packet : nil)
        return sent == shelf_averror_eagain ? 0 : sent
      }
      let received = avcodec_receive_frame(context, frame)
      if received == 0 {
        decoded = true
      } else if received == shelf_averror_eagain && more {
        continue reading
      } else {
        try FFmpegError.check("avcodec_receive_frame", path: path) { received }
        break reading
      }
    }
    guard decoded, frame.pointee.width > 0, frame.pointee.height > 0 else {
      throw FFmpegError(
        path: path, call: "avcodec_receive_frame", code: -EINVAL, message: "no video frame could be decoded",
        failure: .badInput)
    }
    let quarterTurns = ((stream.rotation % 360 + 360) % 360) / 90
    let sideways = quarterTurns % 2 == 1
    let sourceWidth = Int(frame.pointee.width)
    let sourceHeight = Int(frame.pointee.height)
    let box = sideways ? (width: maxHeight, height: maxWidth) : (width: maxWidth, height: maxHeight)
    let scale = min(1, Double(box.width) / Double(sourceWidth), Double(box.height) / Double(sourceHeight))
    let width = max(1, Int((Double(sourceWidth) * scale).rounded()))
    let height = max(1, Int((Double(sourceHeight) * scale).rounded()))
    guard
      let scaler = sws_getContext(
        Int32(sourceWidth), Int32(sourceHeight), AVPixelFormat(frame.pointee.format), Int32(width),
        Int32(height),
        AV_PIX_FMT_RGBA, SWS_AREA, nil, nil, nil)
    else {
      throw FFmpegError(
        path: path, call: "sws_getContext", code: -EINVAL, message: "cannot convert the video's pixels",
        failure: .badInput)
    }
    defer { sws_freeContext(scaler) }
    var rgba = [UInt8](repeating: 0, count: width * height * 4)
    let scaled = rgba.withUnsafeMutableBufferPointer { buffer in
      var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
      var strides: [Int32] = [Int32(width * 4), 0, 0, 0]
      return withUnsafePointer(to: frame.pointee.data) { data in
        withUnsafePointer(to: frame.pointee.linesize) { lines in
          data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
            lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
              sws_scale(scaler, sourcePlanes, sourceStrides, 0, Int32(sourceHeight), &planes, &strides)
            }
          }
        }
      }
    }
    guard scaled == Int32(height) else {
      throw FFmpegError(path: path, call: "sws_scale", code: scaled < 0 ? scaled : -EINVAL)
    }
    return rotated(VideoStill(width: width, height: height, rgba: rgba), quarterTurns: quarterTurns)
  }

  /// The picture turned clockwise by `quarterTurns` quarter turns.
  static func rotated(_ still: VideoStill, quarterTurns: Int) -> VideoStill {
    guard quarterTurns % 4 != 0 else { return still }
    let sideways = quarterTurns % 2 == 1
    let width = sideways ? still.height : still.width
    let height = sideways ? still.width : still.height
    var rgba = [UInt8](repeating: 0, count: still.rgba.count)
    for y in 0..<still.height {
      for x in 0..<still.width {
        let (toX, toY) =
          switch quarterTurns % 4 {
          case 1: (still.height - 1 - y, x)
          case 2: (still.width - 1 - x, still.height - 1 - y)
          default: (y, still.width - 1 - x)
          }
        let from = (y * still.width + x) * 4
        let to = (toY * width + toX) * 4
        rgba[to..<(to + 4)] = still.rgba[from..<(from + 4)]
      }
    }
    return VideoStill(width: width, height: height, rgba: rgba)
  }
}
