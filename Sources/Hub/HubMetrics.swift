import Metrics
import Prometheus

/// The hub's metrics, served as Prometheus text at `/metrics` (swift-prometheus). The hub's own counters are
/// made in this registry directly; Hummingbird's `MetricsMiddleware` (requests by route, method and status, and
/// their durations) records through swift-metrics, which `bootstrapMetricsSystem()` points at the same registry.
public final class HubMetrics: Sendable {
  public let registry: PrometheusCollectorRegistry

  public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
    self.registry = registry
  }

  /// Points the process-wide swift-metrics system at this registry. Once per process (the executable does it;
  /// swift-metrics traps on a second call).
  public func bootstrapMetricsSystem() {
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
  }

  /// The exposition text (Prometheus text format 0.0.4).
  public func exposition() -> [UInt8] {
    registry.emitToBuffer()
  }

  // MARK: - Recording

  /// Rows of one ingest by outcome, per device.
  func rows(device: String, accepted: Int, rejected: Int, keptNewer: Int) {
    for (outcome, count) in [("accepted", accepted), ("rejected", rejected), ("kept_newer", keptNewer)] where count > 0 {
      registry.makeCounter(descriptor: Self.rows, labels: [("device", device), ("outcome", outcome)])
        .increment(by: Int64(count))
    }
  }

  func rateLimited(tokenId: String) {
    registry.makeCounter(descriptor: Self.rateLimited, labels: [("token", tokenId)]).increment()
  }

  /// Open client connections (a gauge the connection guard keeps).
  func connections(_ open: Int) {
    registry.makeGauge(descriptor: Self.connections).set(Double(open))
  }

  /// Connections closed by the guard: `reason` is over_capacity, header_timeout, body_timeout or send_timeout.
  func connectionClosed(reason: String) {
    registry.makeCounter(descriptor: Self.connectionsClosed, labels: [("reason", reason)]).increment()
  }

  // MARK: - Names

  /// `stressmon_hub_<metric>_<unit>`, with its HELP text.
  private static func name(_ metric: String, unit: String = "total", _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: "stressmon", subsystem: "hub", metricName: metric, unitName: unit, helpText: help)
  }

  private static var rows: MetricNameDescriptor {
    name("rows", "Rows received, by device and outcome (accepted, rejected, kept_newer: the hub kept a newer version)")
  }
  private static var rateLimited: MetricNameDescriptor {
    name("rate_limited", "Reads refused with 429 because the token read faster than its rate")
  }
  private static var connections: MetricNameDescriptor {
    name("connections", unit: "", "Open client connections")
  }
  private static var connectionsClosed: MetricNameDescriptor {
    name(
      "connections_closed",
      "Connections the hub closed itself: over the connection cap (after a 503), too slow to send a request, or not "
        + "reading the answers")
  }
}
