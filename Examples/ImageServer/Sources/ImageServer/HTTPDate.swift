import Foundation
import Glibc

/// HTTP dates in the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`), written and read with the C
/// library's calendar arithmetic. A `DateFormatter` made per answer cost about 0.17 ms of ICU setup, 1.8 %
/// of a 2 MP → JPEG request.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` to the whole second below it, in GMT.
    static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The date `text` names (spaces around it ignored); nil unless it is an IMF-fixdate of a real day
    /// (no 30 February). As the `DateFormatter` the server used before, it takes the weekday and month
    /// names in any case and a one-digit day.
    static func date(_ text: String) -> Date? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[5] == "GMT", fields[0].count == 4, fields[0].last == ",",
            weekdays.contains(where: { $0.caseInsensitiveCompare(fields[0].dropLast()) == .orderedSame }),
            let month = months.firstIndex(where: { $0.caseInsensitiveCompare(fields[2]) == .orderedSame }),
            (1...2).contains(fields[1].utf8.count), fields[3].utf8.count == 4, fields[4].utf8.count == 8
        else { return nil }
        let time = Array(fields[4].utf8)
        guard time[2] == UInt8(ascii: ":"), time[5] == UInt8(ascii: ":"), let day = number(fields[1].utf8[...]),
            let year = number(fields[3].utf8[...]), let hour = number(time[0..<2]), let minute = number(time[3..<5]),
            let second = number(time[6..<8]), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(min(second, 59))  // a leap second reads as the second before it
        let seconds = timegm(&parts)
        // timegm carries a day past the month's end into the next month: such a date is not a real one.
        guard day > 0, parts.tm_mday == Int32(day), parts.tm_mon == Int32(month) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The decimal value of ASCII digits; nil if any byte is not one.
    private static func number<Digits: Collection<UInt8>>(_ digits: Digits) -> Int? {
        var value = 0
        for byte in digits {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }
}
