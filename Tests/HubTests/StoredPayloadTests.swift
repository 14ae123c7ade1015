import Foundation
@testable import Hub
import StressModel
import SyncTestSupport
import SyncWire
import Testing

/// The hub's hand-written row JSON against `JSONEncoder`, the one definition of the wire form.
@Suite("Stored row JSON")
struct StoredPayloadTests {
  /// Real-recording rows, plus rows with every optional field absent, every category and quality, and strings
  /// that need escaping (which validation keeps out of the hub, but the writer must not depend on that).
  static func rows() throws -> [MeasurementRecord] {
    var rows = try MeasurementFixtures.records(device: "desk-1", count: 300)
    var bare = rows[0]
    (bare.stressLevel, bare.category, bare.sdnnMs, bare.rmssdMs, bare.heartRateBpm) = (nil, nil, nil, nil, nil)
    bare.quality = .noContact
    rows.append(bare)
    for quality in WindowQuality.allCases {
      var row = bare
      row.quality = quality
      rows.append(row)
    }
    var odd = rows[1]
    odd.bootId = "quote\" back\\slash\nnew line \u{1} é 😀"
    odd.windowStart = 1e-05
    odd.monotonicEnd = 1e21
    odd.beats = Int.max
    rows.append(odd)
    return rows
  }

  @Test("every row decodes back equal, with the same keys JSONEncoder writes")
  func matchesTheCodableForm() throws {
    for row in try Self.rows() {
      let text = try StoredPayload.text(row)
      #expect(try JSONDecoder().decode(MeasurementRecord.self, from: Data(text.utf8)) == row)
      let ours = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
      let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(row)) as? [String: Any]
      #expect(Set(ours?.keys ?? [:].keys) == Set(theirs?.keys ?? [:].keys), "\(text)")
    }
  }

  @Test("the same row gives the same text; a value JSON cannot hold is refused")
  func stableAndStrict() throws {
    let row = try Self.rows()[5]
    #expect(try StoredPayload.text(row) == StoredPayload.text(row))
    var broken = row
    broken.confidence = .nan
    #expect(throws: EncodingError.self) { try StoredPayload.text(broken) }
  }
}
