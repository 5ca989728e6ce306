// API keys: the list (redacted), a new key with scopes chosen from checkboxes (its secret shown
// once, with a copy button), roll (a new secret; the old one lives on for a grace period) and revoke.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { CopyButton, useLoad } from '../../ui/data.tsx';
import { formatDateTime } from '../../format.ts';
import { SCOPE_LIST, type ScopeName } from './scopes.ts';

export function Keys() {
  const { t } = useTranslation();
  const session = useSession();
  const list = useLoad(() => unwrap(api.GET('/api/v1/keys')), [session.mode, session.current?.company.id]);
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction();
  const keyAction = (work: () => Promise<string | null>) =>
    void action.run(async () => {
      setSecret(await work());
      list.reload();
    });
  const keys = (list.data?.data ?? []).filter((k) => !k.revoked_at);
  return (
    <section className="card" aria-labelledby="keys-h">
      <h2 id="keys-h">{t('dev.keys')}</h2>
      <Status kind="error">{action.error ?? list.error}</Status>
      {secret ? <SecretOnce secret={secret} /> : null}
      <div className="table-wrap">
        <table id="keys">
          <thead>
            <tr>
              <th scope="col">{t('dev.keyName')}</th>
              <th scope="col">{t('dev.key')}</th>
              <th scope="col">{t('dev.scopes')}</th>
              <th scope="col">{t('dev.lastUsed')}</th>
              <th scope="col">{t('dev.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td className="mono">{k.redacted}</td>
                <td>{k.scopes.join(', ')}</td>
                <td>{formatDateTime(k.last_used_at)}</td>
                <td>
                  <div className="actions">
                    <button
                      type="button"
                      className="secondary"
                      onClick={() =>
                        keyAction(
                          async () =>
                            (
                              await unwrap(
                                api.POST('/api/v1/keys/{id}/roll', {
                                  params: { path: { id: k.id } },
                                  body: {},
                                }),
                              )
                            ).secret,
                        )
                      }
                    >
                      {t('dev.roll')}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() =>
                        window.confirm(t('dev.revokeConfirm', { name: k.name })) &&
                        keyAction(
                          async () => (
                            await unwrap(api.DELETE('/api/v1/keys/{id}', { params: { path: { id: k.id } } })),
                            null
                          ),
                        )
                      }
                    >
                      {t('dev.revoke')}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <NewKey
        onCreated={(s) => {
          setSecret(s);
          list.reload();
        }}
      />
    </section>
  );
}

function SecretOnce({ secret }: { secret: string }) {
  const { t } = useTranslation();
  return (
    <div className="status status-success" role="status">
      <p>{t('dev.secretOnce')}</p>
      <p className="mono" id="new-secret">
        {secret}
      </p>
      <CopyButton text={secret} />
    </div>
  );
}

function NewKey({ onCreated }: { onCreated(secret: string): void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ScopeName[]>(['read:invoices', 'write:invoices']);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const key = await unwrap(api.POST('/api/v1/keys', { body: { name, scopes } }));
      setName('');
      onCreated(key.secret);
    });
  };
  const toggle = (s: ScopeName, on: boolean) => setScopes((x) => (on ? [...x, s] : x.filter((y) => y !== s)));
  return (
    <form onSubmit={submit} noValidate>
      <h3>{t('dev.newKey')}</h3>
      <Status kind="error">{action.error}</Status>
      <Field
        label={t('dev.keyName')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={action.failure?.forField('name')}
      />
      <fieldset className="checks">
        <legend>{t('dev.scopes')}</legend>
        {SCOPE_LIST.map((s) => (
          <label key={s} className="check">
            <input
              type="checkbox"
              name="scope"
              value={s}
              checked={scopes.includes(s)}
              onChange={(e) => toggle(s, e.target.checked)}
            />
            <span>
              <span className="mono">{s}</span> — {t(`scopes.${s}`)}
            </span>
          </label>
        ))}
      </fieldset>
      {action.failure?.forField('scopes') ? (
        <p className="field-error">{action.failure.forField('scopes')}</p>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('dev.createKey')}
        </button>
      </div>
    </form>
  );
}
