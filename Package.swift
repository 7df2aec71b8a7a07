// swift-tools-version:6.0
import PackageDescription

/// `shelf`: catalogue, crush, play and record the media in an app sandbox or any media folder.
///
/// The executable is thin; the CLI library parses arguments and talks to the user; the
/// domain libraries (catalogue, file facts, database, PNG, audio, backups, previews) return
/// values and throw typed errors; the C libraries come in through system-library targets, plus
/// small C targets for what Swift cannot call (ARCHITECTURE.md has the layout).
/// Debian's folder name for this machine's libraries (where GLib keeps glibconfig.h).
#if arch(arm64)
  let debianMultiarch = "aarch64-linux-gnu"
#else
  let debianMultiarch = "x86_64-linux-gnu"
#endif

let package = Package(
  name: "shelf",
  products: [
    .executable(name: "shelf", targets: ["shelf"]),
    .library(name: "ShelfCore", targets: ["ShelfCore"]),
    .library(name: "ShelfDatabase", targets: ["ShelfDatabase"]),
    .library(name: "ShelfPNG", targets: ["ShelfPNG"]),
    .library(name: "ShelfAudio", targets: ["ShelfAudio"]),
    .library(name: "ShelfBackup", targets: ["ShelfBackup"]),
    .library(name: "ShelfFacts", targets: ["ShelfFacts"]),
    .library(name: "ShelfWorkers", targets: ["ShelfWorkers"]),
    .library(name: "ShelfCatalog", targets: ["ShelfCatalog"]),
    .library(name: "ShelfImage", targets: ["ShelfImage"]),
    .library(name: "ShelfCLI", targets: ["ShelfCLI"]),
  ],
  targets: [
    // C libraries, one system-library target each.
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(
      name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
    .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
    .systemLibrary(name: "CZopfli", providers: [.apt(["libzopfli-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(
      name: "CUchardet", pkgConfig: "uchardet", providers: [.apt(["libuchardet-dev"])]),
    // FFmpeg's headers only: the libraries are loaded on first use (CFFmpegSupport/FFmpegLoader.c),
    // not linked, so that commands which never decode do not map their ~130 dependencies.
    .systemLibrary(
      name: "CFFmpeg",
      providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // libpq's header only: the library is loaded on first use (CPostgresSupport/PostgresLoader.c).
    .systemLibrary(name: "CPostgres", providers: [.apt(["libpq-dev"])]),
    .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
    // libswscale's header only: loaded on first use with the rest of FFmpeg (FFmpegLoader.c).
    .systemLibrary(name: "CSwscale", providers: [.apt(["libswscale-dev"])]),
    .systemLibrary(name: "CICNS", pkgConfig: "libicns", providers: [.apt(["libicns-dev"])]),
    // libheif's header only: the library is loaded on first use (CHeifSupport/HeifLoader.c).
    .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
    // XXH3-128 content hashes for duplicates (Debian libxxhash-dev).
    .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
    // EBU R128 loudness and true peak for ReplayGain (`shelf gain`; Debian libebur128-dev).
    .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
    // Chromaprint's header only: the library is loaded on first use (CChromaprintSupport).
    .systemLibrary(name: "CChromaprint", providers: [.apt(["libchromaprint-dev"])]),
    // Small C targets for constructs Swift cannot call.
    .target(name: "CPNGSupport", dependencies: ["CPNG"]),
    .target(name: "CALSASupport", dependencies: ["CALSA"]),
    // The extraction workers' sandbox: seccomp rules, resource limits, descriptor passing
    // (Debian libseccomp-dev).
    // SHELF_TEST_HOOKS: the forbidden calls the sandbox tests make inside a worker, in debug
    // builds only (never in a release binary).
    .target(
      name: "CSandboxSupport", cSettings: [.define("SHELF_TEST_HOOKS", .when(configuration: .debug))],
      linkerSettings: [.linkedLibrary("seccomp")]),
    // Linux file calls Swift's Glibc module leaves out (syncfs, sync_file_range).
    .target(name: "CFileSupport"),
    // Text counted sixteen bytes at a time (SSE2), for TextAnalyzer.
    .target(name: "CTextSupport"),
    // libvips is opened with dlopen on the first preview (see CVipsSupport.c): linking it would
    // load it and thirty more libraries into every shelf command. Only its headers are used
    // here, with GLib's include folders (Debian libvips-dev, libglib2.0-dev).
    .target(
      name: "CVipsSupport",
      cSettings: [
        .unsafeFlags([
          "-I/usr/include/glib-2.0", "-I/usr/lib/\(debianMultiarch)/glib-2.0/include",
        ])
      ]),
    // JPEG previews without libvips: libjpeg-turbo's scaled decode and libexif's orientation
    // (Debian libjpeg62-turbo-dev, libexif-dev), with libjpeg's longjmp kept in C.
    .target(name: "CJPEGPreview", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("exif")]),
    // The reference QOI decoder (Debian libqoi-dev), compiled once.
    .target(name: "CQOI"),
    .target(
      name: "CFFmpegSupport", dependencies: ["CFFmpeg", "CLazyLibrary"]),
    .target(name: "CHeifSupport", dependencies: ["CHeif", "CLazyLibrary"]),
    .target(name: "CPostgresSupport", dependencies: ["CPostgres", "CLazyLibrary"]),
    .target(name: "CChromaprintSupport", dependencies: ["CChromaprint", "CLazyLibrary"]),
    // MPRIS for `shelf play` over sd-bus (Debian libsystemd-dev's header; the library is loaded
    // on first use, and sd-bus's vtable macros and variadic calls stay in C).
    .target(name: "CMPRISSupport", dependencies: ["CLazyLibrary"]),
    // The loading on first use those five share (dlopen, dlsym, a table of forwarders).
    .target(name: "CLazyLibrary", linkerSettings: [.linkedLibrary("dl")]),

    // Swift libraries.
    .target(name: "ShelfCore", dependencies: ["CFileSupport"]),
    // The SQLite and libpq wrappers behind one connection protocol: the catalogue uses both, the
    // backup reader's Manifest.db the SQLite one.
    .target(
      name: "ShelfDatabase", dependencies: ["ShelfCore", "CSQLite", "CPostgres", "CPostgresSupport"]),
    .target(
      name: "ShelfPNG",
      dependencies: ["ShelfCore", "CPNGSupport", "CDeflate", "CZopfli", "CZlib"]),
    .target(
      name: "ShelfAudio",
      dependencies: [
        "ShelfCore", "CSndFile", "CALSA", "CALSASupport", "CFFmpeg", "CFFmpegSupport", "CSwscale",
        "CChromaprint", "CChromaprintSupport", "CEbur128", "CMPRISSupport",
      ]),
    .target(name: "ShelfBackup", dependencies: ["ShelfCore", "ShelfDatabase", "CCrypto"]),
    .target(
      name: "ShelfImage",
      dependencies: [
        "ShelfCore", "ShelfPNG", "ShelfAudio", "CVipsSupport", "CJPEGPreview", "CQOI", "CICNS",
      ]),
    // The facts of one file, read from its bytes: content sniffing, text encodings and counts,
    // image headers, EXIF and HEIF, audio and video facts. No store, no roots, no queries.
    .target(
      name: "ShelfFacts",
      dependencies: [
        "ShelfCore", "ShelfPNG", "ShelfAudio", "CTextSupport", "CUchardet", "CExif", "CHeif", "CHeifSupport",
      ]),
    // The sandboxed extraction workers: the pool, the worker process and their wire format, and
    // what reading one file's facts needs around them (spooled copies, read facts). The worker
    // computes perceptual hashes, hence ShelfImage. SHELF_TEST_HOOKS: its test hooks
    // (WorkerTestHooks.swift), in debug builds only, as CSandboxSupport's.
    .target(
      name: "ShelfWorkers",
      dependencies: ["ShelfCore", "ShelfFacts", "ShelfAudio", "ShelfImage", "CSandboxSupport"],
      swiftSettings: [.define("SHELF_TEST_HOOKS", .when(configuration: .debug))]),
    .target(
      name: "ShelfCatalog",
      dependencies: [
        "ShelfCore", "ShelfFacts", "ShelfAudio", "ShelfBackup", "ShelfDatabase", "ShelfWorkers", "CSQLite",
        "CXXHash",
      ]),
    .target(
      name: "ShelfCLI",
      dependencies: [
        "ShelfCore", "ShelfFacts", "ShelfWorkers", "ShelfCatalog", "ShelfPNG", "ShelfAudio", "ShelfBackup",
        "ShelfImage",
      ]),
    .executableTarget(name: "shelf", dependencies: ["ShelfCLI"]),

    // Tests, with one small support library (temporary folders) that they share.
    .target(name: "ShelfTestSupport", dependencies: ["ShelfCore"], path: "Tests/ShelfTestSupport"),
    .testTarget(name: "ShelfCoreTests", dependencies: ["ShelfCore", "ShelfTestSupport"]),
    .testTarget(name: "ShelfPNGTests", dependencies: ["ShelfPNG", "ShelfTestSupport"]),
    .testTarget(name: "ShelfAudioTests", dependencies: ["ShelfAudio", "ShelfTestSupport"]),
    .testTarget(
      name: "ShelfDatabaseTests", dependencies: ["ShelfDatabase", "CSQLite", "ShelfTestSupport"]),
    .testTarget(name: "ShelfBackupTests", dependencies: ["ShelfBackup", "ShelfTestSupport"]),
    .testTarget(name: "ShelfFactsTests", dependencies: ["ShelfFacts", "CTextSupport", "ShelfTestSupport"]),
    .testTarget(name: "ShelfWorkersTests", dependencies: ["ShelfWorkers"]),
    .testTarget(
      name: "ShelfCatalogTests",
      dependencies: ["ShelfCatalog", "ShelfWorkers", "ShelfDatabase", "ShelfTestSupport"]),
    .testTarget(name: "ShelfImageTests", dependencies: ["ShelfImage", "ShelfTestSupport"]),
    .testTarget(name: "ShelfCLITests", dependencies: ["ShelfCLI"]),
    .testTarget(name: "EndToEndTests", dependencies: ["shelf", "ShelfTestSupport"]),
  ]
)

// The libFuzzer binary (Fuzz/README.md), only when SHELF_FUZZ is set: `make fuzz` and the smoke
// run in `make test` build it with the fuzzer and address sanitizers (scripts/fuzz.sh).
if Context.environment["SHELF_FUZZ"] != nil {
  package.products.append(.executable(name: "shelf-fuzz", targets: ["ShelfFuzz"]))
  package.targets += [
    .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
    .executableTarget(
      name: "ShelfFuzz",
      dependencies: [
        "CFuzzDriver", "ShelfCore", "ShelfPNG", "ShelfAudio", "ShelfBackup", "ShelfFacts", "ShelfCatalog",
      ],
      path: "Fuzz/ShelfFuzz"),
  ]
}
