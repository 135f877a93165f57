import Testing

@testable import WebImageRedisCache

@Suite("Redis durations become whole milliseconds")
struct RedisDurationTests {
    @Test func fractionsRoundUpAndNothingPositiveBecomesZero() {
        #expect(Duration.milliseconds(250).roundedUpMilliseconds == 250)
        #expect(Duration.microseconds(1).roundedUpMilliseconds == 1)
        #expect(Duration.microseconds(1500).roundedUpMilliseconds == 2)
        #expect(Duration.seconds(7 * 24 * 3600).roundedUpMilliseconds == 604_800_000)
        #expect(Duration.zero.roundedUpMilliseconds == 0)
        #expect(Duration.milliseconds(-5).roundedUpMilliseconds == 0)
        #expect(Duration.seconds(Int64.max).roundedUpMilliseconds == Int.max)
    }

    @Test func theDefaultsAreTheDocumentedDurations() throws {
        let configuration = try RedisCacheConfiguration(url: "redis://127.0.0.1")
        #expect(configuration.defaultTTL == .seconds(604_800))
        #expect(configuration.connectTimeout == .milliseconds(250))
        #expect(configuration.readTimeout == .milliseconds(250))
        #expect(configuration.writeTimeout == .milliseconds(250))
        #expect(configuration.poolWaitTimeout == .milliseconds(250))
        #expect(configuration.reconnectBackoffInitial == .milliseconds(100))
        #expect(configuration.reconnectBackoffMax == .seconds(5))
    }
}
