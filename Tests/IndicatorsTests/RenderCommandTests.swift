import Foundation
import Indicators
import Raster
import TestSupport
import Testing

@Suite("stressmon render")
struct RenderCommandTests {
  @Test("Writes the panel's picture as a PNG that decodes to the layout's frame, and describes it in JSON",
        arguments: EPaperModel.all)
  func png(model: EPaperModel) throws {
    let directory = try TemporaryDirectory("render")
    defer { directory.remove() }
    let out = directory.file("panel.png")
    let result = try CLIRunner.run([
      "render", "--category", "moderate", "--level", "62", "--hrv", "31", "--hr", "84", "--time", "09:41",
      "--panel", model.name, "--out", out, "--json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try CLIRunner.json(result)
    #expect(json["width"] as? Int == model.layoutWidth && json["height"] as? Int == model.layoutHeight)
    #expect(json["pattern"] as? String == "dots")
    let expected = PanelLayout.render(
      PanelContent(category: .moderate, level: 62, hrvMs: 31, heartRateBpm: 84, measuredAt: ClockTime(hour: 9, minute: 41)),
      width: model.layoutWidth, height: model.layoutHeight).image
    guard PNGDecoder.isAvailable else { return }  // the JSON above is checked without python3 too
    let png = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
    // PNG grey 0 is black, which the bitmap stores as a set bit (ink).
    #expect(Bitmap(width: png.width, height: png.height, packedRows: png.pixels.map { ~$0 }) == expected)
  }

  @Test("PBM output, a default level inside the category, status items and scaling")
  func pbm() throws {
    let directory = try TemporaryDirectory("render")
    defer { directory.remove() }
    let out = directory.file("panel.pbm")
    let result = try CLIRunner.run([
      "render", "--category", "high", "--panel", "waveshare-1in54-v2", "--out", out, "--scale", "2",
      "--status", "learning:12/30", "--status", "offline:4", "--json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try CLIRunner.json(result)
    #expect(json["level"] as? Int == 87 && json["width"] as? Int == 400)
    let (image, _) = try PBMCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
    #expect(image.width == 400 && image.height == 400)
  }

  @Test("Bad input: one line on stderr naming the flag, exit 64", arguments: [
    (["--category", "calm", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "--category"),
    (["--category", "mild", "--panel", "lcd", "--out", "x.png"], "--panel"),
    (["--category", "mild", "--panel", "waveshare-2in13-v4", "--out", "x.jpg"], "--out"),
    (["--category", "mild", "--level", "80", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "--level"),
    (["--category", "mild", "--hrv", "abc", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "--hrv"),
    (["--category", "mild", "--time", "25:00", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "--time"),
    (["--category", "mild", "--status", "offline", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "--status"),
  ])
  func badInput(arguments: [String], flag: String) throws {
    let result = try CLIRunner.run(["render"] + arguments)
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(flag))
  }

  @Test("An output directory that does not exist: exit 73 with the path and the reason")
  func cannotCreate() throws {
    let result = try CLIRunner.run([
      "render", "--category", "mild", "--panel", "waveshare-2in13-v4", "--out", "/nonexistent-dir/x.png",
    ])
    #expect(result.status == 73)
    #expect(result.stderr.contains("/nonexistent-dir/x.png") && result.stderr.contains("No such file"))
  }
}
