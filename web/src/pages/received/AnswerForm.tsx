// The company's answer to a received document: accept, accept partially or reject, with the
// reason (required unless accepting) and, when accepting, the IVA it credits.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';

type Received = components['schemas']['ReceivedDocument'];
type Result = 'accepted' | 'partially_accepted' | 'rejected';

export function AnswerForm({ doc, onAnswered }: { doc: Received; onAnswered(): void }) {
  const { t } = useTranslation();
  const [result, setResult] = useState<Result>('accepted');
  const [reason, setReason] = useState('');
  const [credit, setCredit] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = {
        result,
        ...(reason ? { reason } : {}),
        ...(credit && result !== 'rejected' ? { iva_credit: credit.replace(',', '.') } : {}),
      };
      await unwrap(
        api.POST('/api/v1/received_documents/{id}/answer', { params: { path: { id: doc.id } }, body }),
      );
      onAnswered();
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate className="answer-form">
      <Status kind="error">{action.error}</Status>
      <Select
        id={`ans-${doc.id}`}
        label={t('received.result')}
        value={result}
        onChange={(v) => setResult(v as Result)}
        options={['accepted', 'partially_accepted', 'rejected']}
        render={(v) => t(`answers.${v}`)}
      />
      <Field
        label={t('received.reason')}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        error={f?.forField('reason')}
      />
      {result !== 'rejected' ? (
        <Field
          label={t('received.ivaCredit')}
          value={credit}
          inputMode="decimal"
          onChange={(e) => setCredit(e.target.value)}
          error={f?.forField('iva_credit')}
        />
      ) : null}
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('received.send')}
        </button>
      </div>
    </form>
  );
}
