import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore

@testable import WebImageHTTPLoader

/// The SSRF guard refuses non-public addresses at connect time, after DNS.
@Suite(.timeLimit(.minutes(1)))
struct AddressGuardTests {
    let server: LoopbackHTTPServer

    init() throws { server = try FaultServer.make() }

    private func refusal(_ url: URL) async -> ImageError? {
        let loader = makeLoader { $0.refusesPrivateAddresses = true }
        let events = loader.events()
        let error = failure(await load(loader, url))
        await waitUntilIdle(loader, events: events)
        #expect(loader.liveTransferCount == 0)
        return error
    }

    @Test func theGuardRefusesALoopbackAddress() async {
        let error = await refusal(server.url("/ok.pgm"))
        guard case .requestRefused(let reason) = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(server.totalRequestCount == 0)
    }

    @Test func theGuardChecksTheResolvedAddressNotTheName() async {
        // "localhost" looks like a name; it resolves to loopback, which is what the guard sees.
        let url = URL(string: "http://localhost:\(server.port)/ok.pgm")!
        let error = await refusal(url)
        guard case .requestRefused = error else {
            Issue.record("expected .requestRefused, got \(String(describing: error))"); return
        }
        #expect(server.totalRequestCount == 0)
    }

    @Test func withoutTheGuardLoopbackIsAllowed() async throws {
        let loader = makeLoader()
        _ = try await load(loader, server.url("/ok.pgm")).get()
        #expect(server.totalRequestCount == 1)
    }

    @Test(
        arguments: [
            ([127, 0, 0, 1], false), ([10, 1, 2, 3], false), ([172, 16, 0, 1], false), ([172, 31, 255, 255], false),
            ([192, 168, 1, 1], false), ([169, 254, 169, 254], false), ([0, 0, 0, 0], false), ([100, 64, 0, 1], false),
            ([224, 0, 0, 1], false), ([255, 255, 255, 255], false),
            ([8, 8, 8, 8], true), ([172, 32, 0, 1], true), ([93, 184, 216, 34], true), ([100, 128, 0, 1], true),
        ] as [([UInt8], Bool)])
    func ipv4AddressesAreClassified(_ address: [UInt8], _ isPublic: Bool) {
        #expect(AddressPolicy.isPublicIPv4(address) == isPublic)
    }

    @Test(
        arguments: [
            ([10, 1, 2, 3], true), ([172, 16, 0, 1], true), ([172, 31, 255, 255], true), ([192, 168, 1, 1], true),
            ([100, 64, 0, 1], true),
            ([127, 0, 0, 1], false), ([169, 254, 169, 254], false), ([0, 0, 0, 0], false), ([224, 0, 0, 1], false),
            ([172, 32, 0, 1], false), ([8, 8, 8, 8], false),
        ] as [([UInt8], Bool)])
    func privateNetworksAreToldFromLoopbackAndLinkLocal(_ address: [UInt8], _ isPrivateNetwork: Bool) {
        #expect(AddressPolicy.isPrivateNetworkIPv4(address) == isPrivateNetwork)
        func mapped(_ v4: [UInt8]) -> [UInt8] { Array(repeating: 0, count: 10) + [0xFF, 0xFF] + v4 }
        #expect(AddressPolicy.isPrivateNetworkIPv6(mapped(address)) == isPrivateNetwork)
    }

    @Test func allowingPrivateNetworksStillRefusesLoopback() async throws {
        let server = try FaultServer.make()
        let loader = makeLoader {
            $0.refusesPrivateAddresses = true
            $0.allowsPrivateNetworks = true
        }
        let result = await load(loader, server.url("/ok.pgm"))
        guard case .requestRefused(let reason) = failure(result) else {
            Issue.record("expected .requestRefused, got \(result)")
            return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(server.totalRequestCount == 0)
    }

    /// imgproxy's VerifySourceNetwork cases (security/source_test.go): each kind of address is let through
    /// by its own setting only; public addresses always.
    @Test(
        arguments: [
            ([127, 0, 0, 1], "loopback"), ([127, 1, 2, 3], "loopback"), ([0, 0, 0, 0], "loopback"),
            ([169, 254, 0, 1], "linkLocal"), ([169, 254, 169, 254], "linkLocal"), ([224, 0, 0, 251], "linkLocal"),
            ([192, 168, 0, 1], "private"), ([10, 0, 0, 1], "private"),
            ([8, 8, 8, 8], "public"),
        ] as [([UInt8], String)])
    func eachKindOfAddressHasItsOwnSetting(_ address: [UInt8], _ kind: String) {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: address) }
        let judged = withUnsafeBytes(of: socketAddress) { AddressPolicy.judge(family: AF_INET, $0.baseAddress!) }
        func allowed(_ change: (inout HTTPLoaderConfiguration) -> Void) -> Bool {
            var configuration = HTTPLoaderConfiguration()
            change(&configuration)
            return judged.isAllowed(except: AddressPolicy.Exceptions(configuration))
        }
        #expect(allowed { _ in } == (kind == "public"))
        #expect(allowed { $0.allowsLoopbackAddresses = true } == (kind == "public" || kind == "loopback"))
        #expect(allowed { $0.allowsLinkLocalAddresses = true } == (kind == "public" || kind == "linkLocal"))
        #expect(allowed { $0.allowsPrivateNetworks = true } == (kind == "public" || kind == "private"))
    }

    @Test func ipv6LoopbackAndLinkLocalAreClassified() {
        func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        #expect(AddressPolicy.isLoopbackIPv6(v6([0, 0, 0, 0, 0, 0, 0, 1])))  // ::1
        #expect(AddressPolicy.isLoopbackIPv6(v6([0, 0, 0, 0, 0, 0, 0, 0])))  // ::
        #expect(AddressPolicy.isLoopbackIPv6(v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 2])))  // ::ffff:127.0.0.2
        #expect(!AddressPolicy.isLoopbackIPv6(v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])))
        #expect(AddressPolicy.isLinkLocalIPv6(v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])))  // fe80::1
        #expect(AddressPolicy.isLinkLocalIPv6(v6([0xFEBF, 0, 0, 0, 0, 0, 0, 1])))  // top of fe80::/10
        #expect(AddressPolicy.isLinkLocalIPv6(v6([0xFF02, 0, 0, 0, 0, 0, 0, 1])))  // ff02::1
        #expect(AddressPolicy.isLinkLocalIPv6(v6([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 1])))  // ::ffff:169.254.0.1
        #expect(!AddressPolicy.isLinkLocalIPv6(v6([0xFEC0, 0, 0, 0, 0, 0, 0, 1])))
        #expect(!AddressPolicy.isLinkLocalIPv6(v6([0xFD00, 0, 0, 0, 0, 0, 0, 1])))
    }

    @Test func ipv6AddressesAreClassified() {
        func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        #expect(!AddressPolicy.isPublicIPv6(v6([0, 0, 0, 0, 0, 0, 0, 0])))  // ::
        #expect(!AddressPolicy.isPublicIPv6(v6([0, 0, 0, 0, 0, 0, 0, 1])))  // ::1
        #expect(!AddressPolicy.isPublicIPv6(v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])))  // link-local
        #expect(!AddressPolicy.isPublicIPv6(v6([0xFD00, 0, 0, 0, 0, 0, 0, 1])))  // unique local
        #expect(!AddressPolicy.isPublicIPv6(v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 1])))  // ::ffff:127.0.0.1
        #expect(AddressPolicy.isPublicIPv6(v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808])))  // ::ffff:8.8.8.8
        #expect(AddressPolicy.isPublicIPv6(v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111])))
        #expect(AddressPolicy.isPrivateNetworkIPv6(v6([0xFD00, 0, 0, 0, 0, 0, 0, 1])))  // unique local
        #expect(!AddressPolicy.isPrivateNetworkIPv6(v6([0, 0, 0, 0, 0, 0, 0, 1])))  // ::1
        #expect(!AddressPolicy.isPrivateNetworkIPv6(v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])))  // link-local
    }
}
