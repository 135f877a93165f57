import Testing
import WebImage

@testable import ImageServer

/// The imgproxy status codes the server answers for the framework's errors, loading failures included:
/// the HTTP loader's detail sits inside `ImageError.loadingFailed`, and the mapping reads it there.
@Suite struct ServerFailureTests {
    @Test func anOriginStatusPassesThroughOrBecomesABadGateway() {
        #expect(ServerFailure(.invalidStatusCode(404)).code == 404)
        #expect(ServerFailure(.invalidStatusCode(503)).code == 502)
        #expect(ServerFailure(.timeout).code == 504)
    }

    @Test func aConnectionOrTLSFailureIsAnUnreachableSource() {
        #expect(ServerFailure(.httpLoader(.network(curlCode: 7), message: "Could not connect")).code == 404)
        #expect(ServerFailure(.httpLoader(.tls(.hostnameMismatch))).code == 404)
        #expect(ServerFailure(.httpLoader(.headerTooLarge(limit: 1024))).code == 404)
        #expect(ServerFailure(.loadingFailed(LoadingFailure(message: "backend down", isRetryable: true))).code == 404)
    }

    @Test func aDecompressionBombIsASourceOverTheLimits() {
        let failure = ServerFailure(.httpLoader(.decompressionRatioExceeded(limit: 100)))
        #expect(failure.code == 422)
        #expect(failure.message.contains("limits"))
    }
}
