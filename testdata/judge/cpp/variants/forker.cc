// A fork bomb, bounded: every process forks 10 times in a row (up to 1024
// processes, twice the sandbox's default cap of 512; a refused fork just
// returns -1), then all sleep past the time limit: Time Limit Exceeded.
#include <unistd.h>

int main() {
  for (int round = 0; round < 10; ++round) {
    fork();
  }
  sleep(30);
  return 0;
}
