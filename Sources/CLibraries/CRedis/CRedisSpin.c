// The short busy wait before a connection sleeps for its reply (credis_connection_state's spin).
//
// A reply from a Redis on the same machine or rack comes back within tens of microseconds. A thread that
// sleeps for it lets its CPU go idle, and waking an idle CPU costs about as long again; on a virtual
// machine, where the idle CPU halts and is woken through the hypervisor, it costs more CPU time than the
// wait itself. Asking the socket again for a few tens of microseconds, yielding the CPU to any other
// runnable thread between tries, keeps the CPU awake for replies that are about to arrive. A connection
// whose replies keep missing the window (a distant or busy server) spins less and less often, so a slow
// network costs at most one window per CREDIS_SPIN_MAX_SKIP waits.

#include "CRedisInternal.h"

#include <errno.h>
#include <sched.h>

/// The most waits a connection skips spinning after windows that ran out (a power of two minus one).
#define CREDIS_SPIN_MAX_SKIP 63u

int credis_spin_receive(int fd, struct msghdr *message, uint32_t limit_us, credis_spin_window *window,
                        int64_t deadline_ms, ssize_t *result) {
    if (limit_us == 0) return 0;
    if (window->skip > 0) {
        window->skip--;
        return 0;
    }
    int64_t limit = credis_now_ns() + (int64_t)limit_us * 1000;
    if (limit > deadline_ms * 1000000) limit = deadline_ms * 1000000;
    for (;;) {
        ssize_t n = recvmsg(fd, message, MSG_DONTWAIT);
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            window->backoff = 0;
            *result = n;
            return 1;
        }
        if (credis_now_ns() >= limit) break;
        sched_yield();
    }
    // Missed: skip the next 1, 3, 7, ... waits, up to CREDIS_SPIN_MAX_SKIP, until a spin catches a reply.
    window->backoff = window->backoff >= CREDIS_SPIN_MAX_SKIP ? CREDIS_SPIN_MAX_SKIP : window->backoff * 2 + 1;
    window->skip = window->backoff;
    return 0;
}
