// /app/recibidos: documents suppliers issued to the company, with its answer to Hacienda
// (aceptación, aceptación parcial or rechazo: POST /api/v1/received_documents/{id}/answer).
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Status } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';
import { MoreButton, useLoad } from '../../ui/data.tsx';
import { formatDate, formatMoney } from '../../format.ts';
import { AnswerForm } from './AnswerForm.tsx';

type Received = components['schemas']['ReceivedDocument'];
type AnswerStatus = 'unanswered' | 'pendiente' | 'enviada' | 'aceptada' | 'rechazada' | 'failed';
const FILTERS = ['', 'unanswered', 'pendiente', 'enviada', 'aceptada', 'rechazada', 'failed'];

export function ReceivedPage() {
  const { t } = useTranslation();
  const session = useSession();
  const [filter, setFilter] = useState('');
  const [pages, setPages] = useState<string[]>([]);
  const after = pages.at(-1);
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/api/v1/received_documents', {
          params: {
            query: {
              limit: 20,
              ...(filter ? { answer_status: filter as AnswerStatus } : {}),
              ...(after ? { starting_after: after } : {}),
            },
          },
        }),
      ),
    [filter, after, session.mode, session.current?.company.id],
  );
  const rows = list.data?.data ?? [];
  return (
    <Page title={t('received.title')} wide>
      <Select
        id="r-filter"
        label={t('received.answer')}
        value={filter}
        onChange={(v) => {
          setPages([]);
          setFilter(v);
        }}
        options={FILTERS}
        render={(v) => (v ? t(`received.states.${v}`) : t('common.all'))}
      />
      <Status kind="error">{list.error}</Status>
      {!list.loading && rows.length === 0 ? <p>{t('received.empty')}</p> : null}
      <ul className="cards">
        {rows.map((r) => (
          <ReceivedCard
            key={r.id}
            doc={r}
            canAnswer={session.can('answer:received')}
            onAnswered={list.reload}
          />
        ))}
      </ul>
      <MoreButton
        hasMore={Boolean(list.data?.has_more)}
        onMore={() => setPages((p) => [...p, rows.at(-1)!.id])}
      />
    </Page>
  );
}

function ReceivedCard({
  doc,
  canAnswer,
  onAnswered,
}: {
  doc: Received;
  canAnswer: boolean;
  onAnswered(): void;
}) {
  const { t, i18n } = useTranslation();
  const a = doc.answer;
  const lang = i18n.language === 'en' ? 'en' : 'es';
  return (
    <li className="card">
      <h2>
        {t(`docTypes.${doc.document_type}`, { defaultValue: doc.document_type })} {doc.consecutivo}
      </h2>
      <dl className="facts">
        <dt>{t('received.issuer')}</dt>
        <dd>
          {doc.emisor.name} ({doc.emisor.cedula})
        </dd>
        <dt>{t('docs.date')}</dt>
        <dd>{formatDate(doc.issued_at)}</dd>
        <dt>{t('doc.total')}</dt>
        <dd>{formatMoney(doc.total, doc.currency)}</dd>
        <dt>{t('doc.tax')}</dt>
        <dd>{formatMoney(doc.total_tax, doc.currency)}</dd>
        <dt>{t('received.answer')}</dt>
        <dd>
          {a
            ? `${t(`answers.${a.result}`)} · ${t(`statuses.${a.status}`, { defaultValue: a.status })}`
            : t('received.states.unanswered')}
        </dd>
        {a?.rejection_reason ? (
          <>
            <dt>{t('doc.rejectedWhy')}</dt>
            <dd>{a.rejection_reason[lang]}</dd>
          </>
        ) : null}
      </dl>
      {canAnswer && (!a || a.status === 'failed' || a.status === 'rechazada') ? (
        <AnswerForm doc={doc} onAnswered={onAnswered} />
      ) : null}
    </li>
  );
}
