// The light stage's settling (bench/stages/light.ts): the idle window starts only once V8's
// memory reducer, which can wait up to 100 s after a process's last full collection, has had its
// time, and the service has then been quiet for 20 s.
import { describe, expect, it } from 'vitest';
import { settleUntilQuiet } from '../bench/stages/light.ts';

/** Runs the settling against a list of per-step loads (% of one core); returns the steps taken. */
async function settle(min: number, max: number, loads: number[]) {
  const steps: number[] = [];
  const waited = await settleUntilQuiet(min, max, async (seconds) => {
    steps.push(seconds);
    return loads[steps.length - 1] ?? 0;
  });
  return { waited, steps };
}

describe('settleUntilQuiet', () => {
  it('waits the minimum even when the service is quiet from the start', async () => {
    const { waited, steps } = await settle(110, 180, []);
    expect(waited).toBe(110);
    expect(steps.every((s) => s === 5)).toBe(true);
  });

  it('goes on past the minimum until 20 s have been under the target', async () => {
    // Quiet, then the memory reducer's burst in the last step before the minimum.
    const loads = [...Array(21).fill(0.5), 7];
    const { waited } = await settle(110, 180, loads);
    expect(waited).toBe(130);
  });

  it('stops at the maximum for a service that never settles, the last step cut short', async () => {
    const { waited, steps } = await settle(10, 12, [50, 50, 50]);
    expect(waited).toBe(12);
    expect(steps).toEqual([5, 5, 2]);
  });

  it('counts a step at the target itself as quiet', async () => {
    const { waited } = await settle(0, 60, [3, 2, 2, 2, 2]);
    expect(waited).toBe(25);
  });
});
