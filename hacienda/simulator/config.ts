// Environment of the standalone simulator (npm run sandbox); only main.ts uses it. Every knob can
// be set as SIMULATOR_<KNOB_IN_SCREAMING_SNAKE_CASE>, e.g. processingDelayMs →
// SIMULATOR_PROCESSING_DELAY_MS, serverErrorRate → SIMULATOR_SERVER_ERROR_RATE. Also:
//   SIMULATOR_USERS  "user:password,user2:password2" (default: accept any credentials)
//   SIMULATOR_HOST   listen address (default 127.0.0.1; the port is SIMULATOR_PORT in config/index.ts)
import { ConfigError } from '../../config/index.ts';
import { KNOB_NAMES, knobKind, validateKnobs } from './knobs.ts';
import type { SimulatorKnobs } from './knobs.ts';

export interface SimulatorEnvConfig {
  host: string;
  users: Record<string, string> | null;
  knobs: Partial<SimulatorKnobs>;
}

export const knobEnvName = (knob: string): string =>
  `SIMULATOR_${knob.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;

export function loadSimulatorConfig(
  env: Record<string, string | undefined> = process.env,
): SimulatorEnvConfig {
  const knobs: Record<string, number | boolean> = {};
  for (const name of KNOB_NAMES) {
    const variable = knobEnvName(name);
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    if (knobKind(name) === 'bool') {
      const v = raw.toLowerCase();
      if (!['1', '0', 'true', 'false', 'yes', 'no'].includes(v))
        throw new ConfigError(variable, 'expected true or false');
      knobs[name] = ['1', 'true', 'yes'].includes(v);
    } else {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new ConfigError(variable, `expected a number, got "${raw}"`);
      knobs[name] = n;
    }
  }
  const checked = validateKnobs(knobs);
  if (!checked.ok) {
    const [first] = checked.errors;
    const knob = first?.split(':')[0] ?? '';
    throw new ConfigError(knobEnvName(knob), first?.slice(knob.length + 2) ?? 'invalid');
  }
  let users: Record<string, string> | null = null;
  const rawUsers = env.SIMULATOR_USERS;
  if (rawUsers) {
    users = {};
    for (const pair of rawUsers.split(',')) {
      const at = pair.indexOf(':');
      if (at <= 0)
        throw new ConfigError('SIMULATOR_USERS', 'expected "user:password" pairs separated by commas');
      users[pair.slice(0, at).trim()] = pair.slice(at + 1);
    }
  }
  return { host: env.SIMULATOR_HOST || '127.0.0.1', users, knobs: checked.knobs };
}
