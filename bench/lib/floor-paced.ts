// The floor at a light load: the floor's three raw programs (floor-sign.ts, floor-http.ts,
// floor-rows.ts) doing one invoice at a time, `rate` invoices a second, as a service does at light
// load, instead of back to back or many rows to a statement. A process that sleeps between
// invoices pays, for each one, a wake-up and a statement or request of its own, so the same work
// costs several times its back-to-back CPU (16.6 × in the full run of 2026-11-28); the light-load
// figure of the service is printed beside this floor as well as beside its own full-load figure
// (bench/run.ts).

/** Runs `once` for invoices 0 … n-1, invoice i due i ÷ rate seconds after the first, one at a time. */
export async function paced(n: number, rate: number, once: (i: number) => unknown): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await once(i);
  }
}
