/* bench.h - benchmarks of the compiler's accelerator lowering (host/bench_conv.c).
 *
 * Both take argv[0] = their name and return an exit status (0 success, 1 failure of the run or
 * of verification, 2 bad usage), printing one JSON line per layer or network to stdout.
 */
#ifndef VTA_HOST_BENCH_H
#define VTA_HOST_BENCH_H

/* `vta bench conv2d`: the ResNet-18 convolution layers of the published benchmark (C1-C11). */
int vta_bench_conv2d(int argc, char **argv);
/* `vta bench resnet18`: the whole ResNet-18 v1 conv/dense stack. */
int vta_bench_resnet18(int argc, char **argv);
/* `vta bench overhead`: the host's cost of one run on a backend (host/bench_overhead.c). */
int vta_bench_overhead(int argc, char **argv);
/* Runs a benchmark once per backend of the comma-separated list in argv[at] ("--backend=A,B")
 * or argv[at + 1] (after "--backend"), printing each backend's lines and then, for each line
 * that reports cycles on the first backend and another one, a comparison line (cycle error
 * against the first backend, ratio of simulated cycles per second). */
int vta_bench_compare(int argc, char **argv, int at, int (*run)(int, char **));

#endif
