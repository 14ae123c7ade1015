import ArgumentParser
import CommandSupport
import Foundation
import Hub
import Logging
import Platform

struct DeviceCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "device", abstract: "Manage devices.", subcommands: [DeviceDeleteCommand.self])
}

struct DeviceDeleteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete a device: every row of it, its tokens and its upload record (a person who leaves).",
    discussion: """
      Without --yes it only says what would go. The rows are overwritten in the SQLite file (secure_delete); on \
      PostgreSQL run VACUUM afterwards to free their pages. Feed cursors stay valid: sequence numbers are never \
      reused. Example:  stressmon-hub device delete desk-1 --yes
      """
  )

  @OptionGroup var storage: StorageOptions

  @Argument(help: ArgumentHelp("The device id.", valueName: "id"))
  var device: String

  @Flag(name: .long, help: "Really delete (without it: say what would be deleted).")
  var yes = false

  @Flag(name: .long, help: "Print {device, rows, tokens, deleted}.")
  var json = false

  func run() async throws {
    let deletion = try await storage.with { store in try await delete(store) }
    if json {
      let counts = "\"rows\":\(deletion.rows),\"tokens\":\(deletion.tokens)"
      print("{\"deleted\":true,\"device\":\(JSONString.literal(device)),\(counts)}")
    } else {
      print("Deleted device \(device): \(counted(deletion.rows, "row")), \(counted(deletion.tokens, "token"))")
    }
  }

  private func delete(_ store: any HubStorage) async throws -> DeviceDeletion {
    let rows = try await store.count(deviceId: device)
    let tokens = try await store.tokens().filter { $0.deviceId == device }.count
    let known = try await store.devices(notAfter: 0).contains { $0.deviceId == device }
    guard known || rows > 0 || tokens > 0 else {
      throw CLIFailure.usage("the hub knows no device '\(device)'; see the fleet page (/devices) or 'token list'")
    }
    guard yes else {
      throw CLIFailure.usage(
        "this deletes \(counted(rows, "row")) and \(counted(tokens, "token")) of '\(device)' for good; "
          + "run again with --yes")
    }
    return try await store.deleteDevice(device)
  }
}
