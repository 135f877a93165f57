internal import CCurl
import Foundation
import WebImageCore

/// One attempt of one transfer on the event thread: its easy handle and everything libcurl's
/// callbacks fill in (head, body, progressive decoder). Never leaves the event thread.
final class TransferIO {
    let id: UInt64
    let request: PreparedRequest
    let attempt: Int
    /// Unique per attempt and hop, so a deadline set for one can never hit another that reuses its id.
    let serial: UInt64
    /// The address the target host is pinned to after the SSRF guard checked it (transfers through a
    /// proxy with the guard on), or nil. Pinned transfers follow redirects through the event loop,
    /// one checked hop at a time, not inside libcurl.
    let pinnedAddress: String?
    /// Whether the event loop follows this transfer's redirects, one hop at a time, rather than libcurl:
    /// pinned transfers, those whose proxy from the environment depends on the URL's scheme (each hop
    /// takes its own), and every transfer when the configuration has a redirect policy
    /// (``HTTPLoaderConfiguration/allowsRedirect``), which judges each target before it is connected to.
    let loaderFollowsRedirects: Bool
    /// Redirects already followed by the event loop before this hop.
    let redirectsBefore: Int
    /// When this hop's transfer was set up: a chain's first hop starts its deadline here.
    let started: ContinuousClock.Instant
    let easy: UnsafeMutableRawPointer
    private let scheduler: TransferScheduler
    private let validator: ResponseValidator
    private var configuration: HTTPLoaderConfiguration { validator.configuration }
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The CURLOPT_CONNECT_TO entry of a pinned transfer; must live as long as the handle.
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its error text here; it must live as long as the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    let body = BodyBuffer()
    private var headerFields: [String: String] = [:]
    private var headerBytes = 0
    /// Whether a complete response head (any status) has arrived: the response-head timeout is met.
    private(set) var hasResponseHead = false
    private(set) var response: ImageResponse?
    private var expectedBytes: Int64?
    /// The error a callback stopped the transfer with (its short return count aborts it).
    private(set) var failure: ImageError?
    /// The address the SSRF guard refused, if it did.
    var refusedAddress: String?
    /// Set at the response head when its body is decoded (gzip, deflate, br, zstd).
    private var decompressionGuard: DecompressionGuard?
    private var decoder: (any IncrementalImageDecoder)?
    private var decoderFailed = false
    /// The bytes of an earlier attempt this one asks the rest for (`Range` and `If-Range`); nil once
    /// the server answered with the whole body instead.
    private var resumingFrom: ResumableData?
    /// The server answered our range request with a range we did not ask for (or 416): this attempt
    /// failed, and the next one starts over without `Range`.
    private(set) var rangeRefused = false

    private let handles: EasyHandlePool
    /// The sockets of the loader's connections, for the check before each request.
    let connections: ConnectionRegistry
    /// Which connections this attempt may use.
    enum ConnectionReuse: Equatable {
        /// A pooled one, after the check before its request.
        case pooled
        /// New ones only (CURLOPT_FRESH_CONNECT): it runs again because the check before its request
        /// refused the pooled connection libcurl had picked.
        case freshOnly
        /// New ones only, closed after (CURLOPT_FORBID_REUSE too): its host sent bytes no request
        /// asked for, so none of its connections goes back to the pool.
        case never
    }
    let reuse: ConnectionReuse
    /// The connection this hop's request goes on, as the check before it found it.
    private var connection: ConnectionRegistry.Handle?
    /// Why the check before this hop's request refused the pooled connection (and aborted the transfer).
    private(set) var refusedConnection: ConnectionRegistry.Refusal?
    /// Whether the opensocket callback judges each address with the SSRF guard (direct connections
    /// with the guard on; a pinned transfer's target was judged before it started).
    private(set) var checksConnectedAddresses = false

    init?(
        id: UInt64, request: PreparedRequest, attempt: Int, serial: UInt64, pinnedAddress: String? = nil,
        redirectsBefore: Int = 0, reuse: ConnectionReuse = .pooled, scheduler: TransferScheduler,
        validator: ResponseValidator, handles: EasyHandlePool, connections: ConnectionRegistry,
        share: UnsafeMutableRawPointer
    ) {
        guard let easy = handles.take() else { return nil }
        self.handles = handles
        self.connections = connections
        self.reuse = reuse
        self.id = id
        self.request = request
        self.attempt = attempt
        self.serial = serial
        self.pinnedAddress = pinnedAddress
        loaderFollowsRedirects =
            pinnedAddress != nil || validator.environmentProxy?.differsByScheme == true
            || validator.configuration.allowsRedirect != nil
        self.redirectsBefore = redirectsBefore
        started = .now
        self.easy = easy
        self.scheduler = scheduler
        self.validator = validator
        errorBuffer[0] = 0
        if request.isResumable { resumingFrom = scheduler.resumableData.take(for: request.key) }
        configure(share: share)
    }

    /// Ends the transfer as timed out (the event loop's response-head deadline passed).
    func markTimedOut() { failure = .timeout }

    /// The event loop removes the handle from the multi handle before dropping the transfer.
    deinit {
        handles.recycle(easy)
        curl_slist_free_all(headerList)
        curl_slist_free_all(connectToList)
        errorBuffer.deallocate()
    }

    private func configure(share: UnsafeMutableRawPointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        setLong(CURLOPT_NOSIGNAL, 1)  // timeouts must not use signals in a multithreaded process
        setString(CURLOPT_URL, request.url.absoluteString)
        setString(CURLOPT_PROTOCOLS_STR, "http,https")
        setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        if !loaderFollowsRedirects {
            setLong(CURLOPT_FOLLOWLOCATION, 1)
            setLong(CURLOPT_MAXREDIRS, configuration.maxRedirects)
        }
        setLong(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.wholeMilliseconds)
        if let deadline = request.deadline {
            // A later hop of a chain the event loop follows: only what is left of the chain's timeout.
            let left = ContinuousClock.now.duration(to: deadline).components
            setLong(
                CURLOPT_TIMEOUT_MS, max(1, Int(left.seconds) * 1000 + Int(left.attoseconds / 1_000_000_000_000_000)))
        } else {
            setLong(CURLOPT_TIMEOUT_MS, request.timeout.wholeMilliseconds)
        }
        setLong(CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
        setLong(CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime.roundedUpSeconds)
        setLong(CURLOPT_BUFFERSIZE, HTTPContentDecoding.receiveBufferSize)
        setLong(
            CURLOPT_HTTP_VERSION, configuration.enablesHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
        // Wait for an HTTP/2 connection being set up rather than opening a second one. Only for https:
        // plain http never multiplexes here, and waiting would hold each new transfer until the first
        // one's response head proves that.
        if configuration.enablesHTTP2 && request.url.scheme?.lowercased() == "https" { setLong(CURLOPT_PIPEWAIT, 1) }
        _ = ccurl_easy_setopt_share(easy, share)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, CurlCallbacks.body)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, CurlCallbacks.header)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        configureConnections(context: context)
        configureRoute()
        switch request.method {
        case "GET": break
        case "HEAD": setLong(CURLOPT_NOBODY, 1)
        default: setString(CURLOPT_CUSTOMREQUEST, request.method)
        }
        for line in request.headerLines { headerList = curl_slist_append(headerList, line) }
        let signature = request.sendsCredentials ? configuration.awsSignature : nil
        for line in signature?.headerLines ?? [] { headerList = curl_slist_append(headerList, line) }
        if let resumingFrom {
            // Our own header lines rather than CURLOPT_RANGE: libcurl would fail a 200 answer to its
            // range, and a 200 (the resource changed, or ranges are not supported) is a fine answer.
            headerList = curl_slist_append(headerList, "Range: bytes=\(resumingFrom.data.count)-")
            headerList = curl_slist_append(headerList, "If-Range: \(resumingFrom.validator)")
        }
        // An empty "Expect:" stops libcurl adding "Expect: 100-continue" to requests with bodies.
        headerList = curl_slist_append(headerList, "Expect:")
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
        if let credentials = configuration.credentials, request.sendsCredentials {
            setString(CURLOPT_USERNAME, credentials.user)
            setString(CURLOPT_PASSWORD, credentials.password)
            setLong(CURLOPT_HTTPAUTH, ccurl_auth_basic_or_digest)
        }
        if let signature {
            // libcurl signs the request (and the x-amz-* headers above) with the key pair as user and password.
            setString(CURLOPT_AWS_SIGV4, signature.curlProvider)
            setString(CURLOPT_USERNAME, signature.accessKeyID)
            setString(CURLOPT_PASSWORD, signature.secretAccessKey)
        }
        if request.handlesCookies {
            // An empty file name turns the cookie engine on without reading a file.
            setString(CURLOPT_COOKIEFILE, "")
        }
        if configuration.contentDecoding.isEnabled {
            // An empty string offers (and decodes) every coding this libcurl was built with.
            setString(CURLOPT_ACCEPT_ENCODING, "")
        }
        if configuration.contentDecoding.requestsCompressedTransfer { setLong(CURLOPT_TRANSFER_ENCODING, 1) }
        validator.tls.apply(to: easy)
        if request.allowsInvalidCertificates {
            setLong(CURLOPT_SSL_VERIFYPEER, 0)
            setLong(CURLOPT_SSL_VERIFYHOST, 0)
        }
    }

    /// Every socket through our callbacks, and the check before each request (see ``ConnectionRegistry``).
    private func configureConnections(context: UnsafeMutableRawPointer) {
        _ = ccurl_easy_setopt_opensocket_function(easy, CurlCallbacks.openSocket)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
        // libcurl keeps the close callback's pointer with each connection, which outlives this transfer.
        _ = ccurl_easy_setopt_closesocket_function(easy, CurlCallbacks.closeSocket)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(connections).toOpaque())
        _ = ccurl_easy_setopt_prereq_function(easy, CurlCallbacks.prerequest)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        if reuse != .pooled { setLong(CURLOPT_FRESH_CONNECT, 1) }
        if reuse == .never { setLong(CURLOPT_FORBID_REUSE, 1) }
    }

    /// Proxy settings and the SSRF guard. libcurl reads proxy variables from the environment unless
    /// CURLOPT_PROXY is set, so every setting sets it: `.direct` to "" (no proxy), `.environment` to
    /// what the loader read from the environment (or the configuration's variables) for this URL.
    private func configureRoute() {
        switch configuration.proxy {
        case .direct:
            setString(CURLOPT_PROXY, "")
        case .url(let proxy):
            setString(CURLOPT_PROXY, proxy.absoluteString)
            // An empty list sends every host through the proxy, whatever `no_proxy` says.
            setString(CURLOPT_NOPROXY, "")
        case .environment:
            guard let environment = validator.environmentProxy else { break }
            setString(CURLOPT_PROXY, environment.proxy(forScheme: request.url.scheme?.lowercased() ?? "http"))
            setString(CURLOPT_NOPROXY, environment.noProxy)
        }
        if configuration.proxy != .direct {
            // The proxy's answer to CONNECT is not the origin's response head: keep it out of ours.
            setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        }
        if let pinnedAddress, let host = request.url.host {
            // A tunnel (CONNECT) to the checked address rather than a request naming the host, so the
            // proxy connects exactly where the guard looked. Without a proxy for this host (the
            // environment's no_proxy), libcurl connects to the pinned address itself. TLS still checks
            // the certificate against the host name.
            let port = request.url.port ?? (request.url.scheme?.lowercased() == "https" ? 443 : 80)
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            setLong(CURLOPT_HTTPPROXYTUNNEL, 1)
            connectToList = curl_slist_append(nil, "\(bracketed):\(port):\(pinnedAddress):\(port)")
            _ = ccurl_easy_setopt_slist(easy, CURLOPT_CONNECT_TO, connectToList)
        } else if configuration.refusesPrivateAddresses {
            // Direct connections: judge every address libcurl connects to, after its DNS lookup and on
            // every redirect hop. (Pinned transfers connect only to the proxy, which is trusted, or to
            // the address checked before the transfer.)
            checksConnectedAddresses = true
        }
    }

    /// What the SSRF guard lets through besides public addresses.
    var guardExceptions: AddressPolicy.Exceptions { AddressPolicy.Exceptions(configuration) }

    private func setLong(_ option: CURLoption, _ value: Int) { _ = ccurl_easy_setopt_long(easy, option, value) }
    private func setString(_ option: CURLoption, _ value: String) { _ = ccurl_easy_setopt_string(easy, option, value) }

    // MARK: Callbacks (event thread, inside curl_multi_perform)

    /// libcurl is about to send this hop's request on the connection with `endpoints`: false (with
    /// ``refusedConnection`` set) when the registry refuses it.
    func admitConnection(_ endpoints: ConnectionEndpoints?) -> Bool {
        switch connections.admit(endpoints, mayMultiplex: configuration.enablesHTTP2) {
        case .use(let handle):
            connection = handle
            return true
        case .unknown:
            connection = nil
            return true
        case .refuse(let refusal):
            connection = nil
            refusedConnection = refusal
            return false
        }
    }

    /// A header line arrived. Returns a short count to abort when the head grows past the limit.
    func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        if bytes.starts(with: "HTTP/".utf8) {
            // A new response head (after a redirect or a 1xx): forget the previous one.
            headerFields.removeAll(keepingCapacity: true)
            headerBytes = 0
            // The status line shows how the connection frames responses (libcurl writes "HTTP/2 200"
            // for HTTP/2), which decides whether it is checked before its next request.
            if let connection {
                connections.record(bytes.starts(with: "HTTP/1".utf8) ? .http1 : .multiplexed, on: connection)
            }
        }
        headerBytes += bytes.count
        if headerBytes > configuration.maxHeaderSize {
            failure = .httpLoader(.headerTooLarge(limit: configuration.maxHeaderSize))
            return 0
        }
        if bytes.count <= 2, Self.trimmed(bytes).isEmpty {
            // The blank line that ends a head.
            hasResponseHead = true
            return refusesDeclaredLength() ? 0 : bytes.count
        }
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            // Plain byte trimming: Foundation's trimmingCharacters was a tenth of the profile.
            let name = Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[..<colon]))
            let value = Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...]))
            let key = String(decoding: name, as: UTF8.self).lowercased()
            let text = String(decoding: value, as: UTF8.self)
            headerFields[key] = headerFields[key].map { "\($0), \(text)" } ?? text
        }
        return bytes.count
    }

    /// At the end of a final response head: true (with `failure` set) when its Content-Length is over
    /// the size limit, so the transfer stops now rather than when body bytes come, or never come.
    private func refusesDeclaredLength() -> Bool {
        guard let declared = headerFields["content-length"].flatMap({ Int64($0) }),
            declared > Int64(configuration.maxResponseSize)
        else { return false }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        // A 1xx is followed by the real head; a redirect's body is not ours (and is thrown away); a
        // HEAD, 204 or 304 declares the length of a body it does not send.
        if status < 200 || isRedirect(status: status) || status == 204 || status == 304 || request.method == "HEAD" {
            return false
        }
        failure = .responseTooLarge(limit: configuration.maxResponseSize)
        return true
    }

    /// Whether a response with `status` and the current head is a redirect that will be followed.
    private func isRedirect(status: Int) -> Bool {
        (300..<400).contains(status) && status != 304 && headerFields["location"] != nil
    }

    /// The next URL when this hop answered with a redirect the event loop follows.
    func loaderRedirectTarget() -> URL? {
        guard loaderFollowsRedirects, let status = response?.statusCode, isRedirect(status: status) else { return nil }
        var target: UnsafeMutablePointer<CChar>? = nil
        _ = ccurl_easy_getinfo_string(easy, CURLINFO_REDIRECT_URL, &target)
        return target.flatMap { URL(string: String(cString: $0)) }
    }

    /// `bytes` without leading and trailing spaces, tabs, CR and LF.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Body bytes arrived. Returns a short count to abort (size limit, rejected head).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if response == nil, !acceptHead() { return 0 }
        guard body.count + bytes.count <= configuration.maxResponseSize else {
            failure = .responseTooLarge(limit: configuration.maxResponseSize)
            return 0
        }
        if let decompressionGuard,
            decompressionGuard.isExceeded(decoded: body.count + bytes.count, received: receivedBytes())
        {
            failure = .httpLoader(.decompressionRatioExceeded(limit: decompressionGuard.maxRatio))
            return 0
        }
        guard body.append(bytes) else {
            failure = .httpLoader(
                .network(curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue)), message: "out of memory for the body")
            return 0
        }
        deliverProgress(newBytes: bytes)
        return bytes.count
    }

    /// Builds the response head once it is final; false when the transfer should stop now: a declared
    /// length over the limit, or (when no caller's response modifier could change our mind) an
    /// unacceptable status or content type.
    private func acceptHead() -> Bool {
        var head = makeResponse()
        // A redirect the event loop follows: read (and drop) its body, judge only the final response.
        if loaderFollowsRedirects && isRedirect(status: head.statusCode) {
            response = head
            return true
        }
        scheduler.events.emit(.responseReceived(transferID: id, response: head))
        decompressionGuard = DecompressionGuard(headers: headerFields, configuration: configuration.contentDecoding)
        var length: curl_off_t = -1
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        var prefix: Data? = nil
        if let resumed = resumingFrom {
            resumingFrom = nil
            switch resumption(of: head, from: resumed, length: length) {
            case .startOver: break
            case .refused(let reason):
                rangeRefused = true
                failure = .httpLoader(.network(curlCode: RangeResume.rangeErrorCode), message: reason)
                response = head
                return false
            case .append(let whole, let complete):
                head = whole
                prefix = resumed.data
                length = curl_off_t(complete)
            }
        }
        response = head
        if length >= 0 {
            // A compressed body's length counts encoded bytes, not the decoded ones progress reports.
            if !DecompressionGuard.isDecoded(headers: headerFields, configuration: configuration.contentDecoding) {
                expectedBytes = Int64(length)
            }
            guard length <= configuration.maxResponseSize else {
                failure = .responseTooLarge(limit: configuration.maxResponseSize)
                return false
            }
            body.reserve(Int(length))
        }
        if let prefix {
            let appended = prefix.withUnsafeBytes { body.append($0) }
            guard appended else {
                failure = .httpLoader(
                    .network(curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue)), message: "out of memory for the body")
                return false
            }
        }
        if let error = validator.rejection(of: head, sentValidators: request.sentValidators),
            !scheduler.hasResponseModifier(id)
        {
            failure = error
            return false
        }
        return true
    }

    /// What a resumed attempt does with the head the server answered its range request with.
    private enum Resumption {
        /// Not a range answer (200: the resource changed, or ranges are ignored): the body starts empty.
        case startOver
        /// A range other than the rest of the body, or 416: this attempt fails, the next starts over.
        case refused(String)
        /// The rest of the body follows: prepend the kept bytes. `whole` is the head of the complete
        /// body (200, its full length, no Content-Range); `complete` its length, -1 when unknown.
        case append(whole: ImageResponse, complete: curl_off_t)
    }

    private func resumption(of head: ImageResponse, from resumed: ResumableData, length: curl_off_t) -> Resumption {
        let offset = resumed.data.count
        switch head.statusCode {
        case 206:
            let declared = head.headers["content-range"] ?? "no Content-Range"
            guard let range = RangeResume.contentRange(declared), range.first == offset,
                range.complete.map({ range.last == $0 - 1 }) ?? true,
                length < 0 || Int(length) == range.last - range.first + 1,
                // Encoded bytes would not line up with the decoded ones we kept.
                head.headers["content-encoding"].map({ $0.lowercased() == "identity" }) ?? true
            else {
                return .refused("asked for bytes \(offset)- and got \(declared)")
            }
            let complete = curl_off_t(range.complete ?? (range.last + 1))
            var whole = head
            whole.statusCode = 200
            whole.headers.removeValue(forKey: "content-range")
            whole.headers["content-length"] = String(complete)
            return .append(whole: whole, complete: complete)
        case 416:
            return .refused("the server cannot serve bytes \(offset)- (416)")
        default:
            return .startOver
        }
    }

    /// The body so far and the validator to ask for the rest with, when this attempt ended early
    /// with something worth keeping: an accepted complete-body response (200, or a resumed one) with a
    /// strong validator, at least ``HTTPLoaderConfiguration/minimumResumableBytes`` of it, and not
    /// all of it. A copy of exactly the bytes received: the body's block may be reserved for the whole
    /// declared length, and the store's byte cap must count what is really held. An attempt that ended
    /// before any answer (no connection, say) hands back the bytes it was to resume from.
    func resumableData() -> ResumableData? {
        if let resumingFrom { return resumingFrom }
        guard request.isResumable, !rangeRefused, let response, response.statusCode == 200,
            body.count >= max(1, configuration.minimumResumableBytes),
            let validator = RangeResume.validator(for: response.headers)
        else { return nil }
        if let expectedBytes, Int64(body.count) >= expectedBytes { return nil }
        return ResumableData(data: body.copy(), validator: validator)
    }

    /// Body bytes received so far as libcurl counts them: before content decoding.
    private func receivedBytes() -> Int64 {
        var received: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_DOWNLOAD_T, &received)
        return Int64(received)
    }

    private func makeResponse() -> ImageResponse {
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var url = request.url
        var redirects = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        if redirects > 0 {
            var effective: UnsafeMutablePointer<CChar>? = nil
            _ = ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
            url = effective.flatMap { URL(string: String(cString: $0)) } ?? request.url
        }
        return ImageResponse(url: url, statusCode: status, headers: headerFields)
    }

    private func deliverProgress(newBytes: UnsafeRawBufferPointer) {
        let targets = scheduler.progressTargets(id, now: DispatchTime.now().uptimeNanoseconds)
        if let source = targets.partial, !decoderFailed {
            do {
                if let decoder {
                    try decoder.append(Data(newBytes))
                } else {
                    let fresh = source.coder.makeIncrementalDecoder(options: source.options)
                    try fresh.append(body.copy())
                    decoder = fresh
                }
            } catch {
                // A decoder that gives up only costs the partial images; the final decode decides.
                decoderFailed = true
                decoder = nil
            }
        }
        guard !targets.handlers.isEmpty else { return }
        let partial = targets.handlers.contains { $0.1 } ? decoder?.partialImage() : nil
        let plain = LoadProgress(receivedBytes: Int64(body.count), expectedBytes: expectedBytes)
        var withImage = plain
        withImage.partialImage = partial
        for (handler, wantsPartial) in targets.handlers { handler(wantsPartial ? withImage : plain) }
    }

    // MARK: Completion

    /// The outcome once libcurl reports the transfer done with `code`.
    func outcome(_ code: CURLcode) -> Result<ImageResponse, ImageError> {
        if code == CURLE_OK {
            // A response without a body never reached receiveBody: judge its head now.
            if response == nil, !acceptHead(), let failure { return .failure(failure) }
            let head = response ?? makeResponse()
            response = head
            return .success(head)
        }
        if let failure { return .failure(failure) }
        let message = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        if let tlsError = CurlErrorMapping.tlsError(for: code, message: message, easy: easy) {
            return .failure(tlsError)
        }
        if let codingError = CurlErrorMapping.contentEncodingError(for: code, message: message) {
            return .failure(codingError)
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .failure(
            CurlErrorMapping.error(
                for: code, message: message, refusedAddress: refusedAddress,
                lastStatus: status, inHead: response == nil,
                headerLimit: configuration.maxHeaderSize))
    }

    /// libcurl's measurements of this attempt.
    func metrics() -> HTTPTransferMetrics {
        func seconds(_ info: CURLINFO) -> Duration {
            var micros: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(easy, info, &micros)
            return .microseconds(Int64(micros))
        }
        func long(_ info: CURLINFO) -> Int {
            var value = 0
            _ = ccurl_easy_getinfo_long(easy, info, &value)
            return value
        }
        let version: String
        switch long(CURLINFO_HTTP_VERSION) {
        case Int(CURL_HTTP_VERSION_1_0): version = "1.0"
        case Int(CURL_HTTP_VERSION_1_1): version = "1.1"
        case Int(CURL_HTTP_VERSION_2_0): version = "2"
        case Int(CURL_HTTP_VERSION_3): version = "3"
        default: version = ""
        }
        return HTTPTransferMetrics(
            nameLookup: seconds(CURLINFO_NAMELOOKUP_TIME_T), connect: seconds(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: seconds(CURLINFO_APPCONNECT_TIME_T), firstByte: seconds(CURLINFO_STARTTRANSFER_TIME_T),
            total: seconds(CURLINFO_TOTAL_TIME_T), bytesReceived: Int64(body.count), httpVersion: version,
            // No new connection made (and a response came): the transfer rode an existing connection.
            reusedConnection: long(CURLINFO_NUM_CONNECTS) == 0 && !version.isEmpty,
            redirectCount: long(CURLINFO_REDIRECT_COUNT) + redirectsBefore, attempts: attempt)
    }
}
