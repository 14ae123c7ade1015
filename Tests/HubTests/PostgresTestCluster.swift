import Foundation

/// A throwaway PostgreSQL cluster from Debian's postgresql package (initdb + pg_ctl), on loopback, trust auth,
/// fsync off, deleted by `stop()`. `start()` returns nil with the reason when PostgreSQL is not installed.
final class PostgresTestCluster: @unchecked Sendable {
  let directory: String
  let port: Int
  private let binaries: String

  var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

  private init(directory: String, port: Int, binaries: String) {
    self.directory = directory
    self.port = port
    self.binaries = binaries
  }

  enum Availability {
    case available(PostgresTestCluster)
    case unavailable(String)
  }

  /// With `ssl` (a certificate and key in PEM), the server offers TLS with them.
  static func start(ssl: (certificate: String, key: String)? = nil) -> Availability {
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
    guard let version = versions.sorted().last,
      FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb")
    else {
      return .unavailable("PostgreSQL server binaries not found under /usr/lib/postgresql (scripts/setup --test installs them)")
    }
    let binaries = "/usr/lib/postgresql/\(version)/bin"
    let directory = NSTemporaryDirectory() + "stressmon-pg-\(UInt32.random(in: 0...UInt32.max))"
    let port = Int.random(in: 20_000...40_000)
    let cluster = PostgresTestCluster(directory: directory, port: port, binaries: binaries)
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      var sslOptions = ""
      if let ssl {
        // PostgreSQL wants the key owned by its user and private to it.
        try FileManager.default.copyItem(atPath: ssl.certificate, toPath: directory + "/server.pem")
        try FileManager.default.copyItem(atPath: ssl.key, toPath: directory + "/server.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/server.key")
        sslOptions = " -c ssl=on -c ssl_cert_file=\(directory)/server.pem -c ssl_key_file=\(directory)/server.key"
      }
      if getuid() == 0 { try run("/bin/chown", ["-R", "postgres:postgres", directory], asPostgres: false) }
      try cluster.run("initdb", ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
      try cluster.run(
        "pg_ctl",
        [
          "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "30",
          "-o",
          "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off\(sslOptions)",
          "start",
        ])
      return .available(cluster)
    } catch {
      cluster.stop()
      return .unavailable("could not start a throwaway PostgreSQL cluster: \(error)")
    }
  }

  func stop() {
    try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func run(_ tool: String, _ arguments: [String]) throws {
    try Self.run(binaries + "/" + tool, arguments, asPostgres: getuid() == 0)
  }

  /// PostgreSQL refuses to run as root: as root, tools run as the `postgres` user through runuser.
  /// posix_spawn + waitpid rather than Foundation's Process: Process waits for a socket its child inherits,
  /// and the server pg_ctl leaves running would hold that socket open forever.
  private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws {
    let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
    let logPath = NSTemporaryDirectory() + "stressmon-pg-tool-\(UInt32.random(in: 0...UInt32.max)).log"
    defer { try? FileManager.default.removeItem(atPath: logPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else (Foundation's Process closes the rest; posix_spawn does not): NIO opens its sockets without
    // close-on-exec, and the server would keep a test hub's listening socket, accepting nothing, for as long as it
    // runs, so that the hub cannot bind its port again after a stop.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
      posix_spawn_file_actions_addclose(&actions, descriptor)  // one closed meanwhile is skipped, not an error
    }
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw ClusterError(message: "cannot start \(argv[0]): errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitCode = (status >> 8) & 0xFF
    guard status & 0x7F == 0, exitCode == 0 else {
      let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
      throw ClusterError(message: "\((executable as NSString).lastPathComponent) exited \(exitCode): \(text.suffix(400))")
    }
  }

  struct ClusterError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }
}
