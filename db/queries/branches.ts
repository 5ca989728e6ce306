// A company's sucursales and their terminales (positions 1-3 and 4-8 of the consecutivo), with the
// names people know them by. Company-wide (the same in sandbox and live, like the default branch).
import type { Knex } from 'knex';
import type { BranchDefinition } from '../../domain/company-setup.ts';

interface BranchRow {
  code: string;
  name: string;
}
interface TerminalRow extends BranchRow {
  branchCode: string;
}

/** Every branch of the company with its terminals, by code. */
export async function listBranches(db: Knex, companyId: number): Promise<BranchDefinition[]> {
  const [branches, terminals] = (await Promise.all([
    db('company_branches').where({ companyId }).orderBy('code').select('code', 'name'),
    db('company_terminals')
      .where({ companyId })
      .orderBy(['branch_code', 'code'])
      .select('branchCode', 'code', 'name'),
  ])) as [BranchRow[], TerminalRow[]];
  return branches.map((b) => ({
    code: b.code,
    name: b.name,
    terminals: terminals.filter((t) => t.branchCode === b.code).map((t) => ({ code: t.code, name: t.name })),
  }));
}

/** Adds a branch with its terminals; false when the company already has one with that code. */
export async function insertBranch(trx: Knex, companyId: number, b: BranchDefinition): Promise<boolean> {
  const inserted = await trx('company_branches')
    .insert({ companyId, code: b.code, name: b.name })
    .onConflict(['company_id', 'code'])
    .ignore()
    .returning('code');
  if (inserted.length === 0) return false;
  await insertTerminals(trx, companyId, b.code, b.terminals);
  return true;
}

async function insertTerminals(
  trx: Knex,
  companyId: number,
  branchCode: string,
  terminals: BranchDefinition['terminals'],
): Promise<void> {
  if (terminals.length === 0) return;
  await trx('company_terminals').insert(
    terminals.map((t) => ({ companyId, branchCode, code: t.code, name: t.name })),
  );
}

/** Renames a branch and/or replaces its terminals (the list given becomes the whole list). */
export async function updateBranch(
  trx: Knex,
  companyId: number,
  code: string,
  change: { name?: string; terminals?: BranchDefinition['terminals'] },
): Promise<void> {
  if (change.name !== undefined)
    await trx('company_branches')
      .where({ companyId, code })
      .update({ name: change.name, updatedAt: trx.fn.now() });
  if (change.terminals !== undefined) {
    await trx('company_terminals').where({ companyId, branchCode: code }).delete();
    await insertTerminals(trx, companyId, code, change.terminals);
  }
}

/** Locks the company's row: branch writes and default changes of one company run one at a time. */
export async function lockCompany(trx: Knex, companyId: number): Promise<void> {
  await trx('companies').where({ id: companyId }).forUpdate().first('id');
}
