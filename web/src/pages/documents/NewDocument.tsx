// /app/documentos/nuevo?tipo=01|02|03|04|08|09|10: the form of each kind of document, chosen by
// its type (a select keeps the choice in the address).
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { Page } from '../../ui/page.tsx';
import { Select } from '../../ui/select.tsx';
import { useLoad } from '../../ui/data.tsx';
import { InvoiceForm, type InvoiceType } from './InvoiceForm.tsx';
import { NoteForm } from './NoteForm.tsx';
import { ReceiptForm } from './ReceiptForm.tsx';

export const ISSUABLE = ['01', '04', '09', '08', '03', '02', '10'] as const;

function TypeForm({ type, from }: { type: string; from: string | null }) {
  const ref = useLoad(
    () =>
      from
        ? unwrap(api.GET('/api/v1/invoices/{id}', { params: { path: { id: from } } }))
        : Promise.resolve(null),
    [from],
  );
  if (type === '02' || type === '03') {
    if (from && ref.loading) return null;
    return <NoteForm key={`${type}-${ref.data?.id ?? ''}`} type={type} from={ref.data} />;
  }
  if (type === '10') return <ReceiptForm />;
  return <InvoiceForm key={type} type={type as InvoiceType} />;
}

export function NewDocument() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const wanted = params.get('tipo') ?? '01';
  const type = (ISSUABLE as readonly string[]).includes(wanted) ? wanted : '01';
  return (
    <Page title={t('doc.newTitle', { type: t(`docTypes.${type}`) })} wide>
      <Select
        id="doc-type"
        label={t('doc.type')}
        value={type}
        onChange={(v) => setParams({ tipo: v })}
        options={[...ISSUABLE]}
        render={(v) => t(`docTypes.${v}`)}
      />
      <TypeForm type={type} from={params.get('de')} />
    </Page>
  );
}
