// The signing stage's measuring process: runs bench/sign.ts's runSignBench() and prints its
// figures as one JSON line. A process of its own keeps the suite answering Ctrl-C while the
// synchronous signing loops run, and keeps the suite's own heap and timers out of the figure.
import { runSignBench } from '../sign.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? '3');
process.stdout.write(`${JSON.stringify(await runSignBench({ seconds }))}\n`);
