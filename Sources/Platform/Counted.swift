/// A count with its noun in the right number: "1 device", "3 devices", "0 rows", "1 day", "2 batches".
/// `plural` defaults to the noun with an "s".
public func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
  "\(count) \(inflected(noun, for: count, plural: plural))"
}

/// `noun` as it goes after `count`: singular for 1, else `plural` (by default `noun` + "s").
public func inflected(_ noun: String, for count: Int, plural: String? = nil) -> String {
  count == 1 ? noun : plural ?? noun + "s"
}
