import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// HTTP-dates (RFC 9110 section 5.6.7) as `Retry-After`, `Date` and `Last-Modified` carry them.
///
/// Recipients must accept all three historic forms, and all three name the day before the year:
///   - IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`
///   - RFC 850     `Sunday, 06-Nov-94 08:49:37 GMT`
///   - asctime     `Sun Nov  6 08:49:37 1994`
/// so one tokenizer reads them all: the time is the token with colons, the month the token with a
/// month name, and of the other numbers the first is the day and the second the year. Written by hand
/// because `DateFormatter` is neither cheap nor safe to share across threads here.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// RFC 850's two-digit years: RFC 9110 reads one that looks more than 50 years ahead as the past
    /// century; against today's calendar that splits at 70 (1970...2069).
    private static let twoDigitYearPivot = 70

    /// The moment `text` names, or nil when it is not an HTTP-date in any of the three forms.
    static func parse(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" })
        var day: Int?, year: Int?, month: Int?
        var clock: [Int]?
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                clock = parts
            } else if let number = Int(token) {
                if day == nil { day = number } else if year == nil { year = number } else { return nil }
            } else if let index = months.firstIndex(of: token.prefix(3).lowercased()), token.count == 3 {
                month = index
            }
        }
        guard let day, var year, let month, let clock, (1...31).contains(day),
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        if year < 100 { year += year < twoDigitYearPivot ? 2000 : 1900 }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(clock[0])
        fields.tm_min = Int32(clock[1])
        fields.tm_sec = Int32(clock[2])
        let seconds = timegm(&fields)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `Retry-After` as the time from `now`: delta-seconds as given, an HTTP-date as the time until it
    /// (zero for a date already past). Nil when the value is neither.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A delta too long for an Int64 is "a very long time": the largest value says so.
            return .seconds(Int64(trimmed) ?? Int64.max)
        }
        guard let date = parse(trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
