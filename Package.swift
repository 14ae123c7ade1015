// swift-tools-version:6.1
// stressmon: edge firmware for a PPG stress monitor. See README.md and DESIGN notes in docs/.
//
// Layering (no back-edges; scripts/check-graph enforces it and README.md draws it):
// - platform leaves: Platform (the C library shim: FileDescriptor, Errno), SQLite (the one libsqlite3 wrapper),
//   CZlib, and the C device shims CGPIOD, CI2C, CLinuxShim;
// - pure core: PulseDSP, StressModel, Analysis;
// - formats: Signals (recordings), BoardParts + Config (board files), SyncWire (wire types), Raster (pixels, PNG),
//   DayReport. None of these reaches a hardware module;
// - edges: LinuxIO (device nodes), Sensors, Indicators (LEDs, e-paper), Store (disk), Sync (network);
// - composition: Monitor maps board files onto drivers and wires the daemon; stressmon is the CLI; Hub and
//   stressmon-hub are the server.
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
    // Declared because Sync and Hub import their modules (NIOCore, NIOSSL, ...) directly; versions as resolved.
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
    // Hub (server only): HTTP server, PostgreSQL for fleets, SHA-256 for stored token hashes.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    // Hub /metrics: swift-metrics' API (Hummingbird's MetricsMiddleware records through it) into a Prometheus registry.
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    // Hub: the HTTP types Hummingbird 2 speaks (header names, statuses) and NIO's channel handlers for them, which
    // the connection guard sits among; both already resolved through Hummingbird, declared because Hub imports them.
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    // Hummingbird's ServiceGroup, for the tests that run a hub on loopback: they shut it down gracefully, as `serve`
    // does on SIGTERM, since cancelling a running server can trap in NIO (apple/swift-nio#3481). Already resolved.
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
  ],
  targets: [
    // MARK: - C system libraries and shims (hardware and disk edges only)
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
    // One small GPIO interface over libgpiod 1.x or 2.x: the header pkg-config finds decides (scripts/libgpiod2).
    .target(name: "CGPIODShim", dependencies: ["CGPIOD"]),
    .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
    .target(name: "CLinuxShim"),
    // The system zlib (compress-nio links the same library): PNG compression and chunk CRCs.
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // The one platform shim: the C library (Glibc or Musl) re-exported, and open/read/write/close typed like
    // swift-system (FileDescriptor, Errno), plus whole-file atomic writes.
    .target(name: "Platform"),

    // MARK: - Pure core
    // exp, tan, pow, atan... in Swift, correctly rounded: the same bits on Linux and under Embedded Swift on a
    // microcontroller (docs/embedded.md), so the core never calls the C library's libm.
    .target(name: "PortableMath"),
    .target(name: "PulseDSP", dependencies: ["PortableMath"]),
    .target(name: "StressModel", dependencies: ["PortableMath"]),
    // The streaming analysis chain shared by `analyze` and the daemon: detector → IBI cleaning → HRV windows.
    .target(name: "Analysis", dependencies: ["PulseDSP", "StressModel"]),

    // MARK: - Data formats and configuration
    .target(name: "Signals", dependencies: ["PulseDSP", "Platform"]),
    // The names of a board's parts (sensor parts, GPIO line ids), shared by Config and the drivers.
    .target(name: "BoardParts"),
    .target(name: "Config", dependencies: ["BoardParts"]),
    .target(name: "SyncWire", dependencies: ["StressModel"]),

    // MARK: - Edges
    // Thin typed wrappers over Linux device nodes (i2c-dev, spidev, GPIO character device).
    .target(name: "LinuxIO", dependencies: ["BoardParts", "Platform", "CI2C", "CGPIODShim", "CLinuxShim"]),
    .target(
      name: "Sensors",
      dependencies: ["BoardParts", "Signals", "LinuxIO", "Platform", .product(name: "Logging", package: "swift-log")]
    ),
    // Pixels only: 1-bit bitmap, fonts, category icons and fill patterns, panel layouts, PNG/PBM encoders.
    .target(name: "Raster", dependencies: ["StressModel", "Platform", "CZlib"]),
    // The device side of the indicators: LED patterns and drivers, SSD168x panel drivers and the panel emulator.
    .target(
      name: "Indicators",
      dependencies: [
        "BoardParts", "StressModel", "Raster", "LinuxIO", "Platform", .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The one SQLite wrapper (connection, statements, typed errors) over the system libsqlite3: Store and Hub.
    .target(name: "SQLite", dependencies: ["CSQLite", "Platform"]),
    .target(
      name: "Store",
      dependencies: [
        "StressModel", "SyncWire", "SQLite", "Platform", "CLinuxShim", .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // A picture of one day (stress over the category bands, HRV, HR, gaps) as SVG or RGB PNG: `stressmon report`.
    .target(name: "DayReport", dependencies: ["StressModel", "SyncWire", "Raster", "Platform"]),

    // Sync client: drains an outbox to the hub. FoundationEssentials only (no NIOFoundationCompat).
    .target(
      name: "Sync",
      dependencies: [
        "SyncWire", "Platform",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // What both executables share: the failure that ends a command (one stderr line, a sysexits code) and their
    // entry point, the one JSON string escaper, counted nouns. No Foundation: the edge binary links it.
    .target(
      name: "CommandSupport",
      dependencies: ["Platform", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),

    // Home Assistant over MQTT: the discovery and state documents (a format: JSON, no network) and an MQTT 3.1.1
    // publisher (an edge: QoS 1, TLS through NIOSSL as the sync client, credentials, keep-alive, reconnect).
    .target(name: "HomeAssistant", dependencies: ["StressModel"]),
    .target(
      name: "MQTT",
      dependencies: [
        "Platform",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Hub (server; full Foundation is fine here)
    .target(
      name: "Hub",
      dependencies: [
        "SyncWire", "StressModel", "SQLite", "DayReport", "Raster", "CommandSupport", "CZlib", "Platform",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
      ]
    ),
    .executableTarget(
      name: "stressmon-hub",
      dependencies: [
        "Hub", "Platform", "CommandSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Pipeline and CLI
    .target(
      name: "Monitor",
      dependencies: [
        "PulseDSP", "StressModel", "Analysis", "BoardParts", "Sensors", "Raster", "Indicators", "Store", "Config",
        "LinuxIO", "Platform", "SyncWire", "Sync", "CLinuxShim", "MQTT", "HomeAssistant",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "stressmon",
      dependencies: [
        "Monitor", "PulseDSP", "StressModel", "Analysis", "Signals", "BoardParts", "Sensors", "Raster", "Indicators",
        "Store", "Config", "SyncWire", "LinuxIO", "Platform", "DayReport", "Sync", "CommandSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),

    // MARK: - Tests
    .testTarget(
      name: "PulseDSPTests", dependencies: ["PulseDSP", "Analysis", "Signals", "TestSupport", "EvaluationSet"]
    ),
    .testTarget(name: "StressModelTests", dependencies: ["StressModel", "Platform", "TestSupport"]),
    .testTarget(name: "PlatformTests", dependencies: ["Platform", "TestSupport"]),
    .testTarget(
      name: "AnalysisTests",
      dependencies: ["Analysis", "PulseDSP", "StressModel", "Signals", "Platform", "TestSupport", "EvaluationSet"]
    ),
    .testTarget(name: "LinuxIOTests", dependencies: ["LinuxIO", "BoardParts", "Platform", "TestSupport"]),
    // GPIO and I2C through a real Linux kernel (gpio-sim, i2c-stub), inside scripts/kernel-lane's VM: compiled only
    // into the lane's own builds (STRESSMON_KERNEL_LANE_BUILD=1); elsewhere one disabled test says so
    // (docs/kernel-lane.md).
    .testTarget(
      name: "KernelLaneTests",
      dependencies: ["LinuxIO", "Sensors", "Indicators", "BoardParts", "Platform", "Raster", "StressModel", "TestSupport"],
      swiftSettings: Context.environment["STRESSMON_KERNEL_LANE_BUILD"] == "1" ? [.define("STRESSMON_KERNEL_LANE")] : []
    ),
    .testTarget(name: "SignalsTests", dependencies: ["Signals", "Platform", "TestSupport"]),
    .testTarget(name: "ConfigTests", dependencies: ["Config", "TestSupport"]),
    // Monitor for the board-to-source mapping (PulseSourceFactory), which lives in the composition root.
    .testTarget(
      name: "SensorsTests",
      dependencies: ["Sensors", "Signals", "Config", "LinuxIO", "Monitor", "Platform", "TestSupport"]
    ),
    .testTarget(name: "RasterTests", dependencies: ["Raster", "StressModel", "TestSupport"]),
    .testTarget(
      name: "IndicatorsTests",
      dependencies: ["Indicators", "Raster", "LinuxIO", "Platform", "StressModel", "TestSupport"]
    ),
    .testTarget(
      name: "StoreTests",
      dependencies: [
        "Store", "SQLite", "Platform", "StressModel", "SyncWire", "TestSupport", "store-crash-writer",
        "CSQLiteCrashVFS",
      ]
    ),
    // Test-only: a SQLite VFS that simulates power cuts (drops or tears what a file had not synced), for the store's
    // and the hub's power-cut tests.
    .target(name: "CSQLiteCrashVFS", dependencies: ["CSQLite"], path: "Tests/CSQLiteCrashVFS"),
    // Test-only: the process StoreTests kills with SIGKILL (scripts/crash-test), and `write-rate`, the store's
    // bytes-per-hour benchmark (docs/store.md).
    .executableTarget(
      name: "store-crash-writer",
      dependencies: ["Store", "SyncWire", "StressModel", "Platform", .product(name: "Logging", package: "swift-log")],
      path: "Tests/StoreCrashWriter"
    ),
    // The daemon: in-process pipeline runs on the simulated board, the real binary for SIGTERM and the replay
    // equivalence, and kiosk mode against a real hub on loopback (hence Hub and Hummingbird, test-only).
    .testTarget(
      name: "MonitorTests",
      dependencies: [
        "Monitor", "stressmon", "Config", "CSQLite", "Hub", "Indicators", "LinuxIO", "Platform", "Sensors", "Store",
        "StressModel", "SyncWire", "SyncTestSupport", "TestSupport", "ServerTestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "DayReportTests",
      dependencies: ["DayReport", "StressModel", "SyncWire", "Raster", "Platform", "TestSupport"]
    ),
    .testTarget(
      name: "CLITests",
      dependencies: ["stressmon", "Analysis", "PulseDSP", "Signals", "Store", "SyncWire", "SyncTestSupport", "TestSupport"]),
    .target(
      name: "SyncTestSupport", dependencies: ["SyncWire", "StressModel", "Platform", "TestSupport"],
      path: "Tests/SyncTestSupport"
    ),
    .testTarget(name: "SyncTests", dependencies: ["Sync", "SyncWire", "SyncTestSupport", "TestSupport"]),
    // The MQTT publisher and the Home Assistant documents, against a real mosquitto started by the tests.
    .testTarget(name: "MQTTTests", dependencies: ["MQTT", "HomeAssistant", "Platform", "StressModel", "TestSupport"]),
    .testTarget(
      name: "HubTests",
      dependencies: [
        "Hub", "SQLite", "Sync", "SyncWire", "Store", "StressModel", "DayReport", "Raster", "SyncTestSupport",
        "TestSupport", "ServerTestSupport", "CSQLiteCrashVFS", "Platform",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // A server run on loopback by HubTests and MonitorTests, stopped gracefully (ServiceLifecycle).
    .target(
      name: "ServerTestSupport",
      dependencies: [
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      path: "Tests/ServerTestSupport"
    ),
    // The evaluation set (docs/evaluation-set.md): semi-synthetic raw MAX30102 recordings with exact beat truth,
    // made in memory from the shared real data, and their scoring. Test-only; `stressmon-evalset` writes the set
    // to a folder for scripts/bench-accuracy. The generator itself never uses the detector it judges (Analysis
    // is only for the `AnalyzerOutput.stressmon` adapter).
    .target(
      name: "EvaluationSet", dependencies: ["Analysis", "PulseDSP", "Platform", "Signals", "StressModel", "TestSupport"],
      path: "Tests/EvaluationSet"
    ),
    .executableTarget(
      name: "stressmon-evalset",
      dependencies: [
        "EvaluationSet", "Analysis", "PulseDSP", "StressModel",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tests/EvaluationSetTool"
    ),
    .testTarget(name: "EvaluationSetTests", dependencies: ["EvaluationSet", "Platform", "StressModel", "Signals"]),
    // The core under Embedded Swift (docs/embedded.md): PortableMath against the C library, and the QEMU firmware's
    // events against Linux's bit for bit (skipped, one line each, without qemu or scripts/build-embedded's output).
    .testTarget(
      name: "EmbeddedTests",
      dependencies: [
        "stressmon", "Analysis", "EvaluationSet", "Platform", "PortableMath", "PulseDSP", "Signals", "StressModel",
        "TestSupport",
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
