import Foundation
import SyncWire
import Testing
import TestSupport

/// One version for both binaries, set once (`ProductVersion`): issue 44 found `stressmon --version` at 0.1.0 while
/// the hub and its `/healthz` said 0.2.0. The packages read it from the built binaries (scripts/package).
@Suite("One version")
struct VersionTests {
  @Test("stressmon --version and stressmon-hub --version both print ProductVersion.text")
  func bothBinaries() throws {
    let device = try CLIRunner.run(["--version"])
    let hub = try CLIRunner.run(["--version"], product: "stressmon-hub")
    #expect(device.status == 0 && hub.status == 0, "\(device.stderr)\(hub.stderr)")
    #expect(device.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.text)
    #expect(hub.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.text)
  }

  @Test("packaging/deb/changelog's first entry names this version (scripts/package refuses to build otherwise)")
  func changelog() throws {
    let changelog = try String(contentsOfFile: SharedData.repositoryRoot + "/packaging/deb/changelog", encoding: .utf8)
    #expect(changelog.hasPrefix("stressmon (\(ProductVersion.text)) "))
  }
}
