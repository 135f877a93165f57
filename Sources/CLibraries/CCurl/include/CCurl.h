#ifndef CCURL_H
#define CCURL_H

// libcurl for Swift. curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are
// variadic, which Swift cannot call; these typed wrappers forward one argument type each.

#include <curl/curl.h>
#include "CCurlConnection.h"

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// Strings are copied by libcurl (except CURLOPT_ERRORBUFFER, which must outlive the handle).
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_share(CURL *handle, CURLSH *share);
CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback);
CURLcode ccurl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback);
/// Hands libcurl `length` bytes at `data` for a blob option (CURLOPT_CAINFO_BLOB, CURLOPT_SSLCERT_BLOB,
/// ...); libcurl copies them (CURL_BLOB_COPY), so they need to live only for this call.
CURLcode ccurl_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode ccurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

/// The value libcurl's opensocket callback returns to refuse a connection.
static const curl_socket_t ccurl_socket_bad = CURL_SOCKET_BAD;

/// CURLVERSION_NOW and the CURLAUTH_* bits are macros Swift does not import.
static const CURLversion ccurl_version_now = CURLVERSION_NOW;
static const long ccurl_auth_basic_or_digest = (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST);

#endif
