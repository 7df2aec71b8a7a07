internal import ShelfAudio
public import ShelfCore

extension ImagePreviewDecoder {
  /// The first frame of the video at `path` as a preview picture: decoded by FFmpeg, scaled by
  /// libswscale to fit `maxWidth` × `maxHeight` (never enlarged), upright by the stream's
  /// display rotation.
  public static func videoStill(path: RawPath, maxWidth: Int, maxHeight: Int) throws(ImagePreviewError)
    -> PreviewImage
  {
    do {
      let still = try VideoStillDecoder.firstFrame(
        path: path, maxWidth: max(1, maxWidth), maxHeight: max(1, maxHeight))
      return PreviewImage(width: still.width, height: still.height, rgba: still.rgba)
    } catch {
      throw ImagePreviewError(.corrupt(error.message), path: path)
    }
  }
}
