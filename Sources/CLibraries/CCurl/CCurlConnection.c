#include "CCurlConnection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

CURLcode ccurl_easy_setopt_prereq_function(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

CURLcode ccurl_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
}

/// Parses a numeric IPv4 or IPv6 address into `address` (16 bytes, zeroed first); its family, or 0.
static int parse_address(const char *text, uint64_t address[2]) {
    memset(address, 0, 2 * sizeof(uint64_t));
    if (text == NULL) return 0;
    if (inet_pton(AF_INET, text, address) == 1) return AF_INET;
    if (inet_pton(AF_INET6, text, address) == 1) return AF_INET6;
    return 0;
}

bool ccurl_endpoints_from_text(const char *remote_ip, int remote_port, const char *local_ip, int local_port,
                               ccurl_endpoints *out) {
    memset(out, 0, sizeof *out);
    int remote_family = parse_address(remote_ip, out->remote);
    int local_family = parse_address(local_ip, out->local);
    if (remote_family == 0 || remote_family != local_family) return false;
    if (remote_port <= 0 || remote_port > 65535 || local_port <= 0 || local_port > 65535) return false;
    out->family = remote_family;
    out->remote_port = (uint16_t)remote_port;
    out->local_port = (uint16_t)local_port;
    return true;
}

/// Copies the address and port of `storage` into `address` and `port`; its family, or 0 for another family.
static int copy_address(const struct sockaddr_storage *storage, uint64_t address[2], uint16_t *port) {
    memset(address, 0, 2 * sizeof(uint64_t));
    if (storage->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)storage;
        memcpy(address, &v4->sin_addr, sizeof v4->sin_addr);
        *port = ntohs(v4->sin_port);
        return AF_INET;
    }
    if (storage->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)storage;
        memcpy(address, &v6->sin6_addr, sizeof v6->sin6_addr);
        *port = ntohs(v6->sin6_port);
        return AF_INET6;
    }
    return 0;
}

int ccurl_endpoints_of_socket(int fd, ccurl_endpoints *out) {
    memset(out, 0, sizeof *out);
    struct sockaddr_storage local, remote;
    socklen_t local_length = sizeof local, remote_length = sizeof remote;
    if (getsockname(fd, (struct sockaddr *)&local, &local_length) != 0) return errno;
    if (getpeername(fd, (struct sockaddr *)&remote, &remote_length) != 0) return errno;
    int local_family = copy_address(&local, out->local, &out->local_port);
    int remote_family = copy_address(&remote, out->remote, &out->remote_port);
    if (local_family == 0 || local_family != remote_family) return EAFNOSUPPORT;
    out->family = local_family;
    return 0;
}

ccurl_socket_input ccurl_socket_pending_input(int fd) {
    char byte;
    for (;;) {
        ssize_t peeked = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (peeked > 0) return ccurl_socket_input_bytes;
        if (peeked == 0) return ccurl_socket_input_closed;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return ccurl_socket_input_none;
        return ccurl_socket_input_error;
    }
}
