import CommandSupport
import Platform
import Store
import SyncWire
import ArgumentParser
import FoundationEssentials
import Logging
import Sync

/// `stressmon sync`: upload the outbox to the hub, or show what waits in it.
struct SyncCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Upload stored measurements to a stressmon hub, or show what waits in the outbox.",
    discussion: """
      Measurements wait in the device's outbox until the hub acknowledges them. Each row has a UUID and the \
      hub stores it by that id, so an upload interrupted at any point (network loss, power cut) is simply \
      sent again and never duplicated. Rows the hub refuses as invalid are quarantined with the hub's reason \
      (see --status) instead of being retried forever; nothing is dropped silently. Once the cause is fixed \
      (the hub upgraded, its limits changed), --requeue puts them back in the outbox for the next sync.

      The connection uses HTTPS with certificate verification. --ca-file trusts a private CA; plain HTTP \
      needs --insecure-http (the token would travel unencrypted). Failures are retried with randomised \
      exponential backoff (1 s doubling up to 5 min) and the hub's Retry-After is obeyed. A refused connection \
      fails at once; each request, answer included, gets --timeout seconds; a --once run ends within --deadline \
      seconds whatever the hub does, leaving what it could not send in the outbox.

      Examples:
        stressmon sync --once --hub https://hub.local:8443 \\
          --token-file /etc/stressmon/token
        stressmon sync --status --json --db /var/lib/stressmon/stressmon.db
        stressmon sync --requeue all --db /var/lib/stressmon/stressmon.db
        stressmon sync --once --hub http://127.0.0.1:8080 --insecure-http \\
          --token-file token --outbox /tmp/outbox

      Exit codes: 0 outbox drained (or --status, --requeue), 64 bad option or a --requeue id that is not \
      quarantined, 65 the hub refused rows (quarantined: see --status), 66 token file or store missing, 69 hub \
      unreachable, refusing this device or the deadline reached (rows stay in the outbox), 74 outbox unreadable. \
      --status exits 0 and shows rows a full disk made the store delete before upload; the exit code that \
      carries such a drop is the daemon's: 'stressmon run' ends with 74.
      """
  )

  @Flag(name: .long, help: "Send what is pending once and exit (default: keep syncing every --interval seconds).")
  var once = false

  @Flag(name: .long, help: "Show the outbox (pending, waiting for the clock, quarantined with reasons); no network.")
  var status = false

  @Option(
    name: .long, parsing: .upToNextOption,
    help: ArgumentHelp(
      "Put quarantined rows back in the outbox: their ids (from --status) or 'all'; no network.",
      valueName: "id|all"))
  var requeue: [String] = []

  @Flag(name: .long, help: "Print one JSON object on stdout instead of sentences.")
  var json = false

  @Option(name: .long, help: ArgumentHelp("The device's SQLite store (the daemon's --db).", valueName: "path"))
  var db: String?

  @Option(name: .long, help: ArgumentHelp("A file-backed outbox directory (development and tests) instead of --db.", valueName: "dir"))
  var outbox: String?

  @Option(name: .long, help: ArgumentHelp("The hub's base URL, e.g. https://hub.local:8443.", valueName: "url"))
  var hub: String?

  @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding this device's token (from 'stressmon-hub token create').", valueName: "path"))
  var tokenFile: String?

  @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM file of CA certificates to trust for the hub.", valueName: "path"))
  var caFile: String?

  @Flag(name: .customLong("insecure-http"), help: "Allow a plain http:// hub URL (token and data unencrypted).")
  var insecureHTTP = false

  @Option(
    name: .long,
    help: ArgumentHelp("Seconds allowed for one upload request, the whole answer included.", valueName: "s"))
  var timeout: Double = 30

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Seconds a --once run may take in all, retries included.",
      valueName: "s"))
  var deadline: Double = SyncConfiguration.defaultDeadline

  @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("Seconds allowed to connect, TLS handshake included.", valueName: "s"))
  var connectTimeout: Double = 10

  @Option(name: .long, help: ArgumentHelp("Seconds between runs without --once.", valueName: "s"))
  var interval: Double = 60

  @Option(name: .customLong("backoff-base"), help: .hidden)
  var backoffBase: Double = BackoffPolicy.standard.base

  @Option(name: .customLong("backoff-cap"), help: .hidden)
  var backoffCap: Double = BackoffPolicy.standard.cap

  func run() async throws {
    guard !(status && !requeue.isEmpty) else { throw CLIFailure.usage("--status and --requeue are separate runs; give one") }
    let outbox = try openOutbox()
    if status {
      try printStatus(outbox)
      return
    }
    if !requeue.isEmpty {
      try requeueQuarantined(outbox)
      return
    }
    guard let hub else { throw CLIFailure.usage("--hub URL is required to sync (or use --status)") }
    guard let tokenFile else { throw CLIFailure.usage("--token-file PATH is required to sync") }
    guard timeout > 0, timeout <= 600, connectTimeout > 0, connectTimeout <= 600, interval > 0, backoffBase > 0,
      backoffCap >= backoffBase, deadline > 0, deadline <= 86_400
    else {
      throw CLIFailure.usage(
        "--timeout and --connect-timeout must be within 0-600 s, --deadline within 0-86400 s and --interval positive")
    }
    let token: String
    do {
      let contents = try TokenFile.read(tokenFile)
      if let warning = contents.warning { CLIOutput.error("warning: \(warning)") }
      token = contents.token
    } catch {
      throw CLIFailure(code: error.sysexitsCode, message: error.description)
    }
    let configuration = SyncConfiguration(
      hubURL: hub, token: token, caFile: caFile, allowInsecureHTTP: insecureHTTP, connectTimeout: connectTimeout,
      requestTimeout: timeout, deadline: deadline,
      backoff: BackoffPolicy(base: backoffBase, cap: backoffCap, maxRetryAfter: BackoffPolicy.standard.maxRetryAfter),
      interval: interval)
    let transport: AsyncHTTPTransport
    let client: SyncClient
    do {
      transport = try AsyncHTTPTransport(configuration: configuration)
      client = try SyncClient(outbox: outbox, transport: transport, configuration: configuration)
    } catch let error as SyncError {
      throw CLIFailure.usage(error.description)
    }
    guard once else {
      await client.run()
      try? await transport.shutdown()
      return
    }
    let report: SyncReport
    do {
      // The client keeps to the deadline itself; this bound holds even if something below it does not.
      report = try await withTimeLimit(deadline + Self.deadlineGraceSeconds) { try await client.runOnce() }
    } catch is TimeLimitExceeded {
      throw CLIFailure.unavailable(
        SyncError.deadline(seconds: deadline, lastProblem: "the last request did not end").description)
    } catch {
      try? await transport.shutdown()
      throw CLIFailure.ioError("\(error)")
    }
    try? await transport.shutdown()
    if json {
      try CLIOutput.json(SyncRunOutput(report))
    } else {
      CLIOutput.line(Self.sentence(for: report))
    }
    if let problem = report.stoppedBy {
      CLIOutput.error(problem.description)
      throw ExitCode(69)
    }
    if report.quarantined > 0 {
      throw CLIFailure.badData(
        "the hub refused \(counted(report.quarantined, "row")), now quarantined (first: "
          + "\(report.firstQuarantineReason ?? "?")); see 'stressmon sync --status', fix the cause, then 'stressmon sync --requeue all'")
    }
  }

  /// Beyond the deadline, how long a run whose request ignores cancellation is waited for before the command gives
  /// up on it.
  static let deadlineGraceSeconds = 5.0

  // MARK: - Private

  private func openOutbox() throws -> any SyncOutbox {
    if let outbox {
      do {
        return try FileOutbox(directory: outbox)
      } catch {
        throw CLIFailure.ioError("\(error)")
      }
    }
    // The device store is the outbox (MeasurementStore conforms to SyncOutbox); --db defaults as for history.
    let path = db ?? StorePaths.defaultDatabasePath()
    return try StoreFailure.map(path) {
      try MeasurementStore(path: path, options: MeasurementStore.Options(create: false, reserveBytes: 0))
    }
  }

  private func printStatus(_ outbox: any SyncOutbox) throws {
    let status: OutboxStatus
    let quarantined: [QuarantinedRow]
    do {
      status = try outbox.outboxStatus()
      quarantined = try outbox.quarantined()
    } catch {
      throw CLIFailure.ioError("\(error)")
    }
    if json {
      try CLIOutput.json(SyncStatusOutput(status: status, quarantined: quarantined))
      return
    }
    var text = "Outbox: \(status.pending) pending, \(status.waitingForClock) waiting for the clock to synchronise, "
      + "\(status.quarantined) quarantined. "
    text += status.lastUploadAt.map { "Last upload \(ISO8601Time.formatLocal($0)) (\(Self.ago($0)) ago)." }
      ?? "Nothing uploaded yet."
    CLIOutput.line(text)
    if status.droppedForSpace > 0 {
      CLIOutput.line(
        "Disk full: deleted \(counted(status.droppedForSpace, "measurement")) before upload (the oldest first); "
          + "free space on the device's disk.")
    }
    // The newest few: a clock gone wrong can quarantine thousands of rows for one reason.
    let shown = quarantined.sorted { $0.at > $1.at }.prefix(Self.quarantinedShown)
    for row in shown {
      CLIOutput.line("  quarantined \(row.id) at \(ISO8601Time.formatLocal(row.at)): \(row.reason)")
    }
    if quarantined.count > shown.count {
      CLIOutput.line(
        "  … and \(counted(quarantined.count - shown.count, "older quarantined row")); "
          + "'stressmon sync --status --json' lists them all")
    }
  }

  /// Quarantined rows listed by `--status` (the newest; `--json` gives them all).
  static let quarantinedShown = 10

  /// `--requeue`: every id must be quarantined now (a typo should not pass as "0 requeued").
  private func requeueQuarantined(_ outbox: any SyncOutbox) throws {
    let released: Int
    let after: OutboxStatus
    do {
      let quarantinedIds = try outbox.quarantined().map(\.id)
      let ids: [String]
      if requeue.contains(where: { $0.lowercased() == "all" }) {
        ids = quarantinedIds
      } else {
        let known = Set(quarantinedIds)
        let unknown = requeue.filter { !known.contains($0) }
        guard unknown.isEmpty else {
          throw CLIFailure.usage(
            "not quarantined: \(unknown.joined(separator: ", ")); 'stressmon sync --status' lists the quarantined rows")
        }
        ids = requeue
      }
      released = try outbox.releaseQuarantine(ids: ids)
      after = try outbox.outboxStatus()
    } catch let failure as CLIFailure {
      throw failure
    } catch {
      throw CLIFailure.ioError("\(error)")
    }
    if json {
      try CLIOutput.json(SyncRequeueOutput(requeued: released, outbox: after))
    } else {
      CLIOutput.line(
        "Requeued \(counted(released, "row")); the next sync uploads them (the hub refuses them again if the cause "
          + "remains). Outbox: \(after.pending) pending, \(after.quarantined) quarantined.")
    }
  }

  static func sentence(for report: SyncReport) -> String {
    var text = "Uploaded \(counted(report.uploaded, "row")) in \(counted(report.requests, "request")) "
      + "(\(counted(report.retries, "retry", plural: "retries"))); "
      + "\(report.quarantined) quarantined. Outbox: \(report.status.pending) pending, "
      + "\(report.status.waitingForClock) waiting for the clock, \(report.status.quarantined) quarantined."
    if report.keptNewer > 0 {
      text += " Not stored, as the hub keeps a newer version: \(counted(report.keptNewer, "row"))."
    }
    if report.status.quarantined > 0 { text += " See 'stressmon sync --status' for the reasons." }
    if report.status.droppedForSpace > 0 {
      text += " Deleted for disk space before upload: \(counted(report.status.droppedForSpace, "row"))."
    }
    return text
  }

  private static func ago(_ epoch: Double) -> String {
    let seconds = max(0, Date().timeIntervalSince1970 - epoch)
    if seconds < 120 { return "\(Int(seconds)) s" }
    if seconds < 7200 { return "\(Int(seconds / 60)) min" }
    return "\(Int(seconds / 3600)) h"
  }
}

/// `stressmon sync --requeue … --json`.
struct SyncRequeueOutput: Encodable {
  var requeued: Int
  var outbox: OutboxStatus
}

/// `stressmon sync --once --json`.
struct SyncRunOutput: Encodable {
  enum CodingKeys: String, CodingKey {
    case uploaded, quarantined, requests, retries, drained, problem, outbox
    case keptNewer = "kept_newer"
  }

  var uploaded: Int
  var quarantined: Int
  var keptNewer: Int
  var requests: Int
  var retries: Int
  var drained: Bool
  var problem: String?
  var outbox: OutboxStatus

  init(_ report: SyncReport) {
    uploaded = report.uploaded
    quarantined = report.quarantined
    keptNewer = report.keptNewer
    requests = report.requests
    retries = report.retries
    drained = report.drained
    problem = report.stoppedBy?.description
    outbox = report.status
  }
}

/// `stressmon sync --status --json`.
struct SyncStatusOutput: Encodable {
  var status: OutboxStatus
  var quarantined: [QuarantinedRow]

  func encode(to encoder: any Encoder) throws {
    try status.encode(to: encoder)
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(quarantined, forKey: .quarantinedRows)
  }

  enum Keys: String, CodingKey { case quarantinedRows = "quarantined_rows" }
}
