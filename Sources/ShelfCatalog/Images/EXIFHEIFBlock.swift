internal import CHeif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The `Exif` item of a HEIF/HEIC/AVIF file's primary image, found by libheif's metadata
/// API. libheif reads the file through a `heif_reader` over the byte source, so only the
/// boxes it parses and the item itself are read, never the coded pictures.
enum HEIFExifBlock {
  /// The primary image's first `Exif` item as an EXIF block (`Exif\0\0` and the TIFF
  /// structure); nil when there is none or libheif cannot parse the file.
  static func read(_ source: any ByteSource) -> [UInt8]? {
    let state = ReaderState(source: source)
    let reader = UnsafeMutablePointer<heif_reader>.allocate(capacity: 1)
    defer { reader.deallocate() }
    reader.initialize(
      to: heif_reader(
        reader_api_version: 1,
        get_position: { ReaderState.of($0).position },
        read: { destination, count, userdata in ReaderState.of(userdata).read(into: destination, count: count)
        },
        seek: { position, userdata in ReaderState.of(userdata).seek(to: position) },
        wait_for_file_size: { target, userdata in
          target <= ReaderState.of(userdata).source.size
            ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof
        }))
    guard let context = heif_context_alloc() else { return nil }
    defer { heif_context_free(context) }
    let opened = withExtendedLifetime(state) {
      heif_context_read_from_reader(context, reader, Unmanaged.passUnretained(state).toOpaque(), nil)
    }
    guard opened.code == heif_error_Ok else { return nil }
    var handle: OpaquePointer?
    guard heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok, let handle else {
      return nil
    }
    defer { heif_image_handle_release(handle) }
    var id = heif_item_id()
    guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
    let size = heif_image_handle_get_metadata_size(handle, id)
    guard size > 4, size <= EXIFBlockLocator.blockLimit else { return nil }
    var item = [UInt8](repeating: 0, count: size)
    let read = withExtendedLifetime(state) {
      item.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
    }
    guard read.code == heif_error_Ok else { return nil }
    // The item starts with the offset of the TIFF header from the end of that field.
    guard let skip = item.be32(0), skip <= size - 4 - 8 else { return nil }
    return EXIFReader.header + item[(4 + skip)...]
  }

  /// Where libheif's reads go: the byte source and a position in it.
  final class ReaderState {
    let source: any ByteSource
    var position: Int64 = 0

    init(source: any ByteSource) { self.source = source }

    static func of(_ userdata: UnsafeMutableRawPointer?) -> ReaderState {
      Unmanaged<ReaderState>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// libheif's `read`: 0 when all `count` bytes were copied.
    func read(into destination: UnsafeMutableRawPointer?, count: Int) -> Int32 {
      guard let destination, count >= 0, position + Int64(count) <= source.size else { return 1 }
      if count == 0 { return 0 }
      guard let bytes = try? source.read(count: count, at: position), bytes.count == count else { return 1 }
      bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress!, byteCount: count) }
      position += Int64(count)
      return 0
    }

    /// libheif's `seek`: 0 when the position lies within the file.
    func seek(to target: Int64) -> Int32 {
      guard target >= 0, target <= source.size else { return 1 }
      position = target
      return 0
    }
  }
}
