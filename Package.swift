// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "Keepsake",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Keepsake", targets: ["Keepsake"]),
    .library(name: "KeepsakeStore", targets: ["KeepsakeStore"]),
    .library(name: "KeepsakeTesting", targets: ["KeepsakeTesting"]),
    .library(name: "FaultInjection", targets: ["FaultInjection"]),
    .executable(name: "keepsake", targets: ["keepsake"]),
    .executable(name: "drafts", targets: ["drafts"]),
    .executable(name: "keepsake-stress", targets: ["keepsake-stress"]),
    .executable(name: "keepsake-bench", targets: ["keepsake-bench"]),
  ],
  targets: [
    // The library: imports Foundation, Synchronization, Observation and KeepsakeJSON only.
    .target(name: "Keepsake", dependencies: ["KeepsakeJSON"]),
    // The one JSON reader and writer (Keepsake's codec, strictness a setting): Foundation only.
    .target(name: "KeepsakeJSON"),
    // A standalone fault seam for test doubles: Foundation and Synchronization only.
    .target(name: "FaultInjection"),
    // An optional, small unidirectional architecture: Reducer, Effect, Store.
    .target(name: "KeepsakeStore", dependencies: ["Keepsake"]),
    // For test targets only: the one module that links Testing and XCTest.
    .target(
      name: "KeepsakeTesting", dependencies: ["Keepsake", "KeepsakeStore", "FaultInjection"]),
    .executableTarget(name: "keepsake", dependencies: ["Keepsake"]),

    .target(
      name: "DraftsFeature",
      dependencies: ["Keepsake", "KeepsakeStore"],
      path: "Examples/Drafts/Sources/DraftsFeature"
    ),
    .executableTarget(
      name: "drafts",
      dependencies: ["DraftsFeature"],
      path: "Examples/Drafts/Sources/drafts"
    ),

    // Built with the default isolation many apps now use: unannotated code is MainActor.
    .target(
      name: "DiscovererFeature",
      dependencies: ["Keepsake", "KeepsakeStore", "FaultInjection"],
      path: "Examples/Discoverer/Sources/DiscovererFeature",
      resources: [.copy("Resources")],
      swiftSettings: [.defaultIsolation(MainActor.self)]
    ),

    // The founding article's trap, as written: a helper made MainActor by the default isolation.
    // Only DiscovererTests imports it, to show the process it kills.
    .target(
      name: "IsolationTrap",
      path: "Examples/Discoverer/Sources/IsolationTrap",
      swiftSettings: [.defaultIsolation(MainActor.self)]
    ),

    // Reliability campaigns (crash, I/O faults, corruption, two processes) and the benchmark.
    .target(
      name: "KeepsakeStress", dependencies: ["Keepsake", "DraftsFeature", "FaultInjection"],
      path: "Tools/KeepsakeStress"),
    .executableTarget(
      name: "keepsake-stress", dependencies: ["KeepsakeStress", "Keepsake"],
      path: "Tools/keepsake-stress"),
    .executableTarget(
      name: "keepsake-bench",
      dependencies: ["Keepsake", "DraftsFeature", "FaultInjection", "KeepsakeStress"],
      path: "Benchmarks/keepsake-bench"),

    // Its exit-flush and UserDefaults suites run `keepsake-stress` as their child process.
    .testTarget(
      name: "KeepsakeTests",
      dependencies: [
        "Keepsake", "KeepsakeTesting", "DraftsFeature", "KeepsakeStress", "keepsake-stress",
      ]),
    .testTarget(name: "KeepsakeJSONTests", dependencies: ["KeepsakeJSON", "DraftsFeature"]),
    .testTarget(
      name: "KeepsakeToolTests", dependencies: ["keepsake", "Keepsake", "KeepsakeTesting"]),
    .testTarget(
      name: "KeepsakeStressTests",
      dependencies: ["KeepsakeStress", "keepsake-stress", "Keepsake", "KeepsakeTesting"]),
    .testTarget(
      name: "KeepsakeBenchTests",
      dependencies: ["keepsake-bench", "Keepsake", "DraftsFeature", "KeepsakeTesting"]),
    .testTarget(
      name: "KeepsakeStoreTests",
      dependencies: ["KeepsakeStore", "KeepsakeTesting", "FaultInjection"]),
    .testTarget(
      name: "DiscovererTests",
      dependencies: ["DiscovererFeature", "IsolationTrap", "KeepsakeTesting", "FaultInjection"]
    ),
    .testTarget(name: "FaultInjectionTests", dependencies: ["FaultInjection"]),
    .testTarget(
      name: "KeepsakeTestingTests", dependencies: ["KeepsakeTesting", "Keepsake", "FaultInjection"]
    ),
    .testTarget(
      name: "DraftsTests",
      dependencies: ["DraftsFeature", "Keepsake", "KeepsakeTesting"],
      resources: [.copy("Fixtures")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
