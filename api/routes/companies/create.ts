// POST /api/v1/companies: a signed-in person registers a company and becomes its owner. The name
// and the economic activity the body leaves out are taken from Hacienda's taxpayer register when
// it answers (else the body must give the name). Plan pyme, sandbox only; no keys are made.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { createCompany, credentialSummaries } from '../../../db/queries/companies.ts';
import { addMembership } from '../../../db/queries/memberships.ts';
import { resolveIdentification } from '../../../domain/identification.ts';
import type { Taxpayer } from '../../../hacienda/public-data/index.ts';
import { lookupTaxpayer, publicDataOf } from '../../../operations/public-data.ts';
import { personOf } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { companyObject } from '../../presenters/company.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CompanyObject } from '../../schemas/company.ts';
import type { AppDeps } from '../../deps.ts';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const CreateCompanyBody = Type.Object(
  {
    identification: Type.String({ minLength: 1, maxLength: 30, examples: ['3-101-123456'] }),
    id_type: Type.Optional(Type.String({ enum: ['01', '02', '03', '04'] })),
    name: Type.Optional(Text(100)),
    commercial_name: Type.Optional(Text(80)),
    activity_code: Type.Optional(Type.String({ pattern: '^\\d{6}$' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 160 })),
    phone: Type.Optional(Type.String({ pattern: '^\\d{8,20}$' })),
    location: Type.Optional(
      Type.Object(
        {
          provincia: Type.String({ pattern: '^\\d$' }),
          canton: Type.String({ pattern: '^\\d{2}$' }),
          distrito: Type.String({ pattern: '^\\d{2}$' }),
          barrio: Type.Optional(Type.String({ maxLength: 50 })),
          otras_senas: Text(250),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const CreatedCompany = Type.Intersect([CompanyObject, Type.Object({ role: Type.Literal('owner') })]);

type Body = Static<typeof CreateCompanyBody>;

/** Hacienda's record of the number, or null when it does not know it or cannot be reached. */
async function taxpayerOf(deps: AppDeps, request: FastifyRequest, number: string): Promise<Taxpayer | null> {
  try {
    return (await lookupTaxpayer(deps.db, publicDataOf(deps.config), number)).taxpayer;
  } catch (err) {
    request.log.info({ err }, 'taxpayer lookup gave nothing; the body is used as given');
    return null;
  }
}

function identificationOf(b: Body, taxpayer: Taxpayer | null): { type: string; number: string } {
  const r = resolveIdentification(b.identification, b.id_type ?? taxpayer?.identificationType ?? null, {
    typeField: 'id_type',
  });
  if (!r.ok)
    throw validationError([
      { path: b.id_type ? '/identification' : '/id_type', code: r.code, message: r.message },
    ]);
  return { type: r.type, number: r.number };
}

const primaryActivity = (t: Taxpayer | null) =>
  t?.activities.find((a) => a.status === 'A' && a.type === 'P')?.code ??
  t?.activities.find((a) => a.status === 'A')?.code ??
  null;

export default async function createCompanyRoute(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/companies',
    {
      config: { person: true },
      schema: {
        tags: ['company'],
        summary: 'Register a company (the signed-in person becomes its owner)',
        body: CreateCompanyBody,
        response: { 201: CreatedCompany, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const person = personOf(request);
      const b = request.body;
      const taxpayer = await taxpayerOf(deps, request, b.identification);
      const id = identificationOf(b, taxpayer);
      const name = b.name ?? taxpayer?.name ?? null;
      if (!name)
        throw validationError([
          { path: '/name', code: 'required', message: "is required: Hacienda's register did not give it" },
        ]);
      const company = await deps.db
        .transaction(async (trx) => {
          const c = await createCompany(trx, {
            name: b.commercial_name ?? name,
            legalName: name,
            commercialName: b.commercial_name ?? null,
            plan: 'pyme',
            idType: id.type,
            idNumber: id.number,
            activityCode: b.activity_code ?? primaryActivity(taxpayer),
            provincia: b.location?.provincia ?? null,
            canton: b.location?.canton ?? null,
            distrito: b.location?.distrito ?? null,
            barrio: b.location?.barrio ?? null,
            otrasSenas: b.location?.otras_senas ?? null,
            phone: b.phone ?? null,
            emails: b.email ? [b.email] : [],
          });
          await addMembership(trx, c.id, person.userId, 'owner');
          return c;
        })
        .catch((err: unknown) => {
          if ((err as { constraint?: string }).constraint === 'companies_id_number_key')
            throw new ApiError(
              'company_exists',
              `A company with identification ${id.number} is already registered`,
              {
                errors: [
                  { path: '/identification', code: 'company_exists', message: 'is already registered' },
                ],
              },
            );
          throw err;
        });
      const body = companyObject(company, false, await credentialSummaries(deps.db, company.id));
      return reply.code(201).send({ ...body, role: 'owner' as const });
    },
  );
}
