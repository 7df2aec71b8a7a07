import Foundation
import ShelfTestSupport
import Testing

/// `shelf info --json` on images other programs make at test time (ImageMagick, heif-enc,
/// cwebp, gif2webp, png2icns): exact MIME type, format, width, height and frames for every
/// format family the catalogue reads.
@Suite(
  .enabled(
    if: ExternalTool.isInstalled(["convert", "heif-enc", "cwebp", "gif2webp", "png2icns"]),
    "needs ImageMagick, libheif-examples, webp and icnsutils (scripts/setup.sh installs them)"))
struct ImageFormatsInfoTests {
  /// One image to make and what `shelf info` must say about it.
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    /// The commands that make it, `{out}` standing for its path and `{dir}` for the folder.
    var commands: [[String]]
    var mime: String
    var format: String
    var width: Int
    var height: Int
    var frames: Int
    var testDescription: String { name }

    /// Makes the image in a fresh folder and checks what `shelf info --json` says of it.
    func makeAndCheck() throws {
      let folder = try TemporaryDirectory()
      let out = folder.file(name)
      for command in commands {
        try ExternalTool.make(
          command.map {
            $0.replacingOccurrences(of: "{out}", with: out).replacingOccurrences(
              of: "{dir}", with: folder.path)
          })
      }
      let result = try ShelfProcess.run(["info", "--json", out])
      #expect(result.status == 0, "\(result.stderr)")
      let object = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
      #expect(object?["kind"] as? String == "image")
      #expect(object?["mime"] as? String == mime)
      #expect(object?["error"] == nil)
      let image = object?["image"] as? [String: Any]
      #expect(image?["format"] as? String == format)
      #expect(image?["width"] as? Int == width)
      #expect(image?["height"] as? Int == height)
      #expect(image?["frames"] as? Int == frames)
    }
  }

  /// A fixed plasma (seeded: each run tests the same pixels; png2icns fails on some random
  /// ones, writing a truncated file).
  static let plasma = ["convert", "-seed", "1", "-size", "120x80", "plasma:red-blue"]

  static let cases: [Case] = [
    Case(
      name: "progressive-cmyk.jpg",
      commands: [plasma + ["-colorspace", "CMYK", "-interlace", "Plane", "{out}"]], mime: "image/jpeg",
      format: "jpeg", width: 120, height: 80, frames: 1),
    Case(
      name: "anim.gif",
      commands: [["convert", "-size", "33x21", "xc:red", "xc:green", "xc:blue", "-loop", "0", "{out}"]],
      mime: "image/gif", format: "gif", width: 33, height: 21, frames: 3),
    Case(
      name: "lossless.webp",
      commands: [plasma + ["{dir}/p.png"], ["cwebp", "-quiet", "-lossless", "{dir}/p.png", "-o", "{out}"]],
      mime: "image/webp", format: "webp", width: 120, height: 80, frames: 1),
    Case(
      name: "anim.webp",
      commands: [
        ["convert", "-size", "40x30", "xc:red", "xc:green", "xc:blue", "xc:white", "{dir}/a.gif"],
        ["gif2webp", "-quiet", "{dir}/a.gif", "-o", "{out}"],
      ], mime: "image/webp", format: "webp", width: 40, height: 30, frames: 4),
    Case(
      name: "pages.tif",
      commands: [
        ["convert", "-size", "64x48", "xc:red", "xc:green", "xc:blue", "xc:white", "xc:black", "{out}"]
      ],
      mime: "image/tiff", format: "tiff", width: 64, height: 48, frames: 5),
    Case(
      name: "big-endian.tif", commands: [plasma + ["-endian", "MSB", "-compress", "LZW", "TIFF64:{out}"]],
      mime: "image/tiff", format: "tiff", width: 120, height: 80, frames: 1),
    Case(
      name: "two-images.heic",
      commands: [
        plasma + ["{dir}/a.png"], ["convert", "-size", "50x40", "xc:red", "{dir}/b.png"],
        ["heif-enc", "-q", "40", "{dir}/a.png", "{dir}/b.png", "-o", "{out}"],
      ], mime: "image/heic", format: "heic", width: 120, height: 80, frames: 2),
    Case(
      name: "photo.avif", commands: [plasma + ["-quality", "40", "{out}"]], mime: "image/avif",
      format: "avif",
      width: 120, height: 80, frames: 1),
    Case(
      name: "palette.bmp", commands: [plasma + ["-type", "Palette", "BMP3:{out}"]], mime: "image/bmp",
      format: "bmp", width: 120, height: 80, frames: 1),
    Case(
      name: "os2.bmp", commands: [plasma + ["BMP2:{out}"]], mime: "image/bmp", format: "bmp", width: 120,
      height: 80, frames: 1),
    Case(
      name: "clipboard.dib",
      commands: [plasma + ["BMP3:{dir}/c.bmp"], ["sh", "-c", "tail -c +15 {dir}/c.bmp > {out}"]],
      mime: "image/bmp", format: "bmp", width: 120, height: 80, frames: 1),
    Case(
      name: "icon.ico", commands: [plasma + ["-define", "icon:auto-resize=64,48,32,16", "{out}"]],
      mime: "image/vnd.microsoft.icon", format: "ico", width: 64, height: 64, frames: 4),
    Case(
      // ImageMagick's `.cur` is an icon (type 1): the type field made 2, as in a cursor.
      name: "pointer.cur",
      commands: [
        ["convert", "-size", "32x32", "xc:red", "{dir}/i.ico"],
        ["sh", "-c", "(printf '\\000\\000\\002\\000'; tail -c +5 {dir}/i.ico) > {out}"],
      ],
      mime: "image/x-win-bitmap", format: "cur", width: 32, height: 32, frames: 1),
    Case(
      name: "app.icns",
      commands: [
        ["convert", "-seed", "1", "-size", "128x128", "plasma:", "PNG32:{dir}/128.png"],
        ["convert", "-seed", "1", "-size", "32x32", "plasma:", "PNG32:{dir}/32.png"],
        ["png2icns", "{out}", "{dir}/128.png", "{dir}/32.png"],
      ], mime: "image/x-icns", format: "icns", width: 128, height: 128, frames: 2),
    Case(
      // ImageMagick writes the first image as the composite and the others as layers.
      name: "layers.psd",
      commands: [["convert", "-size", "70x50", "xc:red", "xc:green", "xc:blue", "-depth", "8", "{out}"]],
      mime: "image/vnd.adobe.photoshop", format: "psd", width: 70, height: 50, frames: 2),
    Case(
      name: "rle.tga", commands: [plasma + ["-compress", "RLE", "{out}"]], mime: "image/x-tga", format: "tga",
      width: 120, height: 80, frames: 1),
    Case(
      name: "plain.pgm", commands: [plasma + ["-compress", "none", "{out}"]],
      mime: "image/x-portable-graymap", format: "pgm", width: 120, height: 80, frames: 1),
    Case(
      name: "raw.ppm", commands: [plasma + ["{out}"]], mime: "image/x-portable-pixmap", format: "ppm",
      width: 120, height: 80, frames: 1),
    Case(
      name: "alpha.pam", commands: [plasma + ["-alpha", "set", "{out}"]],
      mime: "image/x-portable-arbitrarymap", format: "pam", width: 120, height: 80, frames: 1),
    Case(
      name: "icon.xpm", commands: [plasma + ["-colors", "8", "{out}"]], mime: "image/x-xpixmap",
      format: "xpm",
      width: 120, height: 80, frames: 1),
    Case(
      name: "photo.jp2", commands: [plasma + ["{out}"]], mime: "image/jp2", format: "jp2", width: 120,
      height: 80, frames: 1),
    Case(
      name: "stream.j2k", commands: [plasma + ["{out}"]], mime: "image/x-jp2-codestream", format: "j2k",
      width: 120, height: 80, frames: 1),
    Case(
      name: "drawing.svg",
      commands: [
        [
          "sh", "-c",
          "printf '<?xml version=\"1.0\"?>\\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 90 60\"/>' > {out}",
        ]
      ], mime: "image/svg+xml", format: "svg", width: 90, height: 60, frames: 1),
  ]

  @Test(arguments: cases)
  func infoReportsWhatTheMakerWrote(_ item: Case) throws {
    try item.makeAndCheck()
  }

  /// QOI, which no Debian tool writes: Pillow's (from PyPI), when it is installed.
  @Test(
    .enabled(
      if: (try? ExternalTool.run(["python3", "-c", "import PIL.QoiImagePlugin"]).status) == 0,
      "needs Pillow with QOI support (python3 -m pip install Pillow)"))
  func qoiMadeByPillow() throws {
    let folder = try TemporaryDirectory()
    let out = folder.file("pixels.qoi")
    try ExternalTool.make([
      "python3", "-c", "from PIL import Image; Image.new('RGBA', (77, 33), (9, 8, 7, 6)).save('\(out)')",
    ])
    let result = try ShelfProcess.run(["info", "--json", out])
    let object = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
    #expect(object?["mime"] as? String == "image/x-qoi")
    let image = object?["image"] as? [String: Any]
    #expect(image?["format"] as? String == "qoi" && image?["alpha"] as? Bool == true)
    #expect(image?["width"] as? Int == 77 && image?["height"] as? Int == 33 && image?["frames"] as? Int == 1)
  }

  /// A damaged image among good ones: the index goes on, the damaged file gets its error.
  @Test func indexKeepsGoingPastBrokenImages() throws {
    let folder = try TemporaryDirectory()
    try ExternalTool.make(Self.plasma + [folder.file("good.jpg")])
    try ExternalTool.make(Self.plasma + [folder.file("whole.heic")])
    let heic = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("whole.heic"))))
    try folder.write("cut.heic", Array(heic.prefix(heic.count / 3)))
    try folder.write("empty.tif", [])
    try folder.write("loop.tif", Array("II*\0".utf8) + [8, 0, 0, 0, 0, 0, 8, 0, 0, 0])
    let database = folder.file("catalog.sqlite")
    let index = try ShelfProcess.run(["--db", database, "index", folder.path])
    // Some files failed, the run went on: status 1.
    #expect(index.status == 1, "\(index.stderr)")
    let listing = try ShelfProcess.run(["--db", database, "ls", "--json", "kind:image"])
    let rows = try JSONSerialization.jsonObject(with: Data(listing.stdoutBytes)) as? [[String: Any]] ?? []
    func row(_ name: String) -> [String: Any]? {
      rows.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true }
    }
    #expect((row("good.jpg")?["image"] as? [String: Any])?["width"] as? Int == 120)
    #expect(row("cut.heic")?["error"] as? String != nil)
    #expect(row("loop.tif")?["error"] as? String == "corrupt TIFF: no image width or height")
  }
}
