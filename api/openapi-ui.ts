// How /docs presents the API: the tags in the order a reader needs them (invoices first), each
// described in Spanish and English, and the Swagger UI settings. Swagger UI lists tags in the
// document's `tags` order; the page opens on the invoices (a small same-origin script sets the
// deep link `#/invoices` when the address has none, so that tag is the one expanded).

/** Every tag the operations use, in the order /docs shows them. */
export const OPENAPI_TAGS = [
  {
    name: 'invoices',
    description:
      'Comprobantes: emitir, consultar, notas, reintentos, PDF y XML (documents: issue, read, notes, retries, PDF and XML)',
  },
  { name: 'payments', description: 'Pagos y recibos electrónicos de pago (payments and payment receipts)' },
  {
    name: 'received documents',
    description: 'Comprobantes de proveedores y su aceptación (suppliers’ documents and their answer)',
  },
  { name: 'clients', description: 'Clientes, los receptores (clients, the receptors)' },
  {
    name: 'services',
    description: 'Productos y servicios con su CABYS (products and services with their CABYS)',
  },
  { name: 'cabys', description: 'Catálogo CABYS (the CABYS catalogue)' },
  {
    name: 'public data',
    description:
      'Registro de contribuyentes y tipo de cambio de Hacienda (Hacienda’s taxpayer register and exchange rate)',
  },
  { name: 'reports', description: 'Reporte mensual (monthly report)' },
  { name: 'webhooks', description: 'Destinos de webhooks y entregas (webhook endpoints and deliveries)' },
  { name: 'events', description: 'Eventos (events)' },
  {
    name: 'company',
    description:
      'Empresa: perfil, certificado, credenciales, sucursales, producción (company: profile, certificate, credentials, branches, going live)',
  },
  { name: 'keys', description: 'Llaves de API (API keys)' },
  { name: 'members', description: 'Miembros e invitaciones (members and invitations)' },
  { name: 'usage', description: 'Uso de la API (API usage)' },
  { name: 'audit', description: 'Bitácora de auditoría (audit log)' },
  { name: 'session', description: 'Ingreso de personas (people signing in)' },
  { name: 'account', description: 'Cuenta de la persona (a person’s account)' },
  {
    name: 'operations',
    description: 'Salud del servicio y retorno de Hacienda (service health and Hacienda’s callback)',
  },
];

/** The script that opens /docs on the invoices: runs before Swagger UI starts (on window load). */
const OPEN_ON_INVOICES = `if (!window.location.hash) {
  window.history.replaceState(null, '', window.location.pathname + window.location.search + '#/invoices');
}
`;

/** @fastify/swagger-ui options: deep links, tags collapsed but the invoices, try-it-out on request. */
export const SWAGGER_UI_OPTIONS = {
  routePrefix: '/docs',
  uiConfig: {
    deepLinking: true,
    docExpansion: 'none' as const,
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    // A click on "Try it out" first: a live key would issue real documents to Hacienda.
    tryItOutEnabled: false,
    persistAuthorization: false,
  },
  theme: {
    title: 'factura-cr API',
    js: [{ filename: 'open-on-invoices.js', content: OPEN_ON_INVOICES }],
  },
  staticCSP: true,
  transformSpecificationClone: true,
};
