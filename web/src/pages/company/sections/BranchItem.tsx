// One branch of the company: its terminals, a form to rename it and one to add a terminal. The
// change is PATCH /api/v1/company/branches/{code}; its `terminals` is the branch's whole list, so
// a new terminal goes with the ones it already has.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type ApiError, type Schemas } from '../../../api.ts';
import { Field, Status, useAction } from '../../../ui/forms.tsx';

export type Branch = Schemas['Branch'];
type Terminal = Branch['terminals'][number];

type BranchChange = { name: string } | { terminals: Terminal[] };

/** The number after the highest of `codes` (1 when there is none), `width` digits. */
export function nextCode(codes: string[], width: number): string {
  const highest = Math.max(0, ...codes.map(Number).filter(Number.isFinite));
  return String(Math.min(highest + 1, 10 ** width - 1)).padStart(width, '0');
}

const nextTerminalCode = (terminals: Terminal[]) =>
  nextCode(
    terminals.map((x) => x.code),
    5,
  );

/** The message of the API for one field of the change (`terminals/2/code` counts as `terminals`). */
function fieldError(failure: ApiError | null, prefix: string): string | null {
  if (!failure) return null;
  const e = failure.errors.find((x) => x.path.replace(/^\//, '').startsWith(prefix));
  if (e) return e.message ?? e.code;
  return failure.field?.startsWith(prefix) ? failure.detail : null;
}

export function BranchItem({ branch, onSaved }: { branch: Branch; onSaved(): Promise<void> }) {
  const { t } = useTranslation();
  const [name, setName] = useState(branch.name);
  const [terminal, setTerminal] = useState(nextTerminalCode(branch.terminals));
  const [terminalName, setTerminalName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  const change = (body: BranchChange, message: string, after?: () => void) => {
    setSaved(null);
    void action.run(async () => {
      const params = { path: { code: branch.code } };
      await unwrap(api.PATCH('/api/v1/company/branches/{code}', { params, body }));
      setSaved(message);
      after?.();
      await onSaved();
    });
  };
  const rename = (e: FormEvent) => {
    e.preventDefault();
    change({ name: name.trim() }, t('branches.renamed', { code: branch.code }));
  };
  const addTerminal = (e: FormEvent) => {
    e.preventDefault();
    const added = {
      code: terminal,
      name: terminalName.trim() || t('branches.terminalName', { code: terminal }),
    };
    const terminals = [...branch.terminals.map((x) => ({ code: x.code, name: x.name })), added];
    change({ terminals }, t('branches.terminalAdded', { code: terminal, branch: branch.code }), () => {
      setTerminal(nextTerminalCode(terminals));
      setTerminalName('');
    });
  };
  return (
    <li className="branch">
      <h3>
        {branch.code} · {branch.name}
      </h3>
      <p>
        {t('branches.terminals')}: {branch.terminals.map((x) => `${x.code} (${x.name})`).join(', ') || '—'}
      </p>
      <form onSubmit={rename} noValidate className="inline-form">
        <Field
          label={t('branches.newName', { code: branch.code })}
          name={`branch_${branch.code}_name`}
          value={name}
          maxLength={80}
          onChange={(e) => setName(e.target.value)}
          required
          error={fieldError(action.failure, 'name')}
        />
        <button type="submit" className="secondary" disabled={action.pending || !name.trim()}>
          {t('branches.rename')}
        </button>
      </form>
      <form onSubmit={addTerminal} noValidate className="inline-form">
        <Field
          label={t('branches.newTerminal', { code: branch.code })}
          name={`branch_${branch.code}_terminal`}
          inputMode="numeric"
          maxLength={5}
          value={terminal}
          onChange={(e) => setTerminal(e.target.value)}
          required
          error={fieldError(action.failure, 'terminals')}
        />
        <Field
          label={t('branches.newTerminalName', { code: branch.code })}
          name={`branch_${branch.code}_terminal_name`}
          maxLength={80}
          value={terminalName}
          onChange={(e) => setTerminalName(e.target.value)}
          placeholder={t('branches.terminalName', { code: terminal })}
        />
        <button type="submit" className="secondary" disabled={action.pending}>
          {t('branches.addTerminal')}
        </button>
      </form>
      <Status kind="success">{saved}</Status>
      <Status kind="error">{action.error}</Status>
    </li>
  );
}
