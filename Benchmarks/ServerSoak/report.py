"""The soak's printed report and its verdict (the exit status)."""
import collections
import json
import statistics

from measure import metric_values, percentile
from settings import (CLOSE_BOUND_SECONDS, HANG_SECONDS, P99_TARGET_SECONDS, POOLED_PER_ORIGIN, RESULT_MEMORY,
                      RSS_SLACK_MB, SETTLE_SECONDS, SOURCE_BYTES, SOURCE_MEMORY, SUCCESS_RATIO_TARGET)

FAILED, MISSED, PASSED = 1, 3, 0
SLOW_KINDS = ["slowloris", "idle", "idle after a request", "slow reader"]
ORIGIN_SOCKETS = ("socket: good origin", "socket: probe origin", "socket: hostile origin")
# The server's gauges read from /metrics every 5 s: requests waiting for a worker, the loader's transfers running
# and waiting (for a slot, or for their origin's per-host limit), and what the server's caches hold.
GAUGES = ["webimage_server_queue_depth", "webimage_http_active_transfers", "webimage_http_queued_requests",
          "webimage_server_cache_bytes{cache=\"results\"}", "webimage_server_cache_bytes{cache=\"sources\"}"]


def report(args, settings_shown, clients, sampler, a, b, run, origin):
    """Prints everything and returns the exit status: FAILED on a wrong image, a canary contact, an fd leak or a
    hang (idle and slowloris connections held past the bound included); MISSED when only the performance
    targets are missed; PASSED otherwise."""
    failures, misses = [], []
    print(f"\n== server-soak: {args.workers} good clients, {args.duration} s per loaded phase, "
          f"{args.hostile_share * 100:.0f} % hostile in (b), {SETTLE_SECONDS} s after ==")
    print("server: " + " ".join(f"{k}={v}" for k, v in settings_shown.items()))

    print("\ngood traffic (every answer checked)")
    rate_a, p99_a = phase_line(a)
    rate_b, p99_b = phase_line(b)
    ratio = rate_b / rate_a if rate_a else 0.0
    print(f"  success (b)/(a) {ratio:.3f} (target >= {SUCCESS_RATIO_TARGET}); p99 (b)/(a) {p99_b / p99_a:.2f}x; "
          f"p99 <= {P99_TARGET_SECONDS:.0f} s: (a) {verdict(p99_a <= P99_TARGET_SECONDS)}, "
          f"(b) {verdict(p99_b <= P99_TARGET_SECONDS)}")
    if ratio < SUCCESS_RATIO_TARGET:
        misses.append(f"success (b)/(a) {ratio:.3f} < {SUCCESS_RATIO_TARGET}")
    misses += [f"p99 of ({name}) {p99:.2f} s > {P99_TARGET_SECONDS:.0f} s"
               for name, p99 in (("a", p99_a), ("b", p99_b)) if p99 > P99_TARGET_SECONDS]

    hostile_total = sum(len(v) for v in b.hostile.values())
    print(f"\nhostile requests in (b): {hostile_total}, {hostile_total / max(1, hostile_total + b.good) * 100:.1f} % "
          "of all requests (status: count)")
    for kind in sorted(b.hostile):
        results = b.hostile[kind]
        seconds = [s for _, s in results]
        codes = collections.Counter(status for status, _ in results)
        print(f"  {kind:19} {len(results):5}  p50 {percentile(seconds, 0.5):5.2f} s  max {max(seconds):5.2f} s  "
              + ", ".join(f"{k}: {v}" for k, v in sorted(codes.items(), key=lambda kv: str(kv[0]))))

    print(f"\nslow clients in (b) (released: the server no longer holds an fd for the connection, from /proc)")
    held_too_long = []
    for kind in SLOW_KINDS:
        records = [r for r in clients.slow if r["kind"] == kind]
        if not records:
            continue
        released = [r["released"] - r["started"] for r in records if r["released"] is not None]
        late = [r for r in records if r["released"] is None or r["released"] - r["started"] > CLOSE_BOUND_SECONDS]
        line = (f"  {kind:21} {len(records):4} opened, {len(released):4} released after p50 "
                f"{percentile(released, 0.5):4.1f} s, max {max(released, default=float('nan')):4.1f} s; "
                f"{len(late)} held past {CLOSE_BOUND_SECONDS} s")
        if kind == "slow reader":
            line += f"; {statistics.mean(r['bytes'] for r in records) / 1024:.0f} KB read each on average"
        elif late:
            held_too_long.append(f"{len(late)} {kind}")
        print(line)
    if clients.droppers:
        print("  dropped mid-way: " + ", ".join(f"{k} {v}" for k, v in sorted(clients.droppers.items())))
    if held_too_long:
        failures.append("held past the bound: " + ", ".join(held_too_long))

    after = run["after"]
    print("\nserver process, every 5 s: RSS MB, open fds, client sockets, origin sockets")
    for t, phase, rss, fds, clients_held, origins in sampler.samples[::5] + [after]:
        print(f"  t={t:6.1f} s  {phase:8}  rss {rss:6.1f}  fds {fds:4}  clients {clients_held:4}  origins {origins:3}")
    machine = run["machine"]
    print("\nmachine: 1-minute load average {:.1f} before (a), {:.1f} after (a), {:.1f} after (b); the server used "
          "{:.2f} cores in (a), {:.2f} in (b)".format(
              machine["before (a)"][0], machine["after (a)"][0], machine["after (b)"][0],
              (machine["after (a)"][1] - machine["before (a)"][1]) / (a.ended - a.started),
              (machine["after (b)"][1] - machine["after (a)"][1]) / (b.ended - b.started)))
    def mean_ms(name, before, after):
        total = [sum(metric_values(text, name + suffix).values()) for text in (before, after) for suffix in ("_sum", "_count")]
        count = total[3] - total[1]
        return (total[2] - total[0]) / count * 1000 if count else float("nan"), int(count)
    for label, name in (("worker time (decode, transform, encode) per made answer", "webimage_server_processing_seconds"),
                        ("source fetch per made answer, waiting for a download slot included", "webimage_server_source_fetch_seconds")):
        in_a = mean_ms(name, run["metrics_before"], run["metrics_between"])
        in_b = mean_ms(name, run["metrics_between"], run["metrics_after"])
        print(f"  {label}: (a) {in_a[0]:.0f} ms over {in_a[1]}, (b) {in_b[0]:.0f} ms over {in_b[1]}")
    print("\nserver gauges from /metrics, every 5 s: worker queue, loader transfers running and waiting, cache MB")
    for t, phase, queue, active, queued, results, sources in run["gauges"]:
        print(f"  t={t:6.1f} s  {phase:8}  queue {queue:4.0f}  transfers {active:4.0f}  waiting {queued:4.0f}  "
              f"results {results / (1 << 20):6.1f}  sources {sources / (1 << 20):6.1f}")
    peak_rss = max(s[2] for s in sampler.samples)
    peak_fds = max(s[3] for s in sampler.samples)
    budget = (RESULT_MEMORY + SOURCE_MEMORY + SOURCE_BYTES) / (1 << 20) + RSS_SLACK_MB
    print(f"  RSS: baseline {run['baseline_rss']:.0f} MB, peak {peak_rss:.0f} MB, {SETTLE_SECONDS} s after the load "
          f"{after[2]:.0f} MB (target <= {budget:.0f} MB: caches {budget - RSS_SLACK_MB:.0f} + {RSS_SLACK_MB})")
    memory = run["memory"]
    print(f"    after the load: anonymous {memory.get('Anonymous', 0):.0f} MB, file-backed "
          f"{memory.get('Rss', 0) - memory.get('Anonymous', 0):.0f} MB; the caches report "
          f"{sum(metric_values(run['metrics_after'], 'webimage_server_cache_bytes').values()) / (1 << 20):.0f} MB")
    for line in run.get("malloc_stats") or []:
        print(f"    malloc_stats: {line}")
    if after[2] > budget:
        misses.append(f"RSS {after[2]:.0f} MB > {budget:.0f} MB")
    print(f"  fds: baseline {run['baseline_fds']}, peak {peak_fds}, {SETTLE_SECONDS} s after the load {after[3]}")
    for name in ("baseline", "after"):
        print(f"    {name + ':':9} " + ", ".join(f"{k} {v}" for k, v in sorted(run[name + "_breakdown"].items())))
    pooled_before = sum(run["baseline_breakdown"].get(k, 0) for k in ORIGIN_SOCKETS)
    pooled_after = {k: run["after_breakdown"].get(k, 0) for k in ORIGIN_SOCKETS}
    others_before = run["baseline_fds"] - pooled_before
    others_after = after[3] - sum(pooled_after.values())
    fds_back = others_after <= others_before and all(n <= POOLED_PER_ORIGIN for n in pooled_after.values())
    print(f"    besides pooled origin connections: baseline {others_before}, after {others_after}; pooled origin "
          f"connections after {sum(pooled_after.values())} (bound {POOLED_PER_ORIGIN} per origin)")
    if run.get("linger"):
        print(f"    all fds {run['linger']}")
    if not fds_back:
        failures.append(f"fds leaked: {others_after} besides the pool (baseline {others_before}), pool {pooled_after}")

    refused = {reason: value - metric_values(run["metrics_before"], "webimage_http_stale_connections_total").get(reason, 0)
               for reason, value in metric_values(run["metrics_after"], "webimage_http_stale_connections_total").items()}
    counts = origin["counts"]
    print("\nserver metrics over the run")
    print("  pooled origin connections refused: "
          + (", ".join(f"{k} {int(v)}" for k, v in sorted(refused.items())) or "none")
          + f"; bytes past a body sent with the answer by the good origin: {counts.get('overflow:good:smuggle', 0)} "
          f"smuggled responses, {counts.get('overflow:good:garbage', 0)} garbage; in a write of their own by the "
          f"probe origin: {counts.get('overflow:probe:smuggle', 0)} and {counts.get('overflow:probe:garbage', 0)}")
    probes = clients.probes
    print(f"  poisoning probes: {probes['probes']}; the extra bytes waited unread in the server's socket before the good "
          f"request in {probes['bytes waiting before the good request']}; the good request got its own image in "
          f"{probes['right image']}" + "".join(f"; {k} {v}" for k, v in sorted(probes.items()) if k.startswith("not")))
    timeouts = metric_values(run["metrics_after"], "webimage_server_client_timeouts_total")
    print("  client connections closed by deadline: "
          + (", ".join(f"{k} {int(v)}" for k, v in sorted(timeouts.items())) or "none"))
    print(f"  this script's CPU during the load: {run['client_cpu']:.0f} s")

    print("\nchecks")
    print(f"  wrong images: {len(clients.wrong)}")
    for phase, url, what in clients.wrong[:10]:
        print(f"    ({phase}) {url[:90]}: {what}")
    if clients.wrong:
        failures.append(f"{len(clients.wrong)} wrong images")
    fives = sum(clients.unexpected_5xx.values())
    print(f"  unexpected 5xx on good requests: {fives}" + (f" {dict(clients.unexpected_5xx)}" if fives else ""))
    canary = origin["canary"]
    print(f"  canary contacted: {'YES ' + json.dumps(canary[:3]) if canary else 'no'}")
    if canary:
        failures.append(f"canary contacted {len(canary)} times")
    print(f"  hangs (no answer within {HANG_SECONDS} s): {len(clients.hangs)}")
    for phase, kind, url in clients.hangs[:10]:
        print(f"    ({phase}) {kind}: {url[:90]}")
    if clients.hangs:
        failures.append(f"{len(clients.hangs)} hangs")
    print(f"  idle and slowloris connections released within {CLOSE_BOUND_SECONDS} s: {verdict(not held_too_long)}")
    print(f"  fds back to baseline (pooled origin connections within their bound): {verdict(fds_back)}")
    print(f"  RSS {SETTLE_SECONDS} s after the load within the budgets + {RSS_SLACK_MB} MB: {verdict(after[2] <= budget)}")
    if misses:
        print("\ntargets missed: " + "; ".join(misses))
    if failures:
        print("\nFAILED: " + "; ".join(failures))
        if run.get("server_log"):
            print("server log (last lines):\n" + run["server_log"])
        return FAILED
    return MISSED if misses else PASSED


def phase_line(phase):
    seconds = phase.ended - phase.started
    rate = phase.ok / phase.good if phase.good else 0.0
    p50, p99 = percentile(phase.latencies, 0.5), percentile(phase.latencies, 0.99)
    codes = ", ".join(f"{k}: {v}" for k, v in sorted(phase.statuses.items(), key=lambda kv: str(kv[0])))
    print(f"  ({phase.name}) {phase.good} requests ({phase.good / seconds:.1f}/s), success {rate * 100:.2f} %, "
          f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {max(phase.latencies, default=0) * 1000:.0f} ms; "
          f"status: count {codes}")
    return rate, p99


def verdict(ok):
    return "yes" if ok else "NO"
