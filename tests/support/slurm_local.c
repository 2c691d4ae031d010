/* slurm_local.c - the local Slurm of slurm_local.h. One cluster per test process at a time; the
 * script's watchdog stops the daemons if the process dies before test_slurm_stop. */
#include "support/slurm_local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[600];
static int g_up;

int test_slurm_start(const char *dir) {
  char cmd[2000];
  if (g_up || strlen(dir) >= sizeof g_dir) return -1;
  snprintf(g_dir, sizeof g_dir, "%s", dir);
  snprintf(cmd, sizeof cmd, "scripts/slurm-local.sh start %s %d > %s.log 2>&1", g_dir,
           (int)getpid(), g_dir);
  if (system(cmd) != 0) {
    fprintf(stderr, "the local Slurm did not start; %s.log says:\n", g_dir);
    snprintf(cmd, sizeof cmd, "tail -20 %s.log >&2", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "(no log)\n");
    return -1;
  }
  snprintf(cmd, sizeof cmd, "%s/slurm.conf", g_dir);
  setenv("SLURM_CONF", cmd, 1);
  g_up = 1;
  return 0;
}

int test_slurm_stop(void) {
  char cmd[800];
  if (!g_up) return 0;
  g_up = 0;
  unsetenv("SLURM_CONF");
  snprintf(cmd, sizeof cmd, "scripts/slurm-local.sh stop %s >/dev/null 2>&1", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}
