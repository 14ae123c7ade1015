// swift-tools-version:6.1
// stressmon: edge firmware for a PPG stress monitor. See README.md and DESIGN notes in docs/.
//
// Layering (no back-edges): PulseDSP and StressModel are pure; Signals reads/writes recordings; Sensors,
// Indicators and Store sit at the hardware/disk edges; Monitor wires them; stressmon is the CLI.
import PackageDescription

let package = Package(
  name: "stressmon",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "stressmon", targets: ["stressmon"]),
    // The hub is its own product so that the edge binary never links the server stack.
    .executable(name: "stressmon-hub", targets: ["stressmon-hub"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // Sync client (edge): HTTP/TLS without Foundation; gzip request bodies through zlib (compress-nio).
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    // Hub (server only): HTTP server, PostgreSQL for fleets, SHA-256 for stored token hashes.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
  ],
  targets: [
    // MARK: - C system libraries and shims (hardware and disk edges only)
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
    // One small GPIO interface over libgpiod 1.x or 2.x: the header pkg-config finds decides (scripts/libgpiod2).
    .target(name: "CGPIODShim", dependencies: ["CGPIOD"]),
    .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
    .target(name: "CLinuxShim"),

    // MARK: - Pure core
    // exp, tan, pow, atan... in Swift, correctly rounded: the same bits on Linux and under Embedded Swift on a
    // microcontroller (docs/embedded.md), so the core never calls the C library's libm.
    .target(name: "PortableMath"),
    .target(name: "PulseDSP", dependencies: ["PortableMath"]),
    .target(name: "StressModel", dependencies: ["PortableMath"]),
    // The streaming analysis chain shared by `analyze` and the daemon: detector → IBI cleaning → HRV windows.
    .target(name: "Analysis", dependencies: ["PulseDSP", "StressModel"]),

    // MARK: - Data formats and configuration
    .target(name: "Signals", dependencies: ["PulseDSP"]),
    .target(name: "Config", dependencies: ["LinuxIO"]),
    .target(name: "SyncWire", dependencies: ["StressModel"]),

    // MARK: - Edges
    // Thin typed wrappers over Linux device nodes (i2c-dev, spidev, GPIO character device).
    .target(name: "LinuxIO", dependencies: ["CI2C", "CGPIODShim", "CLinuxShim"]),
    .target(
      name: "Sensors",
      dependencies: ["Signals", "Config", "LinuxIO", .product(name: "Logging", package: "swift-log")]
    ),
    .target(
      name: "Indicators",
      dependencies: ["StressModel", "LinuxIO", .product(name: "Logging", package: "swift-log")]
    ),
    .target(
      name: "Store",
      dependencies: ["StressModel", "SyncWire", "CSQLite", "CLinuxShim", .product(name: "Logging", package: "swift-log")]
    ),

    // A picture of one day (stress over the category bands, HRV, HR, gaps) as SVG or RGB PNG: `stressmon report`.
    .target(name: "DayReport", dependencies: ["StressModel", "SyncWire", "Indicators"]),

    // Sync client: drains an outbox to the hub. FoundationEssentials only (no NIOFoundationCompat).
    .target(
      name: "Sync",
      dependencies: [
        "SyncWire", "StressModel",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Hub (server; full Foundation is fine here)
    .target(
      name: "Hub",
      dependencies: [
        "SyncWire", "StressModel", "CSQLite",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "stressmon-hub",
      dependencies: [
        "Hub",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Pipeline and CLI
    .target(
      name: "Monitor",
      dependencies: [
        "PulseDSP", "StressModel", "Analysis", "Signals", "Sensors", "Indicators", "Store", "Config", "LinuxIO",
        "SyncWire", "Sync", "CLinuxShim",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "stressmon",
      dependencies: [
        "Monitor", "PulseDSP", "StressModel", "Analysis", "Signals", "Sensors", "Indicators", "Store", "Config", "SyncWire",
        "LinuxIO", "DayReport", "Sync",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Tests
    .testTarget(
      name: "PulseDSPTests", dependencies: ["PulseDSP", "StressModel", "Signals", "TestSupport", "EvaluationSet"]
    ),
    .testTarget(name: "StressModelTests", dependencies: ["StressModel", "TestSupport"]),
    .testTarget(name: "AnalysisTests", dependencies: ["Analysis", "PulseDSP", "StressModel", "Signals", "TestSupport"]),
    .testTarget(name: "LinuxIOTests", dependencies: ["LinuxIO", "TestSupport"]),
    .testTarget(name: "SignalsTests", dependencies: ["Signals", "TestSupport"]),
    .testTarget(name: "ConfigTests", dependencies: ["Config", "TestSupport"]),
    .testTarget(name: "SensorsTests", dependencies: ["Sensors", "Signals", "Config", "LinuxIO", "TestSupport"]),
    .testTarget(name: "IndicatorsTests", dependencies: ["Indicators", "StressModel", "TestSupport"]),
    .testTarget(name: "StoreTests", dependencies: ["Store", "StressModel", "SyncWire", "TestSupport", "store-crash-writer"]),
    // Test-only: the process StoreTests kills with SIGKILL (scripts/crash-test), and `write-rate`, the store's
    // bytes-per-hour benchmark (docs/store.md).
    .executableTarget(
      name: "store-crash-writer",
      dependencies: ["Store", "SyncWire", "StressModel", .product(name: "Logging", package: "swift-log")],
      path: "Tests/StoreCrashWriter"
    ),
    // The daemon: in-process pipeline runs on the simulated board, the real binary for SIGTERM and the replay
    // equivalence, and kiosk mode against a real hub on loopback (hence Hub and Hummingbird, test-only).
    .testTarget(
      name: "MonitorTests",
      dependencies: [
        "Monitor", "stressmon", "Analysis", "Config", "CSQLite", "Hub", "Indicators", "LinuxIO", "PulseDSP", "Sensors",
        "Signals", "Store", "StressModel", "SyncWire", "SyncTestSupport", "TestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "DayReportTests", dependencies: ["DayReport", "StressModel", "SyncWire", "Indicators", "TestSupport"]
    ),
    .testTarget(name: "CLITests", dependencies: ["stressmon", "Store", "SyncWire", "SyncTestSupport", "TestSupport"]),
    .target(name: "SyncTestSupport", dependencies: ["SyncWire", "StressModel", "TestSupport"], path: "Tests/SyncTestSupport"),
    .testTarget(name: "SyncTests", dependencies: ["Sync", "SyncWire", "StressModel", "SyncTestSupport", "TestSupport"]),
    .testTarget(
      name: "HubTests",
      dependencies: [
        "Hub", "Sync", "SyncWire", "Store", "StressModel", "SyncTestSupport", "TestSupport",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "CompressNIO", package: "compress-nio"),
      ]
    ),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // The evaluation set (docs/evaluation-set.md): semi-synthetic raw MAX30102 recordings with exact beat truth,
    // made in memory from the shared real data, and their scoring. Test-only; `stressmon-evalset` writes the set
    // to a folder for scripts/bench-accuracy. The generator itself never uses the detector it judges (Analysis
    // is only for the `AnalyzerOutput.stressmon` adapter).
    .target(
      name: "EvaluationSet", dependencies: ["Analysis", "PulseDSP", "Signals", "StressModel", "TestSupport"],
      path: "Tests/EvaluationSet"
    ),
    .executableTarget(
      name: "stressmon-evalset",
      dependencies: ["EvaluationSet", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tests/EvaluationSetTool"
    ),
    .testTarget(name: "EvaluationSetTests", dependencies: ["EvaluationSet", "StressModel", "Signals"]),
    // The core under Embedded Swift (docs/embedded.md): PortableMath against the C library, and the QEMU firmware's
    // events against Linux's bit for bit (skipped, one line each, without qemu or scripts/build-embedded's output).
    .testTarget(
      name: "EmbeddedTests",
      dependencies: [
        "stressmon", "Analysis", "EvaluationSet", "PortableMath", "PulseDSP", "Signals", "StressModel", "TestSupport",
      ]
    ),
  ]
)

// A subset build: `STRESSMON_ONLY_TARGETS=LinuxIOTests swift test --scratch-path .build-gpiod2` declares only the
// named targets and what they depend on, so scripts/test-gpiod2 compiles and tests the GPIO backend against
// libgpiod 2 in under a minute instead of building the whole package a second time. Dependencies stay declared,
// so Package.resolved is the same.
if let only = Context.environment["STRESSMON_ONLY_TARGETS"] {
  let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
  var keep = Set<String>()
  var pending = only.split(separator: ",").map(String.init)
  while let name = pending.popLast() {
    guard keep.insert(name).inserted, let target = byName[name] else { continue }
    for dependency in target.dependencies {
      switch dependency {
      case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
      default: break
      }
    }
  }
  package.targets = package.targets.filter { keep.contains($0.name) }
  package.products = []
}
