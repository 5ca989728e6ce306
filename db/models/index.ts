// The models of the tenant data. Every tenant row carries companyId and livemode; queries must
// always filter on both (see db/queries/*).
import { BaseModel } from './base.ts';
import type { OtherTaxInput } from '../../domain/other-taxes.ts';

export class Company extends BaseModel {
  static override tableName = 'companies';
  id!: number;
  name!: string;
  plan!: string;
  legalName!: string;
  commercialName!: string | null;
  idType!: string;
  idNumber!: string;
  activityCode!: string | null;
  provincia!: string | null;
  canton!: string | null;
  distrito!: string | null;
  barrio!: string | null;
  otrasSenas!: string | null;
  phoneCountry!: string | null;
  phone!: string | null;
  emails!: string[];
  defaultBranch!: string;
  defaultTerminal!: string;
  defaultCurrency!: string;
  rateLimitPerSecond!: number | null;
  demo!: boolean;
  /** Accepted documents are emailed to their receptor; replies go to emailReplyTo; blind copies. */
  emailEnabled!: boolean;
  emailReplyTo!: string | null;
  emailBcc!: string[];
  /** When the company passed the go-live checklist (people may then work in live mode). */
  liveEnabledAt!: Date | null;
  createdAt!: Date;
  updatedAt!: Date;
}

export class ApiKey extends BaseModel {
  static override tableName = 'api_keys';
  id!: number;
  companyId!: number;
  livemode!: boolean;
  name!: string;
  scopes!: string[];
  rateLimitPerSecond!: number | null;
  lastUsedAt!: Date | null;
  revokedAt!: Date | null;
  createdAt!: Date;
  updatedAt!: Date;
  secrets?: ApiKeySecret[];

  static override get relationMappings() {
    return {
      secrets: {
        relation: BaseModel.HasManyRelation,
        modelClass: ApiKeySecret,
        join: { from: 'api_keys.id', to: 'api_key_secrets.keyId' },
      },
    };
  }
}

export class ApiKeySecret extends BaseModel {
  static override tableName = 'api_key_secrets';
  id!: number;
  keyId!: number;
  secretHash!: Buffer;
  last4!: string;
  expiresAt!: Date | null;
  createdAt!: Date;
}

export class ClientAddress extends BaseModel {
  static override tableName = 'client_addresses';
  id!: number;
  clientId!: number;
  position!: number;
  provincia!: string;
  canton!: string;
  distrito!: string;
  barrio!: string | null;
  otrasSenas!: string;
  createdAt!: Date;
}

export class Client extends BaseModel {
  static override tableName = 'clients';
  id!: number;
  uuid!: string;
  companyId!: number;
  livemode!: boolean;
  idType!: string;
  idNumber!: string;
  name!: string;
  commercialName!: string | null;
  email!: string | null;
  phoneCountry!: string | null;
  phone!: string | null;
  activityCode!: string | null;
  foreignAddress!: string | null;
  balance!: string;
  metadata!: Record<string, string>;
  /** When it was archived (null: in use): left out of lists, refused for new documents. */
  archivedAt?: Date | string | null;
  createdAt!: Date;
  updatedAt!: Date;
  addresses?: ClientAddress[];

  static override get relationMappings() {
    return {
      addresses: {
        relation: BaseModel.HasManyRelation,
        modelClass: ClientAddress,
        join: { from: 'clients.id', to: 'client_addresses.clientId' },
      },
    };
  }
}

export class Service extends BaseModel {
  static override tableName = 'services';
  id!: number;
  uuid!: string;
  companyId!: number;
  livemode!: boolean;
  cabys!: string;
  description!: string;
  unit!: string;
  taxCode!: string;
  ivaRateCode!: string;
  price!: string;
  commercialCode!: string | null;
  /** Taxes beside the IVA a line of this service carries unless it states its own (jsonb). */
  otherTaxes?: OtherTaxInput[] | null;
  /** When it was archived (null: in use): left out of lists, refused for new documents. */
  archivedAt?: Date | string | null;
  createdAt!: Date;
  updatedAt!: Date;
}

export class Event extends BaseModel {
  static override tableName = 'events';
  id!: number;
  companyId!: number;
  livemode!: boolean;
  type!: string;
  data!: Record<string, unknown>;
  requestId!: string | null;
  createdAt!: Date;
}
