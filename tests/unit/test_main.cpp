// The unit tests' entry point. Test cases live in one file per module under tests/unit/.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
