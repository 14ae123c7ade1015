/// A count with its noun in the right number: "1 device", "3 devices", "0 rows", "1 day", "2 batches".
/// `plural` defaults to the noun with an "s".
public func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
  "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
