// The command-line tool (`npm run cli -- …`): companies, API keys and services. Every
// command accepts --json so scripts can use its output.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.ts';
import { registerCompanyCommands } from './commands/company.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerServiceCommands } from './commands/service.ts';
import { registerDocumentCommands } from './commands/document.ts';
import { registerImportCommand } from './commands/import.ts';
import { registerReceivedCommands } from './commands/received.ts';
import { CliError } from './context.ts';

const program = new Command('factura')
  .description('Operate the e-invoicing service: companies, keys, services, documents')
  .exitOverride()
  .showHelpAfterError();

registerCompanyCommands(program);
registerKeyCommands(program);
registerServiceCommands(program);
registerDocumentCommands(program);
registerImportCommand(program);
registerReceivedCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof CliError || err instanceof ConfigError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
