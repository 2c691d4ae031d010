/* slurm_local.h - test support: a throw-away single-node Slurm (munged, slurmctld, slurmd on
 * free ports, all state in one folder) started by scripts/slurm-local.sh for the tests that hand
 * jobs to the executor's Slurm engine (test_executor, test_sweep, test_regress).
 */
#ifndef VTA_TESTS_SLURM_LOCAL_H
#define VTA_TESTS_SLURM_LOCAL_H

/* Starts the cluster with its state in DIR (DIR.log gets the start-up output) and points
 * SLURM_CONF at it. Returns 0, or -1 after printing the start-up log on stderr. */
int test_slurm_start(const char *dir);

/* Stops the cluster test_slurm_start started, if any, and unsets SLURM_CONF. Returns 0, or -1
 * when the daemons did not stop cleanly. */
int test_slurm_stop(void);

#endif
