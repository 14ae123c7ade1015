import Foundation
import Hummingbird
import Logging
import NIOCore
import SyncWire

/// `POST /v1/measurements` (behind a device token): read and inflate the body within limits, decode, authorise
/// every row, validate rows one by one (times against the hub's clock too), store the valid ones in one transaction. Every
/// refusal happens before storage, so a refused request stores nothing. Decoding and validation run on the
/// request's task; only the storing waits for the database.
struct IngestHandler: Sendable {
  let storage: any HubStorage
  let options: HubOptions
  let metrics: HubMetrics

  /// `device`: the one the request's device token writes (checked by the route group's access middleware).
  func handle(_ request: Request, device: String, logger: Logger) async throws -> Response {
    let body = try await Self.readBody(request)
    let batch = try decode(body)
    guard batch.deviceId == device else {
      throw HubError(
        .forbidden, "forbidden_device",
        "this token belongs to device '\(device)' and cannot write for device '\(batch.deviceId)'")
    }
    if let foreign = batch.records.first(where: { $0.deviceId != device }) {
      throw HubError(
        .forbidden, "forbidden_device",
        "row \(foreign.id) is of device '\(foreign.deviceId)'; this token writes only device '\(device)'")
    }
    guard batch.records.count <= SyncAPI.maxBatchRows else {
      throw HubError(
        .contentTooLarge, "payload_too_large",
        "the batch has \(batch.records.count) rows; send at most \(SyncAPI.maxBatchRows) per request")
    }
    if let pending = batch.outboxPending, !(0...SyncAPI.maxOutboxPending).contains(pending) {
      throw HubError(
        .unprocessableContent, "invalid_batch", "outbox_pending must be within 0-\(SyncAPI.maxOutboxPending)")
    }
    if let quarantined = batch.outboxQuarantined, !(0...SyncAPI.maxOutboxPending).contains(quarantined) {
      throw HubError(
        .unprocessableContent, "invalid_batch", "outbox_quarantined must be within 0-\(SyncAPI.maxOutboxPending)")
    }
    let now = options.now()
    var results: [RowResult] = []
    var valid: [String: MeasurementRecord] = [:]
    var order: [String] = []
    for record in batch.records {
      if let problem = record.validationProblem(now: now) {
        results.append(RowResult(id: record.id, status: .rejected, reason: problem))
        continue
      }
      // The same id twice in one batch: keep the version the conflict rule keeps.
      if let earlier = valid[record.id] {
        valid[record.id] = MeasurementRecord.resolve(existing: earlier, incoming: record)
      } else {
        order.append(record.id)
        valid[record.id] = record
      }
      results.append(RowResult(id: record.id, status: .accepted))
    }
    let outcome = try await storage.upsert(
      deviceId: device, records: order.compactMap { valid[$0] }, receivedAt: now, outboxPending: batch.outboxPending,
      outboxQuarantined: batch.outboxQuarantined)
    results = zip(batch.records, results).map { record, row in
      guard row.status == .accepted else { return row }
      if outcome.foreign.contains(row.id) {
        return RowResult(
          id: row.id, status: .rejected, reason: "id \(row.id) already belongs to another device; give the row a new UUID")
      }
      // Kept by the hub (stored earlier), or by this batch (the same id again with a larger modified_at).
      let inBatch = valid[row.id].map(\.modifiedAt).flatMap { $0 > record.modifiedAt ? $0 : nil }
      if let kept = outcome.keptNewer[row.id] ?? inBatch {
        return RowResult(
          id: row.id, status: .keptNewer,
          reason: "the hub keeps a newer version of this row (modified_at \(kept) > \(record.modifiedAt)); "
            + "this one was not stored")
      }
      return row
    }
    let response = IngestResponse(results: results)
    metrics.rows(
      device: device, accepted: response.acceptedCount, rejected: response.rejectedCount,
      keptNewer: response.keptNewerCount)
    logger.info(
      "ingest",
      metadata: [
        "device": "\(device)", "accepted": "\(response.acceptedCount)", "rejected": "\(response.rejectedCount)",
        "kept_newer": "\(response.keptNewerCount)",
      ])
    return JSONResponse.make(response)
  }

  /// The body, inflated if gzip, never past `SyncAPI.maxBodyBytes` (declared, streamed or inflated).
  static func readBody(_ request: Request) async throws -> ByteBuffer {
    let limit = SyncAPI.maxBodyBytes
    let tooLarge = HubError(.contentTooLarge, "payload_too_large", "the body is larger than the limit of \(limit) bytes")
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw HubError(.contentTooLarge, "payload_too_large", "the body is \(length) bytes; the limit is \(limit)")
    }
    var buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: limit)
    } catch is NIOTooManyBytesError {
      // A chunked body (no Content-Length) that runs past the limit.
      throw tooLarge
    } catch let error as HTTPError where error.status == .contentTooLarge {
      throw tooLarge
    }
    switch request.headers[.contentEncoding]?.lowercased() {
    case nil, "identity":
      return buffer
    case "gzip":
      do {
        return try GzipBody.inflate(buffer, limit: limit)
      } catch .tooLarge {
        throw HubError(.contentTooLarge, "payload_too_large", "the gzip body inflates past the limit of \(limit) bytes")
      } catch .truncated {
        throw HubError(.badRequest, "malformed_body", "the gzip body ends before its CRC and length: it was cut short")
      } catch .trailingBytes(let count) {
        throw HubError(
          .badRequest, "malformed_body",
          "\(count) bytes follow the gzip member (a second member, or garbage); send the batch as one gzip member")
      } catch .corrupt(let reason) {
        throw HubError(
          .badRequest, "malformed_body", "Content-Encoding says gzip but the body is not valid gzip (\(reason))")
      }
    case let other?:
      throw HubError(.unsupportedMediaType, "unsupported_encoding", "Content-Encoding '\(other)' is not supported; use gzip or none")
    }
  }

  private func decode(_ body: ByteBuffer) throws -> IngestRequest {
    do {
      return try JSONDecoder().decode(IngestRequest.self, from: Data(buffer: body))
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
      throw HubError(.badRequest, "malformed_json", "the body is not valid JSON: \(context.debugDescription)")
    } catch let error as DecodingError {
      throw HubError(.unprocessableContent, "invalid_batch", Self.describe(error))
    }
  }

  /// "records[3].stress_level: expected Double" rather than Foundation's long dump.
  static func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined().drop { $0 == "." }.description
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "missing field '\(key.stringValue)' at \(path(context.codingPath).isEmpty ? "top level" : path(context.codingPath))"
    case .typeMismatch(let type, let context):
      return "\(path(context.codingPath)): expected \(type)"
    case .valueNotFound(let type, let context):
      return "\(path(context.codingPath)): expected \(type), found null"
    case .dataCorrupted(let context):
      return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return "the body does not match the ingest schema"
    }
  }
}

extension Data {
  init(buffer: ByteBuffer) {
    self = buffer.withUnsafeReadableBytes { Data($0) }
  }
}
