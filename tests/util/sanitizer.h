// BLK_TEST_ASAN is defined (as 1) when the test is compiled with
// AddressSanitizer: gcc says so with __SANITIZE_ADDRESS__, clang only
// through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define BLK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLK_TEST_ASAN 1
#endif
#endif
