import Foundation
import Testing

@testable import ImageServer

/// `HTTPDate` against Foundation's `DateFormatter` with the IMF-fixdate pattern, which the server used
/// before: the same strings out, the same dates back, and refusals of what it refused (ICU also takes a few
/// odd widths, such as a three-digit day, that no HTTP date has).
@Suite struct HTTPDateTests {
    static let reference: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    @Test func writesWhatDateFormatterWrote() {
        #expect(HTTPDate.string(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // Every day of four years around a leap year, at varying times of day, and some far dates.
        var samples = (0..<(4 * 366)).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400.7) }
        samples += [0, 951_782_400, 4_102_444_799.9, 253_402_300_799, -86_400].map { Date(timeIntervalSince1970: $0) }
        for date in samples {
            #expect(HTTPDate.string(date) == Self.reference.string(from: date), "\(date)")
        }
    }

    @Test func readsBackWhatItWrites() {
        for seconds in stride(from: 0.0, to: 4_000_000_000, by: 37_123_457) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(HTTPDate.date(HTTPDate.string(date)) == date)
        }
        #expect(HTTPDate.date("  Sun, 06 Nov 1994 08:49:37 GMT ") == Date(timeIntervalSince1970: 784_111_777))
        // What the DateFormatter also took: a one-digit day, names in any case.
        for text in ["Sun, 6 Nov 1994 08:49:37 GMT", "SUN, 06 nov 1994 08:49:37 GMT"] {
            #expect(HTTPDate.date(text) == Date(timeIntervalSince1970: 784_111_777))
            #expect(Self.reference.date(from: text) == Date(timeIntervalSince1970: 784_111_777))
        }
        #expect(
            HTTPDate.date("Tue, 29 Feb 2000 00:00:00 GMT") == Self.reference.date(from: "Tue, 29 Feb 2000 00:00:00 GMT")
        )
    }

    @Test func refusesWhatIsNotAnIMFFixdate() {
        for text in [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 31 Nov 1994 08:49:37 GMT",
            "Sun, 30 Feb 2001 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nov 1994 08:49:37 GMT;",
        ] {
            #expect(HTTPDate.date(text) == nil, "\(text)")
            #expect(Self.reference.date(from: text.trimmingCharacters(in: .whitespaces)) == nil, "reference: \(text)")
        }
    }
}
