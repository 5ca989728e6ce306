// Writing a factura (01), tiquete (04), factura de exportación (09) or factura de compra (08):
// the client (or, for a purchase, the supplier), the lines, currency, sale condition and payment,
// with live totals from the server. "Emitir" sends it to Hacienda; "Guardar borrador" keeps it
// (send: false) to send later from its page.
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { ClientPicker, type PickedClient } from './ClientPicker.tsx';
import { LinesEditor, linesBody, type DraftLine } from './LinesEditor.tsx';
import { useServices, type Service } from './ServicePicker.tsx';
import { Totals } from './Totals.tsx';
import { Select } from '../../ui/select.tsx';
import { usePreview } from './usePreview.ts';
import { SupplierFields, emptySupplier, type Supplier } from './SupplierFields.tsx';

type Body = components['schemas']['CreateInvoiceRequest'];
export type InvoiceType = '01' | '04' | '08' | '09';
const METHODS = ['efectivo', 'tarjeta', 'transferencia', 'sinpe_movil', 'cheque', 'otros'] as const;

interface Draft {
  client: PickedClient | null;
  supplier: Supplier;
  lines: DraftLine[];
  currency: string;
  condition: string;
  creditDays: string;
  method: (typeof METHODS)[number];
}

function buildBody(type: InvoiceType, d: Draft): Body | null {
  if (d.lines.length === 0) return null;
  const body: Body = {
    document_type: type,
    lines: linesBody(d.lines) as Body['lines'],
    currency: d.currency,
    condition: d.condition,
    payment_method: d.method,
  };
  if (d.condition === '02') body.credit_days = Number(d.creditDays) || 0;
  if (type === '08') body.supplier = d.supplier as Body['supplier'];
  else if (d.client) body.client_id = d.client.id;
  return body;
}

export function InvoiceForm({ type }: { type: InvoiceType }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const services = useServices();
  const [created, setCreated] = useState<Service[]>([]);
  const [d, setD] = useState<Draft>({
    client: null,
    supplier: emptySupplier(),
    lines: [],
    currency: 'CRC',
    condition: '01',
    creditDays: '30',
    method: 'efectivo',
  });
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const body = useMemo(() => buildBody(type, d), [type, d]);
  const live = usePreview(body);
  const action = useAction();
  const all = [...created, ...(services.data?.data ?? [])];
  const fieldError = (path: string) => action.failure?.forField(path) ?? live.failure?.forField(path) ?? null;

  const issue = (send: boolean) => (e?: FormEvent) => {
    e?.preventDefault();
    void action.run(async () => {
      if (!body) throw new Error(t('doc.noLines'));
      const inv = await unwrap(api.POST('/api/v1/invoices', { body: { ...body, send } }));
      void navigate(`/documentos/${inv.id}`);
    });
  };

  return (
    <form onSubmit={issue(true)} noValidate className="doc-form">
      <Status kind="error">{action.error}</Status>
      {type === '08' ? (
        <SupplierFields
          value={d.supplier}
          onChange={(supplier) => set({ supplier })}
          fieldError={fieldError}
        />
      ) : (
        <ClientPicker
          value={d.client}
          onChange={(client) => set({ client })}
          error={fieldError('client_id')}
        />
      )}
      <LinesEditor
        lines={d.lines}
        onChange={(lines) => set({ lines })}
        services={all}
        onServiceCreated={(s) => setCreated((c) => [s, ...c])}
        preview={live.preview?.lines ?? null}
        currency={d.currency}
        fieldError={fieldError}
      />
      <fieldset className="card">
        <legend>{t('doc.conditions')}</legend>
        <Select
          id="doc-currency"
          label={t('doc.currency')}
          value={d.currency}
          onChange={(currency) => set({ currency })}
          options={['CRC', 'USD']}
          render={(c) => t(`currencies.${c}`)}
        />
        <Select
          id="doc-condition"
          label={t('doc.condition')}
          value={d.condition}
          onChange={(condition) => set({ condition })}
          options={['01', '02']}
          render={(c) => t(`conditions.${c}`)}
        />
        {d.condition === '02' ? (
          <Field
            label={t('doc.creditDays')}
            value={d.creditDays}
            inputMode="numeric"
            onChange={(e) => set({ creditDays: e.target.value })}
            error={fieldError('credit_days')}
          />
        ) : null}
        <Select
          id="doc-method"
          label={t('doc.method')}
          value={d.method}
          onChange={(m) => set({ method: m as Draft['method'] })}
          options={[...METHODS]}
          render={(m) => t(`methods.${m}`)}
        />
      </fieldset>
      <section className="card" aria-labelledby="totals-h">
        <h2 id="totals-h">{t('doc.totals')}</h2>
        {live.failure && !action.failure ? <p className="field-error">{live.failure.detail}</p> : null}
        <Totals amounts={live.preview} pending={live.pending} />
      </section>
      <div className="actions">
        <button type="submit" disabled={action.pending || !body}>
          {t('doc.issue')}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={action.pending || !body}
          onClick={() => issue(false)()}
        >
          {t('doc.saveDraft')}
        </button>
      </div>
    </form>
  );
}
