/* fe448_test.cl: field_test.h on fe448.h. */
#include "fe448.h"
#define FE(op) fe448_##op
#define NL 14
#define TEST_SMALL 39081u
#include "field_test.h"
