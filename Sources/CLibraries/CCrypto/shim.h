// OpenSSL's libcrypto, for the SHA-256 that names disk cache files.
// Only <openssl/sha.h> is exposed: the one-shot SHA256() is all we use.
#include <openssl/sha.h>
