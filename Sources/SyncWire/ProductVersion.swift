/// The version of stressmon and stressmon-hub, set here and nowhere else: both binaries' `--version`, the hub's
/// `/healthz` and OpenAPI document, the Home Assistant device's software version, and the Debian packages
/// (scripts/package reads it from the built binary and wants a packaging/deb/changelog entry for it). Device and
/// hub are released together, so they share it.
public enum ProductVersion {
  public static let text = "0.2.0"
}
