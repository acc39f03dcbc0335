// Preloaded by the benches (`--require tools/bench/trace-gc.cjs` in NODE_OPTIONS, which refuses `--trace-gc` itself):
// V8 prints a line for each garbage collection of the process to its stdout, counted by `gcCountsIn` (bench-env.ts).
require('node:v8').setFlagsFromString('--trace-gc');
