import Foundation
import Glibc
import WebImageCore
import WebImageDiskCache
import WebImagePNGCoder
import WebImageRedisCache
import WebImageTestSupport

/// The Redis tier next to `redis-benchmark` on the same server, and the three-level cache's hit latency
/// per tier.
struct RedisBenchmarks {
    /// The value size of the comparison: a typical 20 KB thumbnail (redis-benchmark's `-d 20000`).
    static let valueSize = 20_000
    /// Connections, each driven by one thread of ours / one redis-benchmark client. Our threads share
    /// the client CPU as redis-benchmark's one event-loop thread does (``CPUPinning``).
    static let concurrencies = [1, 4]
    /// GETs per measurement: long enough to leave start-up noise behind on a shared machine.
    static let requestCount = 20_000
    /// Measurements of each side per row, taken in turn (ours, theirs, ours, ...); the rows show medians.
    /// Two processes ping-ponging on two cores swing by a third from run to run (redis-benchmark alone:
    /// 62-95 k GETs/s within minutes), so one measurement each would compare noise.
    static let rounds = 5
    /// Commands per pipeline, as in `redis-benchmark -P 16`.
    static let pipelineDepth = 16
    /// Distinct keys read in turn by our side.
    static let keyCount = 256
    /// Lookups timed per tier for the latency rows.
    static let latencySamples = 2_000

    let root: URL

    /// `table` with the Redis rows added.
    func run(adding table: ResultTable) async throws -> ResultTable {
        var table = table
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-benchmark")
        else {
            print("redis-server / redis-benchmark missing (scripts/install-deps.sh installs them): Redis rows skipped")
            return table
        }
        let server = try RedisServerProcess(launcher: CPUPinning.launcher(cpu: CPUPinning.serverCPU))
        defer { server.stop() }
        try await waitUntilUp(port: server.port)
        try CPUPinning.onCPU(CPUPinning.clientCPU) { try throughput(port: server.port, into: &table) }
        try await tierLatency(port: server.port, into: &table)
        return table
    }

    private func waitUntilUp(port: Int) async throws {
        let probe = try RedisCache(url: "redis://127.0.0.1:\(port)")
        for _ in 0..<500 {
            if probe.reachableNodes() == [true] { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError.redisDidNotStart
    }

    private func cache(port: Int, connections: Int) throws -> RedisCache {
        var configuration = try RedisCacheConfiguration(url: "redis://127.0.0.1:\(port)")
        configuration.connectionsPerNode = connections
        configuration.writePolicy = .writeThrough
        configuration.namespace = "bench"
        // Generous: on a shared, loaded machine a 250 ms default would turn scheduling delays into misses.
        configuration.readTimeout = .seconds(2)
        configuration.writeTimeout = .seconds(2)
        configuration.poolWaitTimeout = .seconds(2)
        return RedisCache(configuration: configuration)
    }

    // MARK: Throughput against redis-benchmark

    private func throughput(port: Int, into table: inout ResultTable) throws {
        let value = Data((0..<Self.valueSize).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let keys = (0..<Self.keyCount).map { "https://images.example.com/photos/\($0).jpg" }
        let writer = try cache(port: port, connections: 1)
        for key in keys { writer.store(value, extendedData: nil, forKey: key) }
        // redis-benchmark's GET reads the key its SET wrote: give it a 20,000-byte value first.
        _ = try ChildProcess.output(
            of: "/usr/bin/redis-benchmark",
            [
                "-p", String(port), "-t", "set", "-d", String(Self.valueSize),
                "-n", "1000", "-c", "1", "-q",
            ])

        for connections in Self.concurrencies {
            let redis = try cache(port: port, connections: connections)
            let (ours, theirs) = try Self.medians(
                gets: Self.getsIssued(threads: connections, calls: Self.requestCount, depth: 1),
                label: "GET, \(connections) conn."
            ) {
                Self.requestsPerSecond(threads: connections, requests: Self.requestCount) { thread, index in
                    _ = redis.entry(forKey: keys[(thread * 31 + index) % keys.count])
                }
            } theirs: {
                try redisBenchmark(port: port, connections: connections, pipeline: 1)
            }
            table.rate(
                "Redis GET 20 KB hit, \(connections) conn. (per connection)",
                ours: ours / Double(connections), baseline: theirs / Double(connections),
                baselineName: "redis-benchmark -t get -d 20000 -c \(connections)", goal: "≥ 0.95x")

            let (pipelined, theirsPipelined) = try Self.medians(
                gets: Self.getsIssued(
                    threads: connections, calls: Self.requestCount / Self.pipelineDepth, depth: Self.pipelineDepth),
                label: "multi-get, \(connections) conn."
            ) {
                Self.requestsPerSecond(threads: connections, requests: Self.requestCount / Self.pipelineDepth) {
                    thread, index in
                    let start = (thread * 31 + index * Self.pipelineDepth) % keys.count
                    let batch = (0..<Self.pipelineDepth).map { keys[(start + $0) % keys.count] }
                    _ = redis.entries(forKeys: batch)
                } * Double(Self.pipelineDepth)
            } theirs: {
                try redisBenchmark(port: port, connections: connections, pipeline: Self.pipelineDepth)
            }
            table.rate(
                "Redis multi-get 16 × 20 KB, \(connections) conn. (GETs/s per connection)",
                ours: pipelined / Double(connections), baseline: theirsPipelined / Double(connections),
                baselineName: "redis-benchmark -t get -d 20000 -P 16 -c \(connections)", goal: "≥ 0.95x")
            let stats = redis.statistics
            if stats.misses > 0 {
                print(
                    "note: \(stats.misses) misses at \(connections) connections (timeouts \(stats.timeouts)): the rows count them as requests"
                )
            }
        }
    }

    /// The medians of ``rounds`` measurements of each side, taken in turn so that both see the same
    /// machine. Also prints each side's median client CPU time per GET (`gets`: ours, counting the warm-up;
    /// redis-benchmark's is ``requestCount``): on a loaded machine, CPU time is what a rate turns on.
    static func medians(
        gets: Int, label: String, ours: () -> Double,
        theirs: () throws -> Double
    ) rethrows -> (ours: Double, theirs: Double) {
        var oursRates: [Double] = [], theirRates: [Double] = []
        var oursCPU: [Double] = [], theirCPU: [Double] = []
        for _ in 0..<rounds {
            let ownStart = cpuSeconds(RUSAGE_SELF)
            oursRates.append(ours())
            oursCPU.append((cpuSeconds(RUSAGE_SELF) - ownStart) / Double(gets) * 1e6)
            let childStart = cpuSeconds(RUSAGE_CHILDREN)
            theirRates.append(try theirs())
            theirCPU.append((cpuSeconds(RUSAGE_CHILDREN) - childStart) / Double(requestCount) * 1e6)
        }
        let median = { (values: [Double]) in values.sorted()[rounds / 2] }
        print(
            "client CPU per GET, \(label) (median): ours \(String(format: "%.1f", median(oursCPU))) µs, "
                + "redis-benchmark \(String(format: "%.1f", median(theirCPU))) µs")
        return (median(oursRates), median(theirRates))
    }

    /// GETs our side issues for `calls` calls of `depth` GETs on `threads` threads, warm-up included
    /// (see ``requestsPerSecond(threads:requests:_:)``).
    static func getsIssued(threads: Int, calls: Int, depth: Int) -> Int {
        let perThread = calls / threads
        return (perThread + min(200, perThread)) * threads * depth
    }

    /// User + system CPU seconds of this process (`RUSAGE_SELF`, every thread) or of its children that
    /// have ended and were waited for (`RUSAGE_CHILDREN`).
    static func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `threads` threads share `requests` calls of `body(thread, index)`; calls per second overall.
    static func requestsPerSecond(threads: Int, requests: Int, _ body: @escaping @Sendable (Int, Int) -> Void) -> Double
    {
        let perThread = requests / threads
        // Warm-up, all threads at once: opens every connection and faults in the code paths.
        onThreads(threads) { thread in for index in 0..<min(200, perThread) { body(thread, index) } }
        let seconds = Stopwatch.seconds {
            onThreads(threads) { thread in for index in 0..<perThread { body(thread, index) } }
        }
        return Double(perThread * threads) / seconds
    }

    /// Runs `body(thread)` on `count` threads of its own at once; returns when all have finished.
    /// (`DispatchQueue.concurrentPerform` runs at most one iteration per CPU at a time: with the client
    /// pinned to one CPU, the "4 connections" rows would have driven one connection at a time.)
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = DispatchGroup()
        for thread in 0..<count {
            finished.enter()
            Thread {
                body(thread)
                finished.leave()
            }.start()
        }
        finished.wait()
    }

    /// GETs per second `redis-benchmark` reports for `connections` clients and pipeline depth `pipeline`.
    private func redisBenchmark(port: Int, connections: Int, pipeline: Int) throws -> Double {
        let client = CPUPinning.command(
            "/usr/bin/redis-benchmark",
            [
                "-p", String(port), "-t", "get", "-d", String(Self.valueSize), "-n", String(Self.requestCount),
                "-c", String(connections), "-P", String(pipeline), "--threads", "1", "--csv",
            ], cpu: CPUPinning.clientCPU)
        let text = try ChildProcess.output(of: client.path, client.arguments)
        // CSV: a header line, then "GET","<requests per second>",...
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("\"GET\"") }),
            let rps = Double(line.split(separator: ",")[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        else {
            throw BenchError.unexpectedOutput(text)
        }
        return rps
    }

    // MARK: Three-level cache latency

    private func tierLatency(port: Int, into table: inout ResultTable) async throws {
        let coders = ImageCodersManager(coders: [PNGCoder()])
        let redis = try cache(port: port, connections: 4)
        let directory = root.appendingPathComponent("three-level", isDirectory: true)
        let cache = try WebImageCache(directory: directory, namespace: "bench", redis: redis, coder: coders)
        let tiers = cache.disk as! TieredDiskStorage
        let png = try Self.thumbnailPNG()
        let key = "https://images.example.com/thumbnail.png"
        try await cache.store(
            nil, data: png, validators: CacheValidators(etag: "\"1\""), forKey: key, cacheType: .all,
            context: ImageContext())

        var memory: [Double] = [], disk: [Double] = [], shared: [Double] = []
        var diskBytes: [Double] = [], sharedBytes: [Double] = []
        let clock = ContinuousClock()
        func time(_ body: () async throws -> Void) async rethrows -> Double {
            let start = clock.now
            try await body()
            let elapsed = clock.now - start
            return Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6
        }
        for _ in 0..<Self.latencySamples {
            _ = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: .all)
            memory.append(
                await time {
                    _ = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: .all)
                })

            await cache.clear(cacheType: .memory)
            disk.append(
                await time {
                    _ = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: .all)
                })
            diskBytes.append(try await time { _ = try tiers.data(forKey: key) })

            await cache.clear(cacheType: .memory)
            try tiers.local.removeData(forKey: key)
            shared.append(
                await time {
                    _ = await cache.queryImage(forKey: key, options: [], context: ImageContext(), cacheType: .all)
                })
            try tiers.local.removeData(forKey: key)
            sharedBytes.append(try await time { _ = try tiers.data(forKey: key) })
        }
        if redis.statistics.misses > 0 { print("note: \(redis.statistics.misses) Redis misses in the latency rows") }
        let kb = "\(png.count / 1024) KB PNG"
        table.time("three-level hit: memory (median)", ours: median(memory), baseline: nil, unit: "µs")
        table.time("three-level hit: disk, decode \(kb) (median)", ours: median(disk), baseline: nil, unit: "µs")
        table.time(
            "three-level hit: Redis, decode + promote to disk (median)", ours: median(shared), baseline: nil, unit: "µs"
        )
        table.time("tier bytes: disk (median)", ours: median(diskBytes), baseline: nil, unit: "µs")
        table.time("tier bytes: Redis + promote to disk (median)", ours: median(sharedBytes), baseline: nil, unit: "µs")
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// A 128×128 RGB PNG of noisy gradients: about 20 KB, what a thumbnail service stores.
    static func thumbnailPNG() throws -> Data {
        var state: UInt32 = 12345
        var bytes: [UInt8] = []
        for y in 0..<128 {
            for x in 0..<128 {
                state = state &* 1_103_515_245 &+ 12_345
                let noise = UInt8(truncatingIfNeeded: state >> 28)
                bytes += [UInt8(x * 2) &+ noise, UInt8(y * 2) &+ noise, UInt8((x + y) & 255)]
            }
        }
        let image = Image(pixels: PixelBuffer(width: 128, height: 128, layout: .rgb8, bytes: bytes))
        return try PNGCoder().encode(image, as: .png, options: EncodeOptions())
    }
}

enum BenchError: Error {
    case redisDidNotStart
    case unexpectedOutput(String)
}
