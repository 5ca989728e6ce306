// The go-live checklist: what the company still needs for production, and the button once ready.
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../../api.ts';
import { currentLanguage } from '../../../i18n/index.ts';
import { useSession } from '../../../session.tsx';
import { Status, useAction } from '../../../ui/forms.tsx';

interface Checklist {
  ready: boolean;
  live_enabled: boolean;
  checklist: { item: string; done: boolean; label_es: string; label_en: string }[];
}

export function GoLiveSection() {
  const { t } = useTranslation();
  const session = useSession();
  const [state, setState] = useState<Checklist | null>(null);
  const action = useAction();
  const load = useCallback(
    async () => setState(await request<Checklist>('GET', '/api/v1/company/go_live')),
    [],
  );
  useEffect(() => {
    void action.run(load);
  }, [load]);
  const goLive = () =>
    void action.run(async () => {
      await request('POST', '/api/v1/company/go_live');
      await load();
      await session.refresh();
    });
  const es = currentLanguage() === 'es-CR';
  return (
    <section className="card" aria-labelledby="golive-title">
      <h2 id="golive-title">{t('goLive.title')}</h2>
      <p>{t('goLive.text')}</p>
      {state ? (
        <ul className="checklist" data-testid="go-live-checklist">
          {state.checklist.map((c) => (
            <li key={c.item} className={c.done ? 'done' : 'missing'}>
              <span aria-hidden="true">{c.done ? '✔' : '✗'}</span> {es ? c.label_es : c.label_en}{' '}
              <span className="visually-hidden">{c.done ? t('goLive.done') : t('goLive.pending')}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <Status kind="success">{state?.live_enabled ? t('goLive.live') : null}</Status>
      <Status kind="error">{action.error}</Status>
      {state && !state.live_enabled ? (
        <button type="button" onClick={goLive} disabled={!state.ready || action.pending}>
          {t('goLive.submit')}
        </button>
      ) : null}
    </section>
  );
}
