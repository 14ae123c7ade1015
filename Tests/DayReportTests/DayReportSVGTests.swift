import DayReport
import Foundation
import StressModel
import SyncWire
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("The day report as SVG")
struct DayReportSVGTests {
  @Test("A well-formed SVG image with a title, a description, labelled charts and every category named")
  func structure() throws {
    let report = DayReport(records: try DayFixture.records(), day: DayFixture.day)
    let svg = try SVGElements(report.svg())
    #expect(svg.root["role"] == "img")
    #expect(svg.root["aria-labelledby"] == "report-title report-desc")
    #expect(svg.texts(of: "title").first == "Stress on Tuesday 2024-03-12")
    let description = try #require(svg.texts(of: "desc").first)
    #expect(description.contains(report.summary.sentence))
    let groups = svg.elements(named: "g").compactMap { $0["aria-label"] }
    #expect(groups.contains("Stress level 0-100 over the four category bands"))
    #expect(groups.contains("Heart-rate variability, SDNN in milliseconds"))
    #expect(groups.contains("Heart rate in beats per minute"))
    let texts = svg.texts(of: "text")
    for category in StressCategory.allCases {
      #expect(texts.contains(category.displayName), "\(category.displayName) not written on the picture")
      // Each band says in words which pattern and colour it is
      #expect(svg.texts(of: "title").contains { $0.hasPrefix("\(category.displayName) band") &&
        $0.contains(category.pattern.description) && $0.contains(category.colourName) })
    }
    // Unscored windows and gaps are named in their tooltips
    let titles = svg.texts(of: "title")
    #expect(titles.contains { $0.hasPrefix("poor signal 09:15-09:18") })
    #expect(titles.contains { $0.hasPrefix("no contact 19:10-19:15") })
    #expect(titles.contains { $0.hasPrefix("no data 08:55-09:05") })
    // One pattern tile per category and one per hatching
    #expect(svg.elements(named: "pattern").count == 6)
  }

  @Test("No line segment spans a gap or an unscored window, and each run of scored windows is one line per chart")
  func linesStopAtGaps() throws {
    let records = try DayFixture.records()
    let report = DayReport(records: records, day: DayFixture.day)
    let svg = try SVGElements(report.svg())
    let lines = svg.elements(named: "polyline").map { element in
      (element["points"] ?? "").split(separator: " ").map { pair in
        Double(pair.split(separator: ",")[0]) ?? .nan
      }
    }
    // Runs by construction: morning split by the gap and the poor signal (3), two short sessions (2),
    // evening split by the no contact (2): 7, on each of the three charts
    #expect(lines.count == 7 * 3)
    // Forbidden: any time with no scored window, i.e. the gaps and the unscored windows, as x ranges
    let time = report.geometry.time
    var forbidden = report.summary.gaps.map { (time.x($0.start), time.x($0.end)) }
    for record in records where record.quality != .good {
      forbidden.append((time.x(record.windowEnd - DayFixture.stepSeconds), time.x(record.windowEnd)))
    }
    for xs in lines {
      #expect(!xs.contains { $0.isNaN })
      for (a, b) in zip(xs, xs.dropFirst()) {
        for (start, end) in forbidden {
          #expect(!(a < end && b > start), "segment \(a)-\(b) crosses \(start)-\(end)")
        }
      }
    }
  }

  @Test("Text is escaped for XML")
  func escaping() throws {
    let drawing = ReportDrawing(
      width: 10, height: 10, title: "a < b & \"c\"", description: "d > e", background: ReportStyle.paper,
      groups: [ReportGroup(label: "<g>", items: [])])
    let svg = try SVGElements(SVGWriter.write(drawing))
    #expect(svg.texts(of: "title") == ["a < b & \"c\""])
    #expect(svg.elements(named: "g").first?["aria-label"] == "<g>")
  }
}

/// The SVG parsed with Foundation's XML parser: elements with their attributes and text, in document order.
/// Parsing fails on anything that is not well-formed XML.
final class SVGElements: NSObject, XMLParserDelegate {
  struct Element {
    var name: String
    var attributes: [String: String]
    var text = ""
    subscript(key: String) -> String? { attributes[key] }
  }

  private(set) var all: [Element] = []
  private var open: [Int] = []

  init(_ text: String) throws {
    super.init()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = self
    guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
  }

  var root: Element { all[0] }
  func elements(named name: String) -> [Element] { all.filter { $0.name == name } }
  func texts(of name: String) -> [String] { elements(named: name).map(\.text) }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    all.append(Element(name: name, attributes: attributes))
    open.append(all.count - 1)
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    if let index = open.last { all[index].text += string }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    open.removeLast()
  }
}
