// OpenSSL's libcrypto, for the SHA-256 that names disk cache files: EVP_MD_fetch once, then EVP_Digest
// (the one-shot SHA256() fetches the algorithm again on every call, which costs microseconds).
#include <openssl/evp.h>
