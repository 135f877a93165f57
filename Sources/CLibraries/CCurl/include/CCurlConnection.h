#ifndef CCURL_CONNECTION_H
#define CCURL_CONNECTION_H

// What the HTTP loader needs to judge a pooled connection before libcurl sends a request on it: the
// typed setopt calls for the pre-request and close-socket callbacks, the two ends of a socket in a form
// Swift can compare, and a non-blocking peek at what is waiting to be read.

#include <stdbool.h>
#include <stdint.h>
#include <curl/curl.h>

CURLcode ccurl_easy_setopt_prereq_function(CURL *handle, curl_prereq_callback callback);
CURLcode ccurl_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback callback);

/// CURL_PREREQFUNC_OK and CURL_PREREQFUNC_ABORT as the callback's return type.
static const int ccurl_prereq_ok = CURL_PREREQFUNC_OK;
static const int ccurl_prereq_abort = CURL_PREREQFUNC_ABORT;

/// The two ends of a TCP connection as plain numbers (addresses in network byte order, IPv4 in the
/// first 4 bytes of `local`/`remote` with the rest zero), so two descriptions of one connection compare
/// equal field by field.
typedef struct ccurl_endpoints {
    int32_t family;
    uint16_t local_port;
    uint16_t remote_port;
    uint64_t local[2];
    uint64_t remote[2];
} ccurl_endpoints;

/// The endpoints libcurl names in its pre-request callback (numeric addresses as text, as
/// CURLINFO_PRIMARY_IP and CURLINFO_LOCAL_IP give them). False when an address does not parse.
bool ccurl_endpoints_from_text(const char *remote_ip, int remote_port, const char *local_ip, int local_port,
                               ccurl_endpoints *out);

/// The endpoints of the connected socket `fd` (getsockname and getpeername): 0, or the error that says
/// why `fd` is not a connected IPv4 or IPv6 socket (ENOTCONN while it is still connecting, EBADF or
/// ENOTSOCK when the descriptor is closed or is something else now). Returned rather than left in
/// `errno`, which the Swift caller could not read reliably.
int ccurl_endpoints_of_socket(int fd, ccurl_endpoints *out);

/// What a connected socket holds for its reader right now.
typedef enum ccurl_socket_input {
    /// Nothing to read: the peer sent nothing since the last read, and has not closed.
    ccurl_socket_input_none = 0,
    /// Bytes wait to be read.
    ccurl_socket_input_bytes = 1,
    /// The peer closed its end (a FIN waits to be read).
    ccurl_socket_input_closed = 2,
    /// The socket is in error (reset by the peer, say).
    ccurl_socket_input_error = 3,
} ccurl_socket_input;

/// Looks, without consuming or waiting, at what `fd` holds: one recv(MSG_PEEK | MSG_DONTWAIT) of one
/// byte, which answers every case in a single system call (EAGAIN: nothing; 1: bytes; 0: the peer's
/// FIN; another error: a broken socket).
ccurl_socket_input ccurl_socket_pending_input(int fd);

#endif
