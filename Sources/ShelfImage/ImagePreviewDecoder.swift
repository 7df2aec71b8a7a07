internal import CICNS
internal import CJPEGPreview
internal import CQOI
internal import CVipsSupport
public import ShelfCore
internal import ShelfPNG

/// Decodes an image file of any format a camera roll or a desktop holds into a small upright
/// RGBA picture that fits a box, without decoding large images at full size.
///
/// A JPEG photo, the common case, goes through libjpeg-turbo: decoded at 1/2, 1/4 or 1/8
/// scale, shrunk the rest of the way by an area average, turned upright by its EXIF orientation
/// (read by libexif). libvips does the work for the rest: PNG, GIF (first frame), WebP, TIFF
/// (first page), HEIC/AVIF, PNM, JPEG 2000, CMYK and large progressive JPEGs, SVG (through
/// librsvg, rendered to fill the box: a drawing has no pixel size to keep), and through its
/// ImageMagick loader BMP, ICO/CUR, PSD and TGA; it shrinks on load (a HEIC from its thumbnail
/// or tiles) and turns the picture upright by its EXIF orientation. Formats libvips 8.14
/// cannot read are decoded by their own well-kept decoders and then resized by libvips: QOI
/// (the reference decoder), ICNS (libicns), iPhone-optimized CgBI PNG (ShelfPNG).
public enum ImagePreviewDecoder {
  /// Decodes `path` into a picture at most `maxWidth` × `maxHeight` pixels, keeping the aspect
  /// ratio and never enlarging a bitmap (an SVG fills the box). Icon files (ICO, CUR, ICNS) show their largest entry.
  public static func preview(path: RawPath, maxWidth: Int, maxHeight: Int) throws -> PreviewImage {
    let box = (width: max(1, maxWidth), height: max(1, maxHeight))
    let file = try RegularFile(path: path)
    let head = try file.read(count: 64)
    switch ImageContainer(head) {
    case .cgbiPNG:
      let decoded: PNGPreviewImage
      do {
        // Shrunk while decoded, row by row: never held whole at full size.
        decoded = try PNGDecoder(maxDecodedBytes: .max).preview(
          path: path, maxWidth: box.width, maxHeight: box.height)
      } catch let error as PNGError {
        throw ImagePreviewError(.corrupt(error.message), path: path)
      }
      return try resize(decoded.rgba, width: decoded.width, height: decoded.height, to: box, path: path)
    case .qoi:
      return try previewQOI(file, to: box)
    case .icns:
      return try previewICNS(file, to: box)
    case .icon(let entryCount):
      let header = try file.read(count: 6 + 16 * entryCount)
      return try thumbnail(path, page: IconDirectory.largestEntry(header) ?? 0, to: box)
    case .jpeg:
      return try previewJPEG(path, to: box) ?? thumbnail(path, page: 0, to: box)
    case .other:
      return try thumbnail(path, page: 0, to: box)
    }
  }

  /// A JPEG through libjpeg-turbo's scaled decode (see CJPEGPreview.h): nil for the JPEGs it
  /// leaves to libvips (CMYK, large progressive files).
  static func previewJPEG(_ path: RawPath, to box: (width: Int, height: Int)) throws(ImagePreviewError)
    -> PreviewImage?
  {
    var preview = shelf_jpeg_preview()
    defer { shelf_jpeg_preview_free(&preview) }
    var message = [CChar](repeating: 0, count: 512)
    let status = path.withCString { name in
      shelf_jpeg_preview_file(name, Int32(box.width), Int32(box.height), &preview, &message, message.count)
    }
    switch Int(status) {
    case SHELF_JPEG_OK:
      let (width, height) = (Int(preview.width), Int(preview.height))
      var image = PreviewImage(
        width: width, height: height,
        rgba: Array(UnsafeBufferPointer(start: preview.rgba, count: width * height * 4)))
      if preview.truncated != 0 { image.damage = Self.text(message) }
      return image
    case SHELF_JPEG_UNSUPPORTED:
      return nil
    default:
      throw ImagePreviewError(.corrupt(Self.text(message)), path: path)
    }
  }

  /// A C library's message, up to its NUL.
  static func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The image at `path` (frame `page`) through `vips_thumbnail`. A file that fails to
  /// decode whole is decoded again for what it holds (libvips's `fail_on=none`, as vipsdisp
  /// and ImageMagick show it), marked with why (`damage`).
  static func thumbnail(_ path: RawPath, page: Int, to box: (width: Int, height: Int)) throws
    -> PreviewImage
  {
    func decode(partial: Bool) throws -> PreviewImage {
      var preview = shelf_vips_preview()
      var message = [CChar](repeating: 0, count: 512)
      let status = path.withCString { name in
        shelf_vips_thumbnail_file(
          name, Int32(page), Int32(box.width), Int32(box.height), partial ? 1 : 0, &preview, &message,
          message.count)
      }
      return try finish(status, preview: &preview, message: message, path: path)
    }
    do {
      return try decode(partial: false)
    } catch let error as ImagePreviewError {
      guard case .corrupt(let reason) = error.reason, var image = try? decode(partial: true) else {
        throw error
      }
      image.damage = reason
      return image
    }
  }

  /// RGBA pixels decoded elsewhere, resized by libvips.
  static func resize(
    _ rgba: [UInt8], width: Int, height: Int, to box: (width: Int, height: Int), path: RawPath
  ) throws -> PreviewImage {
    var preview = shelf_vips_preview()
    var message = [CChar](repeating: 0, count: 512)
    let status = rgba.withUnsafeBufferPointer { pixels in
      shelf_vips_thumbnail_rgba(
        pixels.baseAddress, Int32(width), Int32(height), Int32(box.width), Int32(box.height), &preview,
        &message, message.count)
    }
    return try finish(status, preview: &preview, message: message, path: path)
  }

  /// Turns the C call's outcome into pixels or a typed error.
  static func finish(
    _ status: Int32, preview: inout shelf_vips_preview, message: [CChar], path: RawPath
  ) throws(ImagePreviewError) -> PreviewImage {
    defer { shelf_vips_preview_free(&preview) }
    let detail = Self.text(message)
    switch Int(status) {
    case SHELF_VIPS_OK:
      let width = Int(preview.width)
      let height = Int(preview.height)
      let bytes = Array(UnsafeBufferPointer(start: preview.rgba, count: width * height * 4))
      return PreviewImage(width: width, height: height, rgba: bytes)
    case SHELF_VIPS_UNKNOWN_FORMAT:
      throw ImagePreviewError(.unknownFormat, path: path)
    case SHELF_VIPS_UNAVAILABLE:
      throw ImagePreviewError(.decoderUnavailable(detail), path: path)
    default:
      throw ImagePreviewError(.corrupt(VipsMessage.reason(detail)), path: path)
    }
  }

  /// The most pixels a QOI file may declare before it is refused unread: 64 megapixels (256 MB
  /// of RGBA), since QOI has no reduced-size decoding.
  public static let qoiPixelLimit = 64 * 1024 * 1024

  /// A QOI file: the whole image through the reference decoder (QOI has no reduced decoding),
  /// refused before decoding when it declares more than 64 megapixels.
  static func previewQOI(_ file: RegularFile, to box: (width: Int, height: Int)) throws -> PreviewImage {
    let head = try file.read(count: 14)
    guard head.count == 14 else { throw ImagePreviewError(.corrupt("truncated QOI header"), path: file.path) }
    let width = Int(head[4]) << 24 | Int(head[5]) << 16 | Int(head[6]) << 8 | Int(head[7])
    let height = Int(head[8]) << 24 | Int(head[9]) << 16 | Int(head[10]) << 8 | Int(head[11])
    guard width > 0, height > 0 else {
      throw ImagePreviewError(.corrupt("QOI header declares \(width)×\(height) pixels"), path: file.path)
    }
    guard width * height <= qoiPixelLimit else {
      throw ImagePreviewError(.tooLarge(width: width, height: height), path: file.path)
    }
    // A QOI stream can be at most 5 bytes a pixel plus header and end marker.
    let bytes = try file.readAll(limit: Int64(width * height * 5 + 22))
    var description = qoi_desc()
    guard let pixels = bytes.withUnsafeBytes({ qoi_decode($0.baseAddress, Int32($0.count), &description, 4) })
    else {
      throw ImagePreviewError(.corrupt("invalid QOI data"), path: file.path)
    }
    defer { free(pixels) }
    let rgba = Array(
      UnsafeBufferPointer(start: pixels.assumingMemoryBound(to: UInt8.self), count: width * height * 4))
    // The reference decoder fills pixels past the end of a truncated stream with the last
    // colour; QOI ends with seven zero bytes and a one, so a cut file lacks them.
    guard bytes.suffix(8) == [0, 0, 0, 0, 0, 0, 0, 1] else {
      throw ImagePreviewError(.corrupt("truncated QOI data: no end marker"), path: file.path)
    }
    return try resize(rgba, width: width, height: height, to: box, path: file.path)
  }

  /// An ICNS file: its largest image (with its mask) through libicns.
  static func previewICNS(_ file: RegularFile, to box: (width: Int, height: Int)) throws -> PreviewImage {
    // ICNS files are small (the largest entry is 1024×1024); refuse anything absurd unread.
    guard file.status.size <= 64 << 20 else {
      throw ImagePreviewError(.corrupt("ICNS file larger than 64 MB"), path: file.path)
    }
    var bytes = try file.readAll(limit: file.status.size)
    icns_set_print_errors(0)
    var family: UnsafeMutablePointer<icns_family_t>?
    let imported = bytes.withUnsafeMutableBytes { raw in
      icns_import_family_data(
        icns_size_t(raw.count), raw.baseAddress!.assumingMemoryBound(to: icns_byte_t.self), &family)
    }
    guard imported == ICNS_STATUS_OK, let family else {
      throw ImagePreviewError(.corrupt("invalid ICNS data"), path: file.path)
    }
    defer { free(family) }
    for type in ICNSTypes.largestFirst {
      var element: UnsafeMutablePointer<icns_element_t>?
      guard icns_get_element_from_family(family, type, &element) == ICNS_STATUS_OK, let element else {
        continue
      }
      free(element)
      var image = icns_image_t()
      guard icns_get_image32_with_mask_from_family(family, type, &image) == ICNS_STATUS_OK,
        let data = image.imageData, image.imageChannels == 4, image.imagePixelDepth == 8
      else {
        icns_free_image(&image)
        throw ImagePreviewError(
          .corrupt("cannot decode the ICNS entry \(ICNSTypes.name(type))"), path: file.path)
      }
      defer { icns_free_image(&image) }
      let width = Int(image.imageWidth)
      let height = Int(image.imageHeight)
      let rgba = Array(UnsafeBufferPointer(start: data, count: width * height * 4))
      return try resize(rgba, width: width, height: height, to: box, path: file.path)
    }
    throw ImagePreviewError(.corrupt("no ICNS entry that libicns can decode"), path: file.path)
  }
}

/// The container families the decoder routes by their first bytes.
enum ImageContainer: Equatable {
  /// An iPhone-optimized PNG (CgBI chunk before IHDR): libvips reads it as broken.
  case cgbiPNG
  /// A JPEG (SOI and the start of a marker).
  case jpeg
  case qoi
  case icns
  /// ICO or CUR with this many directory entries.
  case icon(entryCount: Int)
  /// Anything else: left to libvips's loaders to recognise.
  case other

  init(_ head: [UInt8]) {
    if head.count >= 16, head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
      Array(head[12..<16]) == Array("CgBI".utf8)
    {
      self = .cgbiPNG
    } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
      self = .jpeg
    } else if head.starts(with: Array("qoif".utf8)) {
      self = .qoi
    } else if head.starts(with: Array("icns".utf8)) {
      self = .icns
    } else if head.count >= 6, head[0] == 0, head[1] == 0, head[2] == 1 || head[2] == 2, head[3] == 0,
      head[4] | head[5] != 0
    {
      self = .icon(entryCount: Int(head[4]) | Int(head[5]) << 8)
    } else {
      self = .other
    }
  }
}

/// The directory of an ICO or CUR file.
enum IconDirectory {
  /// The index of the entry with the most pixels (then the most bits per pixel); nil when the
  /// directory is cut short or is not one (a reserved byte is set: another format that starts
  /// with the same four bytes).
  static func largestEntry(_ header: [UInt8]) -> Int? {
    let count = Int(header[4]) | Int(header[5]) << 8
    guard header.count >= 6 + 16 * count else { return nil }
    var best: (index: Int, pixels: Int, bits: Int)?
    for index in 0..<count {
      let entry = 6 + 16 * index
      guard header[entry + 3] == 0 else { return nil }
      // A stored 0 means 256.
      let width = header[entry] == 0 ? 256 : Int(header[entry])
      let height = header[entry + 1] == 0 ? 256 : Int(header[entry + 1])
      let bits = Int(header[entry + 6]) | Int(header[entry + 7]) << 8
      let pixels = width * height
      if best == nil || pixels > best!.pixels || (pixels == best!.pixels && bits > best!.bits) {
        best = (index, pixels, bits)
      }
    }
    return best?.index
  }
}

/// The ICNS image types libicns decodes, largest first.
enum ICNSTypes {
  static let largestFirst: [icns_type_t] = [
    icns_type_t(ICNS_1024x1024_32BIT_ARGB_DATA), icns_type_t(ICNS_512x512_32BIT_ARGB_DATA),
    icns_type_t(ICNS_256x256_32BIT_ARGB_DATA), icns_type_t(ICNS_128X128_32BIT_DATA),
    icns_type_t(ICNS_48x48_32BIT_DATA), icns_type_t(ICNS_32x32_32BIT_DATA),
    icns_type_t(ICNS_48x48_8BIT_DATA), icns_type_t(ICNS_32x32_8BIT_DATA),
    icns_type_t(ICNS_16x16_32BIT_DATA), icns_type_t(ICNS_16x16_8BIT_DATA),
  ]

  /// The four-character code of `type`, e.g. `it32`.
  static func name(_ type: icns_type_t) -> String {
    String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
  }
}

/// libvips's error messages, shortened to the reason a user can act on.
enum VipsMessage {
  /// The first report of the buffer without the reporting class (`VipsJpeg: `) or
  /// ImageMagick's source location, e.g. `Premature end of input file`.
  static func reason(_ buffer: String) -> String {
    let reports = buffer.split(separator: ";").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    // The first report is the decoder's own; later ones say which operation gave up.
    guard let first = reports.first else { return "cannot decode the image" }
    var reason = String(first)
    // ImageMagick's reports end in its source location: ` @ error/tga.c/ReadTGAImage/504`.
    if let at = reason.firstRange(of: " @ ") { reason = String(reason[..<at.lowerBound]) }
    for prefix in [": libMagick error: ", ": "] {
      if let colon = reason.firstRange(of: prefix) {
        return String(reason[colon.upperBound...])
      }
    }
    return reason
  }
}

extension Substring {
  fileprivate func trimmingSpaces() -> Substring {
    var text = self
    while text.first == " " { text = text.dropFirst() }
    while text.last == " " { text = text.dropLast() }
    return text
  }
}
