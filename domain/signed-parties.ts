// The parties of an issued document as it was signed: the company (emisor of a sale, receptor of
// a factura de compra) and the client (receptor), with exactly the fields the document builders
// read (jobs/invoice-document.ts, jobs/purchase-receipt-document.ts) and the email's sender name.
// Taken from the same rows the signature was built from and stored with it (invoice_documents.parties), so
// everything made of the document afterwards (the reception request, the PDF, the email) names
// the parties of its signed XML, whatever the company or the client became since. Field names are
// the rows' own (camelCase), so a company or client row is itself a party.

/** A postal address of Costa Rica (a client's first one is its Ubicacion). */
export interface PartyAddress {
  provincia: string;
  canton: string;
  distrito: string;
  barrio: string | null;
  otrasSenas: string;
}

/** What the builders read of the company. */
export interface CompanyParty {
  id: number;
  legalName: string;
  commercialName: string | null;
  idType: string;
  idNumber: string;
  activityCode: string | null;
  provincia: string | null;
  canton: string | null;
  distrito: string | null;
  barrio: string | null;
  otrasSenas: string | null;
  phoneCountry: string | null;
  phone: string | null;
  emails: readonly string[];
}

/** What the builders read of the client (its first address only: the Receptor's Ubicacion). */
export interface ClientParty {
  name: string;
  commercialName: string | null;
  idType: string;
  idNumber: string;
  activityCode: string | null;
  email: string | null;
  phoneCountry: string | null;
  phone: string | null;
  foreignAddress: string | null;
  addresses?: readonly PartyAddress[];
}

/** The parties stored with a signed document (`client` null: a tiquete sold to no one, a purchase). */
export interface SignedParties {
  v: 1;
  company: CompanyParty;
  client: ClientParty | null;
}

function addressOf(a: PartyAddress): PartyAddress {
  return {
    provincia: a.provincia,
    canton: a.canton,
    distrito: a.distrito,
    barrio: a.barrio ?? null,
    otrasSenas: a.otrasSenas,
  };
}

/** The company as a party: its own fields only (never a model's other properties). */
export function companyParty(c: CompanyParty): CompanyParty {
  return {
    id: Number(c.id),
    legalName: c.legalName,
    commercialName: c.commercialName ?? null,
    idType: c.idType,
    idNumber: c.idNumber,
    activityCode: c.activityCode ?? null,
    provincia: c.provincia ?? null,
    canton: c.canton ?? null,
    distrito: c.distrito ?? null,
    barrio: c.barrio ?? null,
    otrasSenas: c.otrasSenas ?? null,
    phoneCountry: c.phoneCountry ?? null,
    phone: c.phone ?? null,
    emails: [...(c.emails ?? [])],
  };
}

/** The client as a party, with its first address only. */
export function clientParty(c: ClientParty): ClientParty {
  const first = c.addresses?.[0];
  return {
    name: c.name,
    commercialName: c.commercialName ?? null,
    idType: c.idType,
    idNumber: c.idNumber,
    activityCode: c.activityCode ?? null,
    email: c.email ?? null,
    phoneCountry: c.phoneCountry ?? null,
    phone: c.phone ?? null,
    foreignAddress: c.foreignAddress ?? null,
    addresses: first ? [addressOf(first)] : [],
  };
}

/** The snapshot of a document's parties, from the rows its XML is about to be built from. */
export function signedParties(company: CompanyParty, client: ClientParty | null): SignedParties {
  return { v: 1, company: companyParty(company), client: client ? clientParty(client) : null };
}

/** The name a document's emails are sent under: the commercial name, else the legal one. */
export function senderName(company: Pick<CompanyParty, 'commercialName' | 'legalName'>): string {
  return company.commercialName ?? company.legalName;
}
