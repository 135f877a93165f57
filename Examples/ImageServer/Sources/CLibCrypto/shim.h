// HMAC-SHA256 (one-shot HMAC(), not deprecated in OpenSSL 3) and constant-time comparison.
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
