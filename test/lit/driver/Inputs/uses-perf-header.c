// Compiles only where <perf/perf.h> is on the include path.
#include <perf/perf.h>

int main(void) { return 0; }
