"""The soak's targets (issue 23), bounds and load. Every number is a target, a bound for a broken run, or the
size of the load, each with its reason."""

# Targets.
SUCCESS_RATIO_TARGET = 0.90     # good requests under hostile traffic succeed at least this often, relative to (a)
P99_TARGET_SECONDS = 3.0        # good requests' p99 latency, on 2 cores
CLOSE_BOUND_SECONDS = 30        # idle and slowloris connections are let go by the server within this
RSS_SLACK_MB = 100              # RSS 15 s after the load stays within the cache budgets plus this
SETTLE_SECONDS = 15             # phase (c): the quiet time after the load before RSS and fds are read

# The server's memory budgets, passed explicitly (these are its defaults) so the RSS target is known here.
RESULT_MEMORY = 64 << 20        # WEBIMAGE_SERVER_RESULT_MEMORY
SOURCE_MEMORY = 256 << 20       # WEBIMAGE_SERVER_SOURCE_MEMORY
SOURCE_BYTES = 64 << 20         # WEBIMAGE_SERVER_SOURCE_BYTES

# IMGPROXY_REQUESTS_QUEUE_SIZE: the worker queue holds every request the soak's clients can have open at once (the
# good clients, the hostile cap, and the droppers' abandoned requests, which may run until IMGPROXY_TIMEOUT, 10 s),
# so no answer is a 429 for a full queue: a good request fails only by its deadline or an error. The server's
# default (8 per worker: 16 on 2 cores) answers about half of 32 closed-loop clients' requests with 429 before any
# hostile traffic.
def requests_queue_size(good_clients):
    return good_clients + HOSTILE_IN_FLIGHT_CAP + DROPPERS_PER_SECOND * 10

# Bounds.
HANG_SECONDS = 30               # a request without an answer after this long is a hang (IMGPROXY_TIMEOUT is 10 s)
# Hostile requests open at once at most: a bound for the driver, far above what the share needs when the server
# answers each within IMGPROXY_TIMEOUT (10 s): 30 % beside 32 good clients at 60 answers/s is about 250. The report
# shows the share reached.
HOSTILE_IN_FLIGHT_CAP = 512
# Idle connections the server's HTTP loader may keep pooled per origin: its server preset's
# maxConnectionsPerHost (no more are ever open to one origin at once). libcurl closes an idle one after 118 s
# (CURLOPT_MAXAGE_CONN's default), so 15 s after the load some may remain: the fd check holds them to this
# bound and every other fd to the baseline.
POOLED_PER_ORIGIN = 4

# The load of phase (b) beside the good clients: slow clients kept open at once, droppers started per second.
SLOWLORIS_CLIENTS = 16
IDLE_CLIENTS = 16               # half silent from the start, half idle after one answered request
SLOW_READERS = 4
DROPPERS_PER_SECOND = 2
SLOWLORIS_BYTES_PER_SECOND = 1
SLOW_READER_BYTES_PER_SECOND = 1024
SLOW_READER_RECEIVE_BUFFER = 4096   # a small window, so the server's writes back up at once

# Good traffic.
HOT_URLS = 20                   # per phase, the URLs asked HOT_SHARE of the time (result cache hits)
HOT_SHARE = 0.3
SOURCE_VERSIONS = 40            # ?v= spellings of each source, so the server keeps fetching sources (and reusing
                                # pooled connections to the good origin, where the smuggled bytes wait)
URLS_PER_ANSWER = 4             # URLs (source spellings) per expected answer: about 6,000 per phase, more than 2
                                # cores make in 90 s (1,650 on a quiet machine), so phase (a) never turns into hits
