/* fe25519_test.cl: field_test.h on fe25519.h. */
#include "fe25519.h"
#define FE(op) fe25519_##op
#define NL 8
#define TEST_SMALL 121665u
#include "field_test.h"
