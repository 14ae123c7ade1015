#if hasFeature(Embedded)
/// Embedded Swift has no `Codable` (encoders are existentials). This module's value types declare `Codable` for the
/// Linux build's JSON and wire formats; under Embedded this empty, module-internal protocol stands in for it, so
/// that the declarations need no `#if` of their own (scripts/build-embedded, docs/embedded.md).
protocol Codable {}
#endif
