// A recibo electrónico de pago (10): a payment of a credit sale, recorded with its receipt
// (POST /api/v1/invoices/{id}/payments with issue_receipt).
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';
import { formatMoney } from '../../format.ts';
import { DocumentPicker, type Invoice } from './DocumentPicker.tsx';

type Method = components['schemas']['CreatePaymentRequest']['method'];
const METHODS = ['transferencia', 'sinpe_movil', 'efectivo', 'tarjeta', 'cheque', 'otros'];

export function ReceiptForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [doc, setDoc] = useState<Invoice | null>(null);
  const [amount, setAmount] = useState('');
  const [method, setMethod] = useState('transferencia');
  const [reference, setReference] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      if (!doc) throw new Error(t('doc.pickDocument'));
      const body = {
        amount: amount.replace(',', '.'),
        method: method as Method,
        issue_receipt: true,
        ...(reference ? { reference } : {}),
      };
      await unwrap(api.POST('/api/v1/invoices/{id}/payments', { params: { path: { id: doc.id } }, body }));
      void navigate(`/documentos/${doc.id}`);
    });
  };
  const f = action.failure;
  return (
    <form onSubmit={submit} noValidate className="doc-form">
      <Status kind="error">{action.error}</Status>
      <DocumentPicker
        value={doc}
        onChange={setDoc}
        filter={(i) => i.payment_status === 'unpaid' || i.payment_status === 'partial'}
      />
      {doc ? <p>{t('doc.balanceDue', { amount: formatMoney(doc.balance_due, doc.currency) })}</p> : null}
      <Field
        label={t('doc.amount')}
        value={amount}
        inputMode="decimal"
        onChange={(e) => setAmount(e.target.value)}
        required
        error={f?.forField('amount')}
      />
      <Select
        id="rcpt-method"
        label={t('doc.method')}
        value={method}
        onChange={setMethod}
        options={METHODS}
        render={(m) => t(`methods.${m}`)}
      />
      <Field
        label={t('doc.paymentReference')}
        value={reference}
        onChange={(e) => setReference(e.target.value)}
        error={f?.forField('reference')}
      />
      <div className="actions">
        <button type="submit" disabled={action.pending || !doc}>
          {t('doc.issueReceipt')}
        </button>
      </div>
    </form>
  );
}
