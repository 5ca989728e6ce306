// Webhook endpoints: the list, a new one (URL and events; its signing secret shown once), edit,
// enable / disable, "enviar evento de prueba" (POST …/{id}/test) and the recent deliveries.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, request, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { CopyButton, useLoad } from '../../ui/data.tsx';
import { formatDateTime } from '../../format.ts';
import { EVENTS, type EventName } from './scopes.ts';

type Endpoint = components['schemas']['WebhookEndpoint'];

export function Webhooks() {
  const { t } = useTranslation();
  const session = useSession();
  const list = useLoad(
    () => unwrap(api.GET('/api/v1/webhook_endpoints')),
    [session.mode, session.current?.company.id],
  );
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="hooks-h">
      <h2 id="hooks-h">{t('dev.webhooks')}</h2>
      <Status kind="error">{list.error}</Status>
      {secret ? (
        <div className="status status-success" role="status">
          <p>{t('dev.webhookSecretOnce')}</p>
          <p className="mono">{secret}</p>
          <CopyButton text={secret} />
        </div>
      ) : null}
      <ul className="cards">
        {(list.data?.data ?? []).map((e) => (
          <EndpointCard key={e.id} endpoint={e} onChange={list.reload} />
        ))}
      </ul>
      <h3>{t('dev.newWebhook')}</h3>
      <EndpointForm
        onSaved={async (body) => {
          const created = await unwrap(api.POST('/api/v1/webhook_endpoints', { body }));
          setSecret(created.secret);
          list.reload();
        }}
      />
    </section>
  );
}

function EndpointForm({
  endpoint,
  onSaved,
}: {
  endpoint?: Endpoint;
  onSaved(body: { url: string; events: EventName[] }): Promise<void>;
}) {
  const { t } = useTranslation();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<EventName[]>(
    (endpoint?.events as EventName[]) ?? ['invoice.accepted', 'invoice.rejected'],
  );
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(() => onSaved({ url, events }));
  };
  return (
    <form onSubmit={submit} noValidate>
      <Status kind="error">{action.error}</Status>
      <Field
        label={t('dev.url')}
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={action.failure?.forField('url')}
      />
      <fieldset className="checks">
        <legend>{t('dev.events')}</legend>
        {EVENTS.map((ev) => (
          <label key={ev} className="check">
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) => setEvents((x) => (e.target.checked ? [...x, ev] : x.filter((y) => y !== ev)))}
            />
            <span className="mono">{ev}</span>
          </label>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

function EndpointCard({ endpoint: e, onChange }: { endpoint: Endpoint; onChange(): void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [tested, setTested] = useState<string | null>(null);
  const action = useAction();
  const path = { params: { path: { id: e.id } } };
  const toggle = () =>
    void action.run(async () => {
      await unwrap(
        api.POST('/api/v1/webhook_endpoints/{id}', { ...path, body: { enabled: e.status !== 'enabled' } }),
      );
      onChange();
    });
  const test = () =>
    void action.run(async () => {
      const d = await request<{ status_code?: number | null; duration_ms?: number }>(
        'POST',
        `/api/v1/webhook_endpoints/${e.id}/test`,
      );
      setTested(t('dev.testResult', { status: d.status_code ?? '—', ms: d.duration_ms ?? '—' }));
    });
  return (
    <li className="card">
      <h4 className="mono">{e.url}</h4>
      <p>
        {t(`dev.endpointStatus.${e.status}`)} · {e.events.join(', ')}
      </p>
      <Status kind="error">{action.error}</Status>
      <Status kind="info">{tested}</Status>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => setEditing((x) => !x)}
          aria-expanded={editing}
        >
          {t('common.edit')}
        </button>
        <button type="button" className="secondary" onClick={toggle}>
          {e.status === 'enabled' ? t('dev.disable') : t('dev.enable')}
        </button>
        <button type="button" className="secondary" onClick={test}>
          {t('dev.sendTest')}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => setShowDeliveries((x) => !x)}
          aria-expanded={showDeliveries}
        >
          {t('dev.deliveries')}
        </button>
      </div>
      {editing ? (
        <EndpointForm
          endpoint={e}
          onSaved={async (body) => {
            await unwrap(api.POST('/api/v1/webhook_endpoints/{id}', { ...path, body }));
            setEditing(false);
            onChange();
          }}
        />
      ) : null}
      {showDeliveries ? <Deliveries id={e.id} /> : null}
    </li>
  );
}

function Deliveries({ id }: { id: string }) {
  const { t } = useTranslation();
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/api/v1/webhook_endpoints/{id}/deliveries', {
          params: { path: { id }, query: { limit: 10 } },
        }),
      ),
    [id],
  );
  return (
    <div className="table-wrap">
      <Status kind="error">{list.error}</Status>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('dev.event')}</th>
            <th scope="col">{t('docs.status')}</th>
            <th scope="col">HTTP</th>
            <th scope="col">{t('docs.date')}</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((d) => (
            <tr key={d.id}>
              <td className="mono">{d.event}</td>
              <td>{t(`dev.deliveryStatus.${d.status}`)}</td>
              <td>{d.last_status_code ?? '—'}</td>
              <td>{formatDateTime(d.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
