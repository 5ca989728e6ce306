// Form pieces every page uses: a labelled field whose error is tied to it (aria-invalid,
// aria-describedby), a status region announced to screen readers (aria-live), and a hook that runs
// a submit, keeps its pending state and turns its failure into a message and a field.
import { useCallback, useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, NetworkError } from '../api.ts';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  /** The error of this field, shown under it and announced. */
  error?: string | null;
  hint?: ReactNode;
}

export function Field({ label, error, hint, id, ...input }: FieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A message region: errors are assertive (role=alert), the rest polite. Empty, it stays mounted. */
export function Status({ kind, children }: { kind: 'error' | 'info' | 'success'; children?: ReactNode }) {
  if (kind === 'error')
    return (
      <div role="alert" className={children ? 'status status-error' : 'status'}>
        {children}
      </div>
    );
  return (
    <div role="status" aria-live="polite" className={children ? `status status-${kind}` : 'status'}>
      {children}
    </div>
  );
}

/** A refusal of the page itself (a file not chosen…): its message is shown as it is. */
export class FormError extends Error {
  override readonly name = 'FormError';
}

/** The readable message of a failure: the API's explanation, or a network message. */
export function useErrorText(): (err: unknown) => string {
  const { t } = useTranslation();
  return useCallback(
    (err: unknown) => {
      if (err instanceof ApiError) {
        const known = t(`errors.${err.code}`, { defaultValue: '' });
        return known || err.detail;
      }
      if (err instanceof NetworkError) return t('errors.network');
      if (err instanceof FormError) return err.message;
      return t('errors.unexpected');
    },
    [t],
  );
}

export interface Action {
  pending: boolean;
  error: string | null;
  /** The API error of the last run, for field messages and codes. */
  failure: ApiError | null;
  run(work: () => Promise<void>): Promise<void>;
  clear(): void;
}

/** Runs one form's submit at a time and keeps its error. */
export function useAction(): Action {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const text = useErrorText();
  const run = useCallback(
    async (work: () => Promise<void>) => {
      setPending(true);
      setError(null);
      setFailure(null);
      try {
        await work();
      } catch (err) {
        setError(text(err));
        setFailure(err instanceof ApiError ? err : null);
      } finally {
        setPending(false);
      }
    },
    [text],
  );
  const clear = useCallback(() => {
    setError(null);
    setFailure(null);
  }, []);
  return { pending, error, failure, run, clear };
}
