// LeakSanitizer suppressions for the tests that load Ceph's libraries.
// Defined in a source of the test binary itself: an inline function in a
// header is emitted only when called, and tests link dynamically, so in a
// shared library the sanitizer runtime would not see it.
//
// Not run under ThreadSanitizer: Ceph's libraries are not instrumented, so
// their threads' own work (std::string copies in libstdc++ among them)
// shows up as races; suppressing those would also hide ours.

// librados/librbd keep some allocations until process exit.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:librados\nleak:librbd\nleak:libceph-common\nleak:libstdc++\n";
}
