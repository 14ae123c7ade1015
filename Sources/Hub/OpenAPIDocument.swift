import StressModel
import SyncWire

/// The hub's API as OpenAPI 3.1, served at `/openapi.yaml`. Limits come from `SyncAPI` and the category names
/// from `StressCategory`, so the document cannot drift from them; the test suite validates it
/// (openapi-spec-validator) and runs schemathesis against a live hub, which checks every answer against it.
///
/// Row fields are typed here but their ranges are not constraints: a row outside them is not a malformed
/// request but a row the hub answers `rejected` with a reason (200), as `MeasurementRecord.validationProblem`
/// says. The ranges are in the descriptions.
public enum OpenAPIDocument {
  static let categories = StressCategory.allCases.map(\.rawValue).joined(separator: ", ")
  static let qualities = WindowQuality.allCases.map(\.rawValue).joined(separator: ", ")

  public static let yaml = """
    openapi: 3.1.0
    info:
      title: stressmon-hub
      version: \(HubRoutes.version)
      summary: Receives stress measurements from stressmon devices and serves them to readers, kiosks and the fleet page.
      description: |
        Every answer that is not 2xx carries an ErrorBody. Health data is private: every read needs a reader token
        (of one device or of all), a kiosk page needs its kiosk key, and devices hold write-only tokens.
        A token is sent as `Authorization: Bearer TOKEN`, as the password of HTTP Basic, or as `?key=TOKEN`.
        Reads are rate-limited per token (429 with Retry-After). Protocol notes: docs/sync.md.
    servers:
      - url: http://127.0.0.1:8080
    tags:
      - name: sync
      - name: operations
      - name: pages
    paths:
      /v1/measurements:
        post:
          tags: [sync]
          operationId: ingest
          summary: Upload one batch of a device's rows (idempotent by row id).
          security:
            - deviceToken: []
          requestBody:
            required: true
            description: 'JSON, plain or gzip-compressed (`Content-Encoding: gzip`, as devices send it).'
            content:
              application/json:
                schema: {$ref: '#/components/schemas/IngestRequest'}
          responses:
            '200':
              description: One result per row, in request order.
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/IngestResponse'}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '413': {$ref: '#/components/responses/Error'}
            '415': {$ref: '#/components/responses/Error'}
            '422': {$ref: '#/components/responses/Error'}
        get:
          tags: [sync]
          operationId: feed
          summary: Rows changed after a cursor, oldest change first.
          security:
            - readerToken: []
            - readerKey: []
          parameters:
            - name: device
              in: query
              required: false
              description: Only this device's rows (a one-device reader always reads only its own).
              schema: {$ref: '#/components/schemas/DeviceId'}
            - name: since
              in: query
              required: false
              description: The next_cursor of the previous page; empty or absent for the start.
              schema: {type: string, pattern: '^[0-9]{0,18}$'}
            - name: limit
              in: query
              required: false
              schema: {type: integer, minimum: 1, maximum: \(SyncAPI.maxFeedLimit), default: 100}
          responses:
            '200':
              description: A page of the feed.
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/FeedPage'}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
      /v1/devices/{id}/latest:
        get:
          tags: [sync]
          operationId: latest
          summary: A device's newest window (by window_end), if any.
          security:
            - readerToken: []
            - readerKey: []
          parameters:
            - name: id
              in: path
              required: true
              schema: {$ref: '#/components/schemas/DeviceId'}
          responses:
            '200':
              description: The newest row, or none yet.
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/LatestResponse'}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
      /healthz:
        get:
          tags: [operations]
          operationId: health
          summary: Liveness and storage check (open).
          security: []
          responses:
            '200':
              description: The hub and its database answer.
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/HealthResponse'}
            '503': {$ref: '#/components/responses/Error'}
      /metrics:
        get:
          tags: [operations]
          operationId: metrics
          summary: Prometheus metrics (a reader token of every device).
          security:
            - readerToken: []
            - readerKey: []
          responses:
            '200':
              description: Prometheus text format 0.0.4.
              content:
                text/plain:
                  schema: {type: string}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
      /openapi.yaml:
        get:
          tags: [operations]
          operationId: openapi
          summary: This document (open).
          security: []
          responses:
            '200':
              description: OpenAPI 3.1 in YAML.
              content:
                application/yaml:
                  schema: {type: object}
    \(pagePaths)
    components:
    \(components)
    """
}
