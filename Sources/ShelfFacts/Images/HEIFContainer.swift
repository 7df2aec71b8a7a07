internal import CHeif
internal import CHeifSupport
import ShelfCore

/// A HEIF, HEIC or AVIF file opened through libheif, which reads the box structure (`meta`,
/// `iloc`, `iprp`, `iref`, grids, `irot`/`clap` transforms) with its own security limits.
/// libheif 1.15 reads every top-level box whole while it opens a file, the coded pictures'
/// `mdat` too (it checks every `iloc` extent against the file's size, so the box cannot be
/// hidden from it): opening a file costs its size in reads, never a decode.
///
/// It keeps the file's byte source open for as long as it lives, so that metadata blocks (the
/// `Exif` item, XMP) can be read after the header facts.
public final class HEIFContainer {
  /// Width of the primary image as displayed: after its grid is assembled and its `irot` and
  /// `clap` transforms are applied.
  public let width: Int
  /// Height of the primary image as displayed.
  public let height: Int
  /// True when the primary image has an alpha auxiliary image.
  public let hasAlpha: Bool
  /// Bits per luma sample of the primary image, when the file says.
  public let bitDepth: Int?
  /// The number of top-level images (not thumbnails, grid tiles or auxiliary images).
  public let topLevelImageCount: Int

  private let context: OpaquePointer
  private let primary: OpaquePointer
  private let reader: UnsafeMutablePointer<heif_reader>
  private let input: Unmanaged<HEIFInput>
  private let format: String

  /// Opens `source` (`format` names it in errors: `heic`, `avif`, …); throws a `HeaderError`
  /// for a file libheif refuses.
  public init(_ source: any ByteSource, format: String) throws {
    self.format = format
    guard source.size <= HEIFContainer.sizeLimit else {
      throw HeaderError("\(format.uppercased()) larger than \(HEIFContainer.sizeLimit >> 20) MiB: not read")
    }
    try HEIFContainer.loadLibrary()
    guard let context = heif_context_alloc() else { throw HeaderError("out of memory opening HEIF") }
    let input = Unmanaged.passRetained(HEIFInput(source))
    let reader = UnsafeMutablePointer<heif_reader>.allocate(capacity: 1)
    reader.initialize(to: HEIFInput.functions)
    var primary: OpaquePointer?
    let opened = heif_context_read_from_reader(context, reader, input.toOpaque(), nil)
    var failure = HEIFContainer.error(opened, format: format)
    if input.takeUnretainedValue().failedRead {
      failure = HeaderError("truncated \(format.uppercased()): a read failed")
    }
    if failure == nil {
      failure = HEIFContainer.error(heif_context_get_primary_image_handle(context, &primary), format: format)
    }
    guard failure == nil, let primary else {
      if let primary { heif_image_handle_release(primary) }
      heif_context_free(context)
      reader.deallocate()
      input.release()
      throw failure ?? HeaderError("corrupt \(format.uppercased()): no primary image")
    }
    self.context = context
    self.primary = primary
    self.reader = reader
    self.input = input
    width = Int(heif_image_handle_get_width(primary))
    height = Int(heif_image_handle_get_height(primary))
    hasAlpha = heif_image_handle_has_alpha_channel(primary) != 0
    let luma = heif_image_handle_get_luma_bits_per_pixel(primary)
    bitDepth = luma > 0 ? Int(luma) : nil
    topLevelImageCount = Int(heif_context_get_number_of_top_level_images(context))
  }

  deinit {
    heif_image_handle_release(primary)
    heif_context_free(context)
    reader.deallocate()
    input.release()
  }

  /// The largest file opened: libheif holds a file's `mdat` in memory while it opens it.
  public static let sizeLimit: Int64 = 256 << 20

  /// The largest metadata block `metadataBlocks` returns; a bigger one is refused.
  public static let metadataBlockLimit = 16 << 20

  /// The primary image's metadata blocks of one type (`Exif`, or `mime` for XMP), exactly as
  /// stored: an `Exif` block starts with a 4-byte big-endian offset to its TIFF header. With
  /// `contentType`, only the `mime` items of that content type (`application/rdf+xml`: XMP).
  /// Blocks larger than `metadataBlockLimit` or than the file are refused.
  public func metadataBlocks(type: String, contentType: String? = nil) throws -> [[UInt8]] {
    let count = heif_image_handle_get_number_of_metadata_blocks(primary, type)
    guard count > 0 else { return [] }
    var ids = [heif_item_id](repeating: 0, count: Int(count))
    let filled = heif_image_handle_get_list_of_metadata_block_IDs(primary, type, &ids, count)
    var blocks: [[UInt8]] = []
    for id in ids.prefix(Int(max(filled, 0))) {
      if let contentType {
        let stored = heif_image_handle_get_metadata_content_type(primary, id).map { String(cString: $0) }
        guard stored == contentType else { continue }
      }
      let size = heif_image_handle_get_metadata_size(primary, id)
      guard size <= HEIFContainer.metadataBlockLimit, Int64(size) <= input.takeUnretainedValue().source.size
      else {
        throw HeaderError("corrupt \(format.uppercased()): \(type) block of \(size) bytes")
      }
      var block = [UInt8](repeating: 0, count: size)
      let result = block.withUnsafeMutableBytes {
        heif_image_handle_get_metadata(primary, id, $0.baseAddress)
      }
      if let failure = HEIFContainer.error(result, format: format) { throw failure }
      if input.takeUnretainedValue().failedRead {
        throw HeaderError("truncated \(format.uppercased()): a read failed")
      }
      blocks.append(block)
    }
    return blocks
  }

  /// The catalogue's facts for this file.
  public func facts() -> ImageFacts {
    ImageFacts(
      format: format, width: width, height: height, bitDepth: bitDepth, colorType: hasAlpha ? .rgba : .rgb,
      alpha: hasAlpha, interlaced: false, cgbi: nil, frames: topLevelImageCount)
  }

  /// Loads libheif on the first HEIF file (shelf does not link it: see HeifLoader.c).
  private static func loadLibrary() throws {
    var reason = [CChar](repeating: 0, count: 512)
    guard shelf_heif_load(&reason, reason.count) != 0 else { return }
    let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    throw HeaderError("cannot load libheif: \(message)")
  }

  private static func error(_ result: heif_error, format: String) -> HeaderError? {
    guard result.code != heif_error_Ok else { return nil }
    let message = result.message.map { String(cString: $0) } ?? "error \(result.code.rawValue)"
    return HeaderError("corrupt \(format.uppercased()): \(message)")
  }
}

/// The byte source libheif reads through, with the position its reader API keeps.
private final class HEIFInput {
  let source: any ByteSource
  var position: Int64 = 0
  /// Set when a read failed (the file shrank, an I/O error) and zeros were given instead.
  var failedRead = false

  init(_ source: any ByteSource) { self.source = source }

  static func from(_ userdata: UnsafeMutableRawPointer?) -> HEIFInput {
    Unmanaged<HEIFInput>.fromOpaque(userdata!).takeUnretainedValue()
  }

  static let functions = heif_reader(
    reader_api_version: 1,
    get_position: { userdata in HEIFInput.from(userdata).position },
    read: { data, size, userdata in
      // In slices, so that a large box costs libheif's buffer and one slice, not twice its size.
      // libheif asserts (aborts) when a read of item data fails: a failed read is zeros and a
      // note, turned into an error once libheif returns.
      let input = HEIFInput.from(userdata)
      if size == 0 { return 0 }
      // `size` is a size_t: one beyond Int.max arrives negative.
      guard let data, size > 0, Int64(size) <= input.source.size - input.position else { return 1 }
      var done = 0
      while done < size {
        let count = min(size - done, 1 << 20)
        guard let bytes = try? input.source.read(count: count, at: input.position + Int64(done)),
          bytes.count == count
        else {
          (data + done).initializeMemory(as: UInt8.self, repeating: 0, count: size - done)
          input.failedRead = true
          break
        }
        bytes.withUnsafeBytes { (data + done).copyMemory(from: $0.baseAddress!, byteCount: count) }
        done += count
      }
      input.position += Int64(size)
      return 0
    },
    seek: { position, userdata in
      let input = HEIFInput.from(userdata)
      guard position >= 0, position <= input.source.size else { return 1 }
      input.position = position
      return 0
    },
    wait_for_file_size: { target, userdata in
      target <= HEIFInput.from(userdata).source.size
        ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof
    })
}
