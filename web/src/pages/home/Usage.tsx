// The API's usage of the company (GET /api/v1/usage, /api/v1/usage/keys): requests, errors and
// 429s over the last day, by key (a filter) and by route, with a chart of the requests per hour.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';
import { useSession } from '../../session.tsx';
import { Status } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';
import { useLoad } from '../../ui/data.tsx';
import { UsageChart } from './UsageChart.tsx';

type Bucket = components['schemas']['UsageBucket'];

function byRoute(data: Bucket[]): [string, number, number][] {
  const m = new Map<string, [number, number]>();
  for (const b of data) {
    const x = m.get(b.route) ?? [0, 0];
    m.set(b.route, [x[0] + b.requests, x[1] + b['4xx'] + b['5xx']]);
  }
  return [...m.entries()]
    .map(([r, [n, e]]) => [r, n, e] as [string, number, number])
    .sort((a, b) => b[1] - a[1]);
}

export function Usage() {
  const { t } = useTranslation();
  const session = useSession();
  const [key, setKey] = useState('');
  const ctx = [session.mode, session.current?.company.id];
  const keys = useLoad(() => unwrap(api.GET('/api/v1/usage/keys')), ctx);
  const usage = useLoad(
    () =>
      unwrap(
        api.GET('/api/v1/usage', {
          params: { query: { granularity: 'hour', ...(key ? { key_id: key } : {}) } },
        }),
      ),
    [key, ...ctx],
  );
  const u = usage.data;
  const names = new Map((keys.data?.data ?? []).map((k) => [k.id, k.name]));
  return (
    <section
      className="card"
      aria-labelledby="usage-h"
      id="usage"
      data-loaded={u && !usage.loading ? 'true' : undefined}
    >
      <h2 id="usage-h">{t('usage.title')}</h2>
      <Status kind="error">{usage.error ?? keys.error}</Status>
      <Select
        id="key-filter"
        label={t('usage.key')}
        value={key}
        onChange={setKey}
        options={['', ...(keys.data?.data ?? []).map((k) => k.id)]}
        render={(id) => (id ? `${names.get(id) ?? id}` : t('usage.allKeys'))}
      />
      {u ? (
        <>
          <dl className="facts">
            <dt>{t('usage.requests')}</dt>
            <dd id="t-requests">{u.totals.requests}</dd>
            <dt>{t('usage.errors')}</dt>
            <dd id="t-errors">{u.totals['4xx'] + u.totals['5xx']}</dd>
            <dt>{t('usage.limited')}</dt>
            <dd id="t-429">{u.totals[429]}</dd>
          </dl>
          <UsageChart buckets={u.data} />
          <div className="table-wrap">
            <table id="routes">
              <thead>
                <tr>
                  <th scope="col">{t('usage.route')}</th>
                  <th scope="col" className="num">
                    {t('usage.requests')}
                  </th>
                  <th scope="col" className="num">
                    {t('usage.errors')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {byRoute(u.data).map(([r, n, e]) => (
                  <tr key={r}>
                    <td className="mono">{r}</td>
                    <td className="num">{n}</td>
                    <td className="num">{e}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      <div className="table-wrap">
        <table id="keys">
          <thead>
            <tr>
              <th scope="col">{t('dev.keyName')}</th>
              <th scope="col">{t('dev.key')}</th>
              <th scope="col">{t('dev.scopes')}</th>
            </tr>
          </thead>
          <tbody>
            {(keys.data?.data ?? []).map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td className="mono">{k.redacted}</td>
                <td>{k.scopes.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
