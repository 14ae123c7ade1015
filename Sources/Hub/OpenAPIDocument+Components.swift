import SyncWire

/// The pages and the shared components of `OpenAPIDocument` (indented to sit under `paths:` and `components:`).
extension OpenAPIDocument {
  /// Who may open a kiosk page or panel, its device parameter, and its error answers (the 200 follows).
  private static let kioskAccess = """
          security:
            - kioskKey: []
            - readerToken: []
          parameters:
            - {name: device, in: path, required: true, schema: {$ref: '#/components/schemas/DeviceId'}}
          responses:
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
            '503': {$ref: '#/components/responses/Error'}
    """

  static let pagePaths = """
      /kiosk/{device}:
        get:
          tags: [pages]
          operationId: kioskPage
          summary: A wearer's current category, full screen, refreshing itself (kiosk key or reader token).
    \(kioskAccess)
            '200': {description: The kiosk page., content: {text/html: {schema: {type: string}}}}
      /kiosk/{device}/panel:
        get:
          tags: [pages]
          operationId: kioskPanel
          summary: The part of the kiosk page that changes, which the page fetches every few seconds.
    \(kioskAccess)
            '200': {description: An HTML fragment., content: {text/html: {schema: {type: string}}}}
      /devices:
        get:
          tags: [pages]
          operationId: fleetPage
          summary: A page of the devices the reader may see, sorted, with category, HRV, trend, backlog, quiet flag.
          security:
            - readerToken: []
            - readerBasic: []
            - readerKey: []
          parameters:
            - name: sort
              in: query
              required: false
              schema: {type: string, enum: [\(DeviceOrder.allCases.map(\.rawValue).joined(separator: ", "))]}
            - name: dir
              in: query
              required: false
              description: desc reverses the order's natural direction.
              schema: {type: string, enum: [asc, desc]}
            - {name: page, in: query, required: false, schema: {type: integer, minimum: 1, maximum: 999999999}}
            - name: limit
              in: query
              required: false
              schema: {type: integer, minimum: 1, maximum: \(PageQuery.maxFleetPageSize)}
            - name: part
              in: query
              required: false
              description: live gives the part of the page that updates itself.
              schema: {type: string, enum: [live]}
          responses:
            '200': {description: The fleet page., content: {text/html: {schema: {type: string}}}}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
            '503': {$ref: '#/components/responses/Error'}
      /devices/{id}:
        get:
          tags: [pages]
          operationId: devicePage
          summary: Sends the reader to the day of the device's newest window.
          security:
            - readerToken: []
            - readerBasic: []
            - readerKey: []
          parameters:
            - {name: id, in: path, required: true, schema: {$ref: '#/components/schemas/DeviceId'}}
          responses:
            '303':
              description: See the day page.
              headers:
                Location: {description: The day page., schema: {type: string}}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
      /devices/{id}/days/{day}:
        get:
          tags: [pages]
          operationId: dayPage
          summary: One local day of a device, drawn as `stressmon report` draws it; `DAY.svg` for the picture alone.
          security:
            - readerToken: []
            - readerBasic: []
            - readerKey: []
          parameters:
            - {name: id, in: path, required: true, schema: {$ref: '#/components/schemas/DeviceId'}}
            - name: day
              in: path
              required: true
              description: A local day of the hub's time zone; one that does not exist (2026-02-30) is 404.
              schema: {type: string, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(\\.svg)?$'}
            - name: zoom
              in: query
              required: false
              description: 'day: the whole day; measured (default): the measured span.'
              schema: {type: string, enum: [day, measured]}
            - name: page
              in: query
              required: false
              description: A day of more rows than a page holds is drawn a page at a time.
              schema: {type: integer, minimum: 1, maximum: 999999999}
          responses:
            '200':
              description: The day page, or the picture as SVG.
              content:
                text/html: {schema: {type: string}}
                image/svg+xml: {schema: {type: string}}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '404': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
            '503': {$ref: '#/components/responses/Error'}
      /devices/{id}/weeks/{day}:
        get:
          tags: [pages]
          operationId: weekPage
          summary: Monday to Sunday of the week holding the day, by quarter-hour, drawn with the category coding.
          security:
            - readerToken: []
            - readerBasic: []
            - readerKey: []
          parameters:
            - {name: id, in: path, required: true, schema: {$ref: '#/components/schemas/DeviceId'}}
            - name: day
              in: path
              required: true
              description: Any local day of the week (hub time zone); one that does not exist is 404.
              schema: {type: string, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'}
          responses:
            '200': {description: The week page., content: {text/html: {schema: {type: string}}}}
            '400': {$ref: '#/components/responses/Error'}
            '401': {$ref: '#/components/responses/Error'}
            '403': {$ref: '#/components/responses/Error'}
            '404': {$ref: '#/components/responses/Error'}
            '429': {$ref: '#/components/responses/RateLimited'}
            '503': {$ref: '#/components/responses/Error'}
      /assets/hub.js:
        get:
          tags: [pages]
          operationId: pageScript
          summary: The pages' script (local times, ages, parts that update themselves); open, it holds no data.
          security: []
          responses:
            '200': {description: ES5 JavaScript., content: {text/javascript: {schema: {type: string}}}}
    """

  static let components = """
      securitySchemes:
        deviceToken: {type: http, scheme: bearer, description: 'A device''s write-only token (stressmon-hub token create --device ID).'}
        readerToken: {type: http, scheme: bearer, description: 'A reader token (stressmon-hub token create --reader [--device ID]).'}
        readerBasic: {type: http, scheme: basic, description: 'A reader token as the password (any user name), for browsers.'}
        readerKey: {type: apiKey, in: query, name: key, description: 'A reader token in the URL.'}
        kioskKey: {type: apiKey, in: query, name: key, description: 'A kiosk key (stressmon-hub token create --kiosk --device ID).'}
      responses:
        Error:
          description: The request was refused; the body says why and what to do.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ErrorBody'}
        RateLimited:
          description: The token reads faster than its rate.
          headers:
            Retry-After: {description: Seconds to wait., schema: {type: integer, minimum: 1}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ErrorBody'}
      schemas:
        DeviceId:
          type: string
          description: \(SyncIdentifiers.deviceIdRule).
          pattern: '^(?!\\.{1,2}$)[A-Za-z0-9._-]{1,64}$'
        ErrorBody:
          type: object
          required: [error, message]
          properties:
            error: {type: string, description: 'A stable code, e.g. unauthorized, forbidden_device, payload_too_large.'}
            message: {type: string, description: What is wrong and what to do.}
        IngestRequest:
          type: object
          required: [device_id, records]
          properties:
            device_id: {type: string, description: The token's own device.}
            records:
              type: array
              maxItems: \(SyncAPI.maxBatchRows)
              items: {$ref: '#/components/schemas/MeasurementRecord'}
            outbox_pending:
              type: integer
              minimum: 0
              maximum: \(SyncAPI.maxOutboxPending)
              description: Rows still waiting on the device after this batch (shown on the fleet page).
            outbox_quarantined:
              type: integer
              minimum: 0
              maximum: \(SyncAPI.maxOutboxPending)
              description: Rows the device holds in quarantine, refused earlier (shown on the fleet page).
          description: At most \(SyncAPI.maxBatchRows) rows and \(SyncAPI.maxBodyBytes) bytes (also once gzip is inflated).
        IngestResponse:
          type: object
          required: [results]
          properties:
            results:
              type: array
              items: {$ref: '#/components/schemas/RowResult'}
        RowResult:
          type: object
          required: [id, status]
          properties:
            id: {type: string}
            status:
              type: string
              enum: [accepted, rejected, kept_newer]
              description: >-
                accepted: stored (or already held); rejected: invalid, never stored;
                kept_newer: the hub holds a newer version (modified_at) and kept it.
            reason: {type: string, description: Why rejected, or which version was kept.}
        LatestResponse:
          type: object
          required: [device_id, server_time]
          properties:
            device_id: {type: string}
            record: {$ref: '#/components/schemas/MeasurementRecord'}
            server_time: {type: number, description: The hub's clock (Unix seconds).}
        FeedPage:
          type: object
          required: [rows, next_cursor, has_more]
          properties:
            rows:
              type: array
              items: {$ref: '#/components/schemas/MeasurementRecord'}
            next_cursor: {type: string, description: Pass as since for the next page.}
            has_more: {type: boolean}
        HealthResponse:
          type: object
          required: [status, storage, version]
          properties:
            status: {type: string}
            storage: {type: string, enum: [sqlite, postgresql]}
            version: {type: string}
        MeasurementRecord:
          type: object
          description: |
            One measurement window. A row breaking a rule below is answered `rejected` with the reason (not an
            error): times 2020-2100 and at most \(Int(SyncAPI.maxClockSkew)) s past the hub's clock, window at most a day,
            clock_synchronised true, boot_id 1-64 of A-Z a-z 0-9 . _ : -, confidence 0-1, HR 20-300 bpm, HRV 0-1000 ms,
            baseline HRV 1-1000 ms, resting HR 20-300 bpm, beats at most 5 a second of the window, stress_level 0-100
            matching category, both present exactly when quality is good.
          required: [id, device_id, window_start, window_end, boot_id, monotonic_end, clock_synchronised, confidence,
            baseline_hrv_ms, resting_heart_rate_bpm, baseline_personal, quality, beats, rejected_beats, modified_at]
          properties:
            id: {type: string, description: Lowercase RFC 4122 UUID; the hub upserts by it.}
            device_id: {type: string}
            window_start: {type: number, description: Unix seconds.}
            window_end: {type: number, description: Unix seconds.}
            boot_id: {type: string}
            monotonic_end: {type: number, description: CLOCK_BOOTTIME seconds at the window's end.}
            clock_synchronised: {type: boolean}
            stress_level: {type: [number, 'null']}
            category: {enum: [\(categories), null]}
            confidence: {type: number}
            sdnn_ms: {type: [number, 'null']}
            rmssd_ms: {type: [number, 'null']}
            heart_rate_bpm: {type: [number, 'null']}
            baseline_hrv_ms: {type: number}
            resting_heart_rate_bpm: {type: number}
            baseline_personal: {type: boolean}
            quality: {type: string, enum: [\(qualities)]}
            beats: {type: integer, minimum: -9223372036854775808, maximum: 9223372036854775807}
            rejected_beats: {type: integer, minimum: -9223372036854775808, maximum: 9223372036854775807}
            modified_at: {type: number, description: Last change (Unix seconds); the newer wins a conflict.}
    """
}
