// The company's sucursales and terminales: GET /api/v1/company/branches, POST (a new branch with
// its terminals), PATCH /api/v1/company/branches/{code} (its name, or its whole list of terminals).
// Once any branch is defined, the company's default branch must be one of them and hold the default
// terminal (domain/company-setup.ts defaultsProblems); writes run under the company's lock.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Knex } from 'knex';
import { insertBranch, listBranches, lockCompany, updateBranch } from '../../../db/queries/branches.ts';
import { getCompany } from '../../../db/queries/companies.ts';
import { defaultsProblems, validateBranch, type BranchDefinition } from '../../../domain/company-setup.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound, validationError } from '../../errors.ts';
import { errorResponses } from '../../schemas/common.ts';
import {
  BranchList,
  BranchObject,
  BranchParams,
  CreateBranchBody,
  UpdateBranchBody,
} from '../../schemas/company-setup.ts';
import type { AppDeps } from '../../deps.ts';

/** The branches after a write must keep the defaults among them; else 422 and the write undone. */
async function assertDefaults(trx: Knex, companyId: number, paths: { branch: string; terminal: string }) {
  const company = (await getCompany(trx, companyId))!;
  const problems = defaultsProblems(
    await listBranches(trx, companyId),
    { branch: company.defaultBranch, terminal: company.defaultTerminal },
    paths,
  );
  if (problems.length) throw validationError(problems);
}

async function branchOf(db: Knex, companyId: number, code: string): Promise<BranchDefinition> {
  const found = (await listBranches(db, companyId)).find((b) => b.code === code);
  if (!found) throw notFound('branch', code);
  return found;
}

export default async function companyBranchRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['company'];
  app.get(
    '/api/v1/company/branches',
    {
      config: { scope: 'read:company' },
      schema: {
        tags,
        summary: "The company's branches (sucursales) and their terminals",
        response: { 200: BranchList, ...errorResponses() },
      },
    },
    async (request) => ({ data: await listBranches(db, tenantOf(request).companyId) }),
  );

  app.post(
    '/api/v1/company/branches',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags,
        summary: 'Define a branch with its terminals',
        description:
          'Without terminals the branch gets one, numbered as the company\'s default terminal ("Terminal ' +
          'principal"). Once branches are defined the default branch must be among them (422 unknown_branch).',
        body: CreateBranchBody,
        response: { 201: BranchObject, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const companyId = tenantOf(request).companyId;
      const body = request.body;
      const created = await db.transaction(async (trx) => {
        await lockCompany(trx, companyId);
        const company = (await getCompany(trx, companyId))!;
        const branch: BranchDefinition = {
          code: body.code,
          name: body.name.trim(),
          terminals: (body.terminals ?? [{ code: company.defaultTerminal, name: 'Terminal principal' }]).map(
            (x) => ({
              code: x.code,
              name: x.name.trim(),
            }),
          ),
        };
        const problems = validateBranch(branch);
        if (problems.length) throw validationError(problems);
        if (!(await insertBranch(trx, companyId, branch)))
          throw new ApiError(
            'branch_exists',
            `La sucursal ${body.code} ya existe (branch ${body.code} already exists)`,
          );
        await assertDefaults(trx, companyId, { branch: '/code', terminal: '/terminals' });
        return branch;
      });
      return reply.code(201).send(created);
    },
  );

  app.patch(
    '/api/v1/company/branches/:code',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags,
        summary: "Rename a branch or replace its terminals (the list given becomes the branch's list)",
        params: BranchParams,
        body: UpdateBranchBody,
        response: { 200: BranchObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const companyId = tenantOf(request).companyId;
      const { code } = request.params;
      const body = request.body;
      return db.transaction(async (trx) => {
        await lockCompany(trx, companyId);
        const current = await branchOf(trx, companyId, code);
        const next: BranchDefinition = {
          code,
          name: body.name?.trim() ?? current.name,
          terminals: body.terminals?.map((x) => ({ code: x.code, name: x.name.trim() })) ?? current.terminals,
        };
        const problems = validateBranch(next);
        if (problems.length) throw validationError(problems);
        await updateBranch(trx, companyId, code, {
          ...(body.name !== undefined ? { name: next.name } : {}),
          ...(body.terminals !== undefined ? { terminals: next.terminals } : {}),
        });
        await assertDefaults(trx, companyId, { branch: '/code', terminal: '/terminals' });
        return branchOf(trx, companyId, code);
      });
    },
  );
}
