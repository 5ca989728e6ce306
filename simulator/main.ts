// Runs the Hacienda simulator on its own (npm run sandbox): reads its environment (config.ts),
// listens on SIMULATOR_PORT (default 4010), prints the URLs to point the service at, closes on
// SIGTERM/SIGINT.
import { existsSync } from 'node:fs';
import { buildSimulator } from './app.ts';
import { knobEnvName, loadSimulatorConfig, SimulatorConfigError } from './config.ts';
import type { SimulatorEnvConfig } from './config.ts';

let sim: SimulatorEnvConfig;
try {
  sim = loadSimulatorConfig();
} catch (err) {
  if (!(err instanceof SimulatorConfigError)) throw err;
  console.error(`Simulator configuration error: ${err.message}`);
  process.exit(1);
}
const schemaDir = existsSync(sim.xsdDir) ? sim.xsdDir : null;
const app = await buildSimulator({
  ...sim.knobs,
  users: sim.users,
  adminToken: sim.adminToken,
  cabysCatalogue: sim.cabysCatalogue,
  trustedCertificates: sim.trustedCertificates,
  schemaDir,
  logger: { level: sim.logLevel },
});
await app.listen({ port: sim.port, host: sim.host });

const base = `http://${sim.host}:${sim.port}`;
const knobs = app.simulator.knobs();
console.log(`Hacienda simulator listening on ${base}
  sandbox    token  ${base}/auth/realms/rut-stag/protocol/openid-connect/token  (client_id api-stag)
             API    ${base}/recepcion-sandbox/v1
  production token  ${base}/auth/realms/rut/protocol/openid-connect/token  (client_id api-prod)
             API    ${base}/recepcion/v1
  admin             ${base}/_simulator/config | /_simulator/documents | /_simulator/stats  (${sim.adminToken ? 'bearer SIMULATOR_ADMIN_TOKEN' : 'open: no SIMULATOR_ADMIN_TOKEN'})
  schema check      ${schemaDir && knobs.checkSchema ? schemaDir : `off (${schemaDir ? knobEnvName('checkSchema') : 'XSD_DIR not found'})`}
  credentials       ${sim.users ? `${Object.keys(sim.users).length} configured user(s)` : 'any username and password'}
  CABYS catalogue   ${sim.cabysCatalogue.size} codes (${sim.cabysSource})
  trusted CAs       the sandbox CA${sim.trustedCertificates.length ? ` + ${sim.trustedCertificates.length} from SIMULATOR_TRUSTED_CA` : ''}
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
