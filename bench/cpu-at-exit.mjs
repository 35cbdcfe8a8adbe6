// Preloaded by bench/startup.bench.ts (`node --import`): prints the process's CPU time at exit.
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\norrery-bench-cpu-ms ${(user + system) / 1000}\n`);
});
