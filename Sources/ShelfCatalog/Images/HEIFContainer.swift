internal import CHeif
import ShelfCore

/// A HEIF, HEIC or AVIF file opened through libheif, which reads the box structure (`meta`,
/// `iloc`, `iprp`, `iref`, grids, `irot`/`clap` transforms) with its own security limits.
/// libheif 1.15 reads every top-level box whole, the coded pictures' `mdat` too: while it
/// parses, the header of an `mdat` that follows every other box cannot be read (which ends its
/// walk over the top-level boxes), so that opening a file costs its metadata boxes, not its
/// pictures; the items' data inside `mdat` stays readable.
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
    guard let context = heif_context_alloc() else { throw HeaderError("out of memory opening HEIF") }
    let mediaData = try HEIFContainer.trailingMediaData(source)
    let input = Unmanaged.passRetained(HEIFInput(source, hiddenBoxHeader: mediaData))
    let reader = UnsafeMutablePointer<heif_reader>.allocate(capacity: 1)
    reader.initialize(to: HEIFInput.functions)
    var primary: OpaquePointer?
    let opened = heif_context_read_from_reader(context, reader, input.toOpaque(), nil)
    input.takeUnretainedValue().hiddenBoxHeader = nil
    var failure = HEIFContainer.error(opened, format: format)
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

  /// The largest metadata block `metadataBlocks` returns; a bigger one is refused.
  public static let metadataBlockLimit = 16 << 20

  /// The primary image's metadata blocks of one type (`Exif`, or `mime` for XMP), exactly as
  /// stored: an `Exif` block starts with a 4-byte big-endian offset to its TIFF header.
  /// Blocks larger than `metadataBlockLimit` or than the file are refused.
  public func metadataBlocks(type: String) throws -> [[UInt8]] {
    let count = heif_image_handle_get_number_of_metadata_blocks(primary, type)
    guard count > 0 else { return [] }
    var ids = [heif_item_id](repeating: 0, count: Int(count))
    let filled = heif_image_handle_get_list_of_metadata_block_IDs(primary, type, &ids, count)
    var blocks: [[UInt8]] = []
    for id in ids.prefix(Int(max(filled, 0))) {
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
      blocks.append(block)
    }
    return blocks
  }

  /// The catalogue's facts for this file.
  public func facts() -> ImageFacts {
    ImageFacts(
      format: format, width: width, height: height, bitDepth: bitDepth, colorType: hasAlpha ? "rgba" : "rgb",
      alpha: hasAlpha, interlaced: false, cgbi: nil, frames: topLevelImageCount)
  }

  /// The header of the first top-level `mdat`, when every box after it is an `mdat` too (the
  /// usual layout); nil otherwise. At most 1,000 top-level boxes are looked at.
  private static func trailingMediaData(_ source: any ByteSource) throws -> Range<Int64>? {
    var offset: Int64 = 0
    var mediaData: Range<Int64>?
    var steps = 0
    while offset + 8 <= source.size, steps < 1000 {
      steps += 1
      let header = try source.read(count: 16, at: offset)
      guard var size = header.be32(0).map(Int64.init) else { break }
      var headerLength: Int64 = 8
      if size == 1 {
        guard let large = header.be64(8), large <= UInt64(Int64.max) else { break }
        (size, headerLength) = (Int64(large), 16)
      } else if size == 0 {
        size = source.size - offset
      }
      guard size >= headerLength else { break }
      if header.fourCC(4) == "mdat" {
        mediaData = mediaData ?? offset..<offset + headerLength
      } else if mediaData != nil {
        return nil
      }
      if offset > source.size - size { break }
      offset += size
    }
    return mediaData
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
  /// A box header libheif may not read while it parses the top-level boxes.
  var hiddenBoxHeader: Range<Int64>?

  init(_ source: any ByteSource, hiddenBoxHeader: Range<Int64>?) {
    self.source = source
    self.hiddenBoxHeader = hiddenBoxHeader
  }

  static func from(_ userdata: UnsafeMutableRawPointer?) -> HEIFInput {
    Unmanaged<HEIFInput>.fromOpaque(userdata!).takeUnretainedValue()
  }

  static let functions = heif_reader(
    reader_api_version: 1,
    get_position: { userdata in HEIFInput.from(userdata).position },
    read: { data, size, userdata in
      let input = HEIFInput.from(userdata)
      if size == 0 { return 0 }
      if let hidden = input.hiddenBoxHeader, hidden.contains(input.position) { return 1 }
      guard let data, size <= Int(Int32.max),
        let bytes = try? input.source.read(count: size, at: input.position), bytes.count == size
      else { return 1 }
      bytes.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: size) }
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
