// accept4 and SOCK_CLOEXEC are GNU extensions.
#define _GNU_SOURCE
#include "CHTTPTestSupport.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// Connections open at once at most; more wait in the listen backlog until one ends.
enum { max_connections = 256, listen_backlog = 256, relay_buffer_size = 64 * 1024 };

struct ctls_front {
    SSL_CTX *context;
    int listener;
    uint16_t port;
    uint16_t backend_port;
    pthread_t acceptor;
    // Guards everything below: open client sockets (so stop can wake their threads), live thread
    // count, the stop flag and the handshake counters.
    pthread_mutex_t lock;
    pthread_cond_t threads_done;
    pthread_cond_t handshake_done;
    int sockets[max_connections];
    int live_threads;
    int stopping;
    int completed;
    int failed;
};

typedef struct {
    ctls_front *front;
    int client;
    int slot;
} connection;

static void set_error(char *error, size_t size, const char *what) {
    unsigned long code = ERR_get_error();
    char reason[256] = "";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    snprintf(error, size, "%s %s", what, reason);
}

static int connect_backend(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    return fd;
}

/// Writes all of `bytes` to the backend; -1 when it is gone.
static int send_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t sent = send(fd, bytes, count, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        bytes += sent;
        count -= (size_t)sent;
    }
    return 0;
}

/// Moves bytes both ways until either side closes.
static void relay(SSL *ssl, int client, int backend) {
    unsigned char buffer[relay_buffer_size];
    for (;;) {
        if (SSL_pending(ssl) == 0) {
            struct pollfd fds[2] = {{.fd = client, .events = POLLIN}, {.fd = backend, .events = POLLIN}};
            if (poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (fds[1].revents) {
                ssize_t got = recv(backend, buffer, sizeof buffer, 0);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) return;
                if (SSL_write(ssl, buffer, (int)got) <= 0) return;
                continue;
            }
            if (!fds[0].revents) continue;
        }
        int got = SSL_read(ssl, buffer, sizeof buffer);
        if (got <= 0) {
            int reason = SSL_get_error(ssl, got);
            if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE) continue;
            return;
        }
        if (send_all(backend, buffer, (size_t)got) != 0) return;
    }
}

static void *serve(void *argument) {
    connection *job = argument;
    ctls_front *front = job->front;
    // SSL_write on a socket the client closed raises SIGPIPE; blocked here, it stays pending on this
    // thread and dies with it instead of killing the test process.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);

    SSL *ssl = SSL_new(front->context);
    int accepted = ssl && SSL_set_fd(ssl, job->client) == 1 && SSL_accept(ssl) == 1;
    pthread_mutex_lock(&front->lock);
    if (accepted) front->completed += 1; else front->failed += 1;
    pthread_cond_broadcast(&front->handshake_done);
    pthread_mutex_unlock(&front->lock);
    if (accepted) {
        int backend = connect_backend(front->backend_port);
        if (backend >= 0) {
            relay(ssl, job->client, backend);
            close(backend);
        }
        SSL_shutdown(ssl);
    }
    SSL_free(ssl);
    ERR_clear_error();

    pthread_mutex_lock(&front->lock);
    front->sockets[job->slot] = -1;
    close(job->client);
    front->live_threads -= 1;
    pthread_cond_broadcast(&front->threads_done);
    pthread_mutex_unlock(&front->lock);
    free(job);
    return NULL;
}

static void *accept_loop(void *argument) {
    ctls_front *front = argument;
    for (;;) {
        int client = accept4(front->listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return NULL;
        }
        int yes = 1;
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
        connection *job = malloc(sizeof *job);
        pthread_mutex_lock(&front->lock);
        int slot = -1;
        for (int i = 0; i < max_connections && !front->stopping; i++) {
            if (front->sockets[i] < 0) { slot = i; break; }
        }
        if (slot < 0 || !job) {
            pthread_mutex_unlock(&front->lock);
            free(job);
            close(client);
            if (front->stopping) return NULL;
            continue;
        }
        front->sockets[slot] = client;
        front->live_threads += 1;
        pthread_mutex_unlock(&front->lock);
        *job = (connection){.front = front, .client = client, .slot = slot};
        pthread_t thread;
        if (pthread_create(&thread, NULL, serve, job) != 0) {
            pthread_mutex_lock(&front->lock);
            front->sockets[slot] = -1;
            front->live_threads -= 1;
            pthread_mutex_unlock(&front->lock);
            close(client);
            free(job);
            continue;
        }
        pthread_detach(thread);
    }
}

ctls_front *ctls_front_start(const char *chain_file, const char *key_file, const char *client_ca_file,
                             uint16_t backend_port, char *error, size_t error_size) {
    ctls_front *front = calloc(1, sizeof *front);
    if (!front) return NULL;
    front->listener = -1;
    front->backend_port = backend_port;
    for (int i = 0; i < max_connections; i++) front->sockets[i] = -1;
    pthread_mutex_init(&front->lock, NULL);
    pthread_cond_init(&front->threads_done, NULL);
    pthread_cond_init(&front->handshake_done, NULL);

    front->context = SSL_CTX_new(TLS_server_method());
    if (!front->context) { set_error(error, error_size, "SSL_CTX_new:"); goto fail; }
    if (SSL_CTX_use_certificate_chain_file(front->context, chain_file) != 1) {
        set_error(error, error_size, "certificate chain:");
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(front->context, key_file, SSL_FILETYPE_PEM) != 1) {
        set_error(error, error_size, "private key:");
        goto fail;
    }
    if (client_ca_file) {
        if (SSL_CTX_load_verify_locations(front->context, client_ca_file, NULL) != 1) {
            set_error(error, error_size, "client CA file:");
            goto fail;
        }
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(client_ca_file);
        if (names) SSL_CTX_set_client_CA_list(front->context, names);
        SSL_CTX_set_verify(front->context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }

    front->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (front->listener < 0) { snprintf(error, error_size, "socket: %s", strerror(errno)); goto fail; }
    int yes = 1;
    setsockopt(front->listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(front->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(front->listener, listen_backlog) != 0 ||
        getsockname(front->listener, (struct sockaddr *)&address, &length) != 0) {
        snprintf(error, error_size, "listen: %s", strerror(errno));
        goto fail;
    }
    front->port = ntohs(address.sin_port);
    if (pthread_create(&front->acceptor, NULL, accept_loop, front) != 0) {
        snprintf(error, error_size, "pthread_create failed");
        goto fail;
    }
    return front;

fail:
    if (front->listener >= 0) close(front->listener);
    if (front->context) SSL_CTX_free(front->context);
    pthread_mutex_destroy(&front->lock);
    pthread_cond_destroy(&front->threads_done);
    pthread_cond_destroy(&front->handshake_done);
    free(front);
    return NULL;
}

uint16_t ctls_front_port(const ctls_front *front) { return front->port; }

int ctls_front_handshakes_completed(ctls_front *front) {
    pthread_mutex_lock(&front->lock);
    int count = front->completed;
    pthread_mutex_unlock(&front->lock);
    return count;
}

int ctls_front_handshakes_failed(ctls_front *front) {
    pthread_mutex_lock(&front->lock);
    int count = front->failed;
    pthread_mutex_unlock(&front->lock);
    return count;
}

int ctls_front_wait_for_handshakes(ctls_front *front, int count, int timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec += 1; deadline.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&front->lock);
    while (front->completed + front->failed < count) {
        if (pthread_cond_timedwait(&front->handshake_done, &front->lock, &deadline) == ETIMEDOUT) break;
    }
    int ended = front->completed + front->failed;
    pthread_mutex_unlock(&front->lock);
    return ended >= count;
}

void ctls_front_stop(ctls_front *front) {
    if (!front) return;
    pthread_mutex_lock(&front->lock);
    front->stopping = 1;
    pthread_mutex_unlock(&front->lock);
    // shutdown() wakes the acceptor blocked in accept() and every relay blocked in poll() or SSL_read().
    shutdown(front->listener, SHUT_RDWR);
    pthread_join(front->acceptor, NULL);
    close(front->listener);
    pthread_mutex_lock(&front->lock);
    for (int i = 0; i < max_connections; i++) {
        if (front->sockets[i] >= 0) shutdown(front->sockets[i], SHUT_RDWR);
    }
    while (front->live_threads > 0) pthread_cond_wait(&front->threads_done, &front->lock);
    pthread_mutex_unlock(&front->lock);
    SSL_CTX_free(front->context);
    pthread_mutex_destroy(&front->lock);
    pthread_cond_destroy(&front->threads_done);
    pthread_cond_destroy(&front->handshake_done);
    free(front);
}
