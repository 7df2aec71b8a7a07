import Foundation
import ShelfTestSupport
import Testing

/// `shelf info --json` on the older image formats people still meet, made at test time by
/// ImageMagick and Pillow, and on the animated and HEIF files whose frames or size libheif and
/// acTL do not give: the expected sizes and frames are the makers' inputs.
@Suite(
  .enabled(
    if: ExternalTool.isInstalled(["convert", "heif-enc"])
      && (try? ExternalTool.run(["python3", "-c", "import PIL.AvifImagePlugin"]).status) == 0,
    "needs ImageMagick, libheif-examples and Pillow with AVIF (scripts/setup.sh installs them)"))
struct ClassicImageFormatsInfoTests {
  typealias Case = ImageFormatsInfoTests.Case

  static let plasma = ["convert", "-seed", "1", "-size", "120x80", "plasma:red-blue"]

  /// Python that saves Pillow's 90×70 image, in `mode`, to `sys.argv[1]` with `options`.
  static func pillow(_ mode: String, _ options: String = "") -> [String] {
    [
      "python3", "-c",
      "import sys; from PIL import Image; Image.new('\(mode)', (90, 70), 1).save(sys.argv[1]\(options))",
      "{out}",
    ]
  }

  static let cases: [Case] = [
    Case(
      name: "magick.pcx", commands: [plasma + ["-type", "Palette", "{out}"]], mime: "image/vnd.zbrush.pcx",
      format: "pcx", width: 120, height: 80, frames: 1),
    Case(
      name: "pillow.pcx", commands: [pillow("RGB")], mime: "image/vnd.zbrush.pcx", format: "pcx", width: 90,
      height: 70, frames: 1),
    Case(
      name: "pages.dcx",
      commands: [["convert", "-size", "64x48", "xc:red", "xc:green", "xc:blue", "DCX:{out}"]],
      mime: "image/x-dcx", format: "dcx", width: 64, height: 48, frames: 3),
    Case(
      name: "magick.sgi", commands: [plasma + ["-compress", "RLE", "{out}"]], mime: "image/x-sgi",
      format: "sgi", width: 120, height: 80, frames: 1),
    Case(
      name: "pillow.rgb", commands: [pillow("RGBA", ", format='SGI'")], mime: "image/x-sgi", format: "sgi",
      width: 90, height: 70, frames: 1),
    Case(
      name: "magick.ras", commands: [plasma + ["{out}"]], mime: "image/x-sun-raster", format: "sun",
      width: 120, height: 80, frames: 1),
    Case(
      name: "magick.xbm", commands: [plasma + ["{out}"]], mime: "image/x-xbitmap", format: "xbm", width: 120,
      height: 80, frames: 1),
    Case(
      name: "pillow.xbm", commands: [pillow("1")], mime: "image/x-xbitmap", format: "xbm", width: 90,
      height: 70, frames: 1),
    Case(
      name: "texture.dds", commands: [plasma + ["-define", "dds:compression=dxt5", "{out}"]],
      mime: "image/x-dds", format: "dds", width: 120, height: 80, frames: 1),
    Case(
      name: "pillow.dds", commands: [pillow("RGBA")], mime: "image/x-dds", format: "dds", width: 90,
      height: 70, frames: 1),
    Case(
      // Debian's ImageMagick policy refuses plain `EPS:`; EPSF is the same coder.
      name: "magick.eps", commands: [plasma + ["EPSF:{out}"]], mime: "image/x-eps", format: "eps", width: 120,
      height: 80, frames: 1),
    Case(
      name: "tiff-preview.eps", commands: [plasma + ["EPT2:{out}"]], mime: "image/x-eps", format: "eps",
      width: 120, height: 80, frames: 1),
    Case(
      name: "pillow.eps", commands: [pillow("L")], mime: "image/x-eps", format: "eps", width: 90, height: 70,
      frames: 1),
    Case(
      name: "magick.fits", commands: [plasma + ["-depth", "16", "{out}"]], mime: "image/fits", format: "fits",
      width: 120, height: 80, frames: 1),
    Case(
      // Pillow's APNG of 3 frames, its acTL then made to claim 7: the fcTL chunks count.
      name: "lying.png",
      commands: [
        [
          "python3", "-c",
          """
          import struct, sys, zlib
          from PIL import Image
          frames = [Image.new('RGB', (50, 30), (80 * i, 0, 0)) for i in range(3)]
          frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=100)
          data = bytearray(open(sys.argv[1], 'rb').read())
          at = data.find(b'acTL')
          data[at + 4:at + 8] = struct.pack('>I', 7)
          data[at + 12:at + 16] = struct.pack('>I', zlib.crc32(bytes(data[at:at + 12])))
          open(sys.argv[1], 'wb').write(data)
          """, "{out}",
        ]
      ], mime: "image/png", format: "png", width: 50, height: 30, frames: 3),
    Case(
      name: "sequence.avif",
      commands: [
        [
          "python3", "-c",
          """
          import sys
          from PIL import Image
          frames = [Image.new('RGB', (64, 48), (60 * i, 0, 0)) for i in range(4)]
          frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=100)
          """, "{out}",
        ]
      ], mime: "image/avif", format: "avif", width: 64, height: 48, frames: 4),
    Case(
      // heif-enc's HEIC with its item type made `unci` (uncompressed), which libheif 1.15
      // refuses: the size comes from the `ispe` heif-enc wrote.
      name: "uncompressed.heic",
      commands: [
        plasma + ["{dir}/p.png"], ["heif-enc", "-q", "50", "{dir}/p.png", "-o", "{dir}/h.heic"],
        [
          "python3", "-c",
          """
          import sys
          data = open(sys.argv[1], 'rb').read()
          at = data.find(b'infe')
          open(sys.argv[2], 'wb').write(data[:at] + data[at:at + 20].replace(b'hvc1', b'unci') + data[at + 20:])
          """, "{dir}/h.heic", "{out}",
        ],
      ], mime: "image/heic", format: "heic", width: 120, height: 80, frames: 1),
  ]

  @Test(arguments: cases)
  func infoReportsWhatTheMakerWrote(_ item: Case) throws {
    try item.makeAndCheck()
  }

  /// Cut and lying headers of ImageMagick's files: an error naming the file's trouble, or the
  /// header's facts, never a crash.
  @Test func damagedFilesGiveAnErrorNotACrash() throws {
    let folder = try TemporaryDirectory()
    for name in ["a.pcx", "a.sgi", "a.ras", "a.dds", "a.fits", "a.xbm"] {
      try ExternalTool.make(Self.plasma + [folder.file(name)])
    }
    try ExternalTool.make(Self.plasma + ["EPT2:" + folder.file("a.eps")])
    var paths: [String] = []
    for name in ["a.pcx", "a.sgi", "a.ras", "a.dds", "a.fits", "a.xbm", "a.eps"] {
      let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file(name))))
      paths.append(try folder.write("cut-" + name, Array(bytes.prefix(9))))
      var lying = bytes
      for index in 4..<min(32, lying.count) { lying[index] = 0xFF }
      paths.append(try folder.write("lying-" + name, lying))
    }
    let result = try ShelfProcess.run(["info", "--json"] + paths)
    let entries = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]] ?? []
    #expect(entries.count == paths.count, "\(result.stderr)")
    for entry in entries where (entry["path"] as? String)?.contains("/cut-") == true {
      #expect(entry["image"] == nil, "\(entry)")
    }
  }
}
