// Branches (sucursales) and their terminals (cajas): the numbers that go into every consecutivo.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../../api.ts';
import { Field, Status, useAction } from '../../../ui/forms.tsx';

interface Branch {
  code: string;
  name: string;
  terminals: { code: string; name: string }[];
}

export function BranchesSection() {
  const { t } = useTranslation();
  const [branches, setBranches] = useState<Branch[]>([]);
  const [code, setCode] = useState('001');
  const [name, setName] = useState('');
  const [terminal, setTerminal] = useState('00001');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const load = useCallback(async () => {
    setBranches((await request<{ data: Branch[] }>('GET', '/api/v1/company/branches')).data);
  }, []);
  useEffect(() => {
    load().catch(() => setBranches([]));
  }, [load]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      const terminals = [{ code: terminal, name: t('branches.terminalName', { code: terminal }) }];
      await request('POST', '/api/v1/company/branches', { code, name, terminals });
      setSaved(true);
      await load();
    });
  };
  return (
    <section className="card" aria-labelledby="branches-title">
      <h2 id="branches-title">{t('branches.title')}</h2>
      <p>{t('branches.text')}</p>
      {branches.length ? (
        <ul>
          {branches.map((b) => (
            <li key={b.code}>
              <strong>{b.code}</strong> {b.name} — {t('branches.terminals')}:{' '}
              {b.terminals.map((x) => x.code).join(', ') || '—'}
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('branches.none')}</p>
      )}
      <form onSubmit={submit} noValidate>
        <Field
          label={t('branches.code')}
          name="branch_code"
          inputMode="numeric"
          maxLength={3}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          required
          error={action.failure?.forField('code')}
        />
        <Field
          label={t('branches.name')}
          name="branch_name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          error={action.failure?.forField('name')}
        />
        <Field
          label={t('branches.terminal')}
          name="terminal_code"
          inputMode="numeric"
          maxLength={5}
          value={terminal}
          onChange={(e) => setTerminal(e.target.value)}
          required
        />
        <Status kind="success">{saved ? t('common.saved') : null}</Status>
        <Status kind="error">{action.error}</Status>
        <button type="submit" disabled={action.pending}>
          {t('branches.add')}
        </button>
      </form>
    </section>
  );
}
