import Foundation
import Testing

@testable import WebImageHTTPLoader

/// The next hop of a redirect the event loop follows: what it keeps of the request, and when its time is up.
@Suite struct RedirectHopTests {
    private static func request(_ url: String) -> PreparedRequest {
        PreparedRequest(
            url: URL(string: url)!, method: "GET",
            headerLines: ["Accept: image/*", "Authorization: Bearer secret", "Cookie: session=1"],
            timeout: .seconds(10), handlesCookies: false, allowsInvalidCertificates: false, sentValidators: false,
            hostKey: "https://img.example.com:443")
    }

    @Test func secretsStayWithinTheOriginalOrigin() {
        let first = Self.request("https://img.example.com/a.jpg")
        // Same scheme, host and (default) port: everything goes on.
        for url in ["https://img.example.com/b.jpg", "https://IMG.example.com:443/c.jpg"] {
            let next = first.redirected(to: URL(string: url)!)
            #expect(next.headerLines == first.headerLines, "\(url)")
            #expect(next.sendsCredentials, "\(url)")
        }
        // Another scheme (secrets would go out in the clear), port or host: only the harmless headers.
        for url in [
            "http://img.example.com/b.jpg", "https://img.example.com:8443/b.jpg", "https://cdn.example.com/b.jpg",
        ] {
            let next = first.redirected(to: URL(string: url)!)
            #expect(next.headerLines == ["Accept: image/*"], "\(url)")
            #expect(!next.sendsCredentials, "\(url)")
        }
        // Once dropped, credentials stay dropped even back on the first origin.
        let back = first.redirected(to: URL(string: "http://img.example.com/b.jpg")!)
            .redirected(to: URL(string: "https://img.example.com/c.jpg")!)
        #expect(!back.sendsCredentials)
    }

    @Test func laterHopsKeepTheChainsDeadline() {
        var first = Self.request("https://img.example.com/a.jpg")
        #expect(first.redirected(to: URL(string: "https://img.example.com/b.jpg")!).deadline == nil)
        let deadline = ContinuousClock.now + .seconds(3)
        first.deadline = deadline
        let third = first.redirected(to: URL(string: "https://img.example.com/b.jpg")!)
            .redirected(to: URL(string: "https://cdn.example.com/c.jpg")!)
        #expect(third.deadline == deadline)
    }
}
