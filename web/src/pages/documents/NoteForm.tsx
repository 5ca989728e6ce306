// A nota de crédito (03) or de débito (02) of an issued document: pick the document, say why, and
// either the whole document or, per line, a quantity or a net amount (POST
// /api/v1/invoices/{id}/credit_notes or /debit_notes).
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';
import { formatMoney } from '../../format.ts';
import { DocumentPicker, type Invoice } from './DocumentPicker.tsx';

type Scope = 'whole' | 'qty' | 'amount';
const CREDIT_CODES = ['01', '02', '06', '09', '13', '99'];
const DEBIT_CODES = ['02', '10', '99'];

function noteBody(reason: string, code: string, scope: Scope, values: Record<number, string>) {
  const body: { reason: string; code?: string; lines?: { line: number; qty?: string; amount?: string }[] } = {
    reason,
  };
  if (code !== '99') body.code = code;
  if (scope === 'whole') return body;
  body.lines = Object.entries(values)
    .filter(([, v]) => v.trim() !== '')
    .map(([line, v]) => ({ line: Number(line), [scope]: v.replace(',', '.') }));
  return body;
}

export function NoteForm({ type, from }: { type: '02' | '03'; from?: Invoice | null }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [doc, setDoc] = useState<Invoice | null>(from ?? null);
  const [reason, setReason] = useState('');
  const [codes] = useState(type === '03' ? CREDIT_CODES : DEBIT_CODES);
  const [code, setCode] = useState(type === '03' ? '01' : '02');
  const [scope, setScope] = useState<Scope>('whole');
  const [values, setValues] = useState<Record<number, string>>({});
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      if (!doc) throw new Error(t('doc.pickDocument'));
      const body = noteBody(reason, scope === 'whole' ? code : code === '01' ? '02' : code, scope, values);
      const params = { path: { id: doc.id } };
      const note =
        type === '03'
          ? await unwrap(api.POST('/api/v1/invoices/{id}/credit_notes', { params, body }))
          : await unwrap(api.POST('/api/v1/invoices/{id}/debit_notes', { params, body }));
      void navigate(`/documentos/${note.id}`);
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate className="doc-form">
      <Status kind="error">{action.error}</Status>
      <DocumentPicker
        value={doc}
        onChange={setDoc}
        filter={(i) => ['01', '04', '09', '08'].includes(i.document_type) && i.status === 'aceptada'}
      />
      <Field
        label={t('doc.reason')}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        required
        error={f?.forField('reason')}
      />
      <Select
        id="note-code"
        label={t('doc.noteCode')}
        value={code}
        onChange={setCode}
        options={codes}
        render={(c) => t(`noteCodes.${c}`)}
      />
      <Select
        id="note-scope"
        label={t('doc.noteScope')}
        value={scope}
        onChange={(v) => setScope(v as Scope)}
        options={['whole', 'qty', 'amount']}
        render={(v) => t(`doc.scope.${v}`)}
      />
      {doc && scope !== 'whole' ? (
        <fieldset className="card">
          <legend>{t(scope === 'qty' ? 'doc.noteQty' : 'doc.noteAmount')}</legend>
          {doc.lines.map((l) => (
            <Field
              key={l.line_number}
              label={`${l.line_number}. ${l.description} (${scope === 'qty' ? l.qty : formatMoney(l.subtotal, doc.currency)})`}
              value={values[l.line_number] ?? ''}
              inputMode="decimal"
              onChange={(e) => setValues((v) => ({ ...v, [l.line_number]: e.target.value }))}
              error={f?.forField(`lines/${l.line_number - 1}/${scope}`)}
            />
          ))}
        </fieldset>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={action.pending || !doc}>
          {t(type === '03' ? 'doc.issueCredit' : 'doc.issueDebit')}
        </button>
      </div>
    </form>
  );
}
