import Sync
import Testing

@Suite("Full-jitter backoff")
struct BackoffPolicyTests {
  let policy = BackoffPolicy(base: 1, cap: 30, maxRetryAfter: 120)

  @Test("ceilings double from the base and stop at the cap")
  func ceilingsDoubleThenCap() {
    // Given the policy, When asking the ceiling of retries 0-7, Then 1, 2, 4, 8, 16, then the 30 s cap
    let ceilings = (0..<8).map { policy.ceiling(attempt: $0) }
    #expect(ceilings == [1, 2, 4, 8, 16, 30, 30, 30])
    #expect(policy.ceiling(attempt: 10_000) == 30)
  }

  @Test("the wait is the random fraction of the ceiling (full jitter)")
  func waitIsRandomFractionOfCeiling() {
    #expect(abs(policy.delay(attempt: 3, unitRandom: 0.25, retryAfter: nil) - 2) < 1e-9)
    #expect(policy.delay(attempt: 3, unitRandom: 0, retryAfter: nil) == 0)
    #expect(abs(policy.delay(attempt: 9, unitRandom: 0.5, retryAfter: nil) - 15) < 1e-9)
  }

  @Test("Retry-After is a floor, bounded by maxRetryAfter")
  func retryAfterIsAFloor() {
    #expect(policy.delay(attempt: 0, unitRandom: 0.5, retryAfter: 7) == 7)
    #expect(abs(policy.delay(attempt: 5, unitRandom: 0.5, retryAfter: 7) - 15) < 1e-9)
    #expect(policy.delay(attempt: 0, unitRandom: 0.5, retryAfter: 86_400) == 120)
    #expect(policy.delay(attempt: 0, unitRandom: 0.5, retryAfter: -3) == 0.5)
  }
}

@Suite("Retry-After parsing")
struct RetryAfterTests {
  // 1994-11-06T08:49:37Z, the RFC 9110 example date.
  let exampleEpoch = 784_111_777.0

  @Test("delay-seconds are read as seconds")
  func delaySeconds() {
    #expect(RetryAfter.seconds(from: "120", now: 0) == 120)
    #expect(RetryAfter.seconds(from: " 5 ", now: 0) == 5)
  }

  @Test("all three HTTP-date forms of RFC 9110 give the same instant")
  func httpDates() {
    #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == exampleEpoch)
    #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == exampleEpoch)
    #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == exampleEpoch)
    #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:50:07 GMT", now: exampleEpoch) == 30)
  }

  @Test("a date in the past means now, garbage means no value")
  func pastAndGarbage() {
    #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: exampleEpoch + 100) == 0)
    #expect(RetryAfter.seconds(from: "soon", now: 0) == nil)
    #expect(RetryAfter.seconds(from: "-5", now: 0) == nil)
    #expect(RetryAfter.seconds(from: "Sun, 32 Nov 1994 08:49:37 GMT", now: 0) == nil)
    #expect(RetryAfter.seconds(from: "", now: 0) == nil)
  }

  @Test("a leap-year date after February is counted right")
  func leapYear() {
    // 2024-03-01T00:00:00Z = 1709251200 (2024 is a leap year).
    #expect(RetryAfter.httpDate("Fri, 01 Mar 2024 00:00:00 GMT") == 1_709_251_200)
  }
}
