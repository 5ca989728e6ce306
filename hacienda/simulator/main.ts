// Runs the Hacienda simulator on its own (npm run sandbox): reads the configuration, listens on
// SIMULATOR_PORT (default 4010), prints the URLs to point the service at, closes on SIGTERM/SIGINT.
import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/index.ts';
import { buildSimulator } from './app.ts';
import { knobEnvName, loadSimulatorConfig } from './config.ts';

const config = loadConfig();
const sim = loadSimulatorConfig();
const schemaDir = existsSync(config.xsdDir) ? config.xsdDir : null;
const app = await buildSimulator({
  ...sim.knobs,
  users: sim.users,
  schemaDir,
  logger: { level: config.logLevel === 'silent' ? 'silent' : config.logLevel },
});
await app.listen({ port: config.simulator.port, host: sim.host });

const base = `http://${sim.host}:${config.simulator.port}`;
const knobs = app.simulator.knobs();
console.log(`Hacienda simulator listening on ${base}
  sandbox    token  ${base}/auth/realms/rut-stag/protocol/openid-connect/token  (client_id api-stag)
             API    ${base}/recepcion-sandbox/v1
  production token  ${base}/auth/realms/rut/protocol/openid-connect/token  (client_id api-prod)
             API    ${base}/recepcion/v1
  admin             ${base}/_simulator/config | /_simulator/documents | /_simulator/stats
  schema check      ${schemaDir && knobs.checkSchema ? schemaDir : `off (${schemaDir ? knobEnvName('checkSchema') : 'XSD_DIR not found'})`}
  credentials       ${sim.users ? `${Object.keys(sim.users).length} configured user(s)` : 'any username and password'}
  processing delay  ${knobs.processingDelayMs} ms`);

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
