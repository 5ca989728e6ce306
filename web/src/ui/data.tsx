// Pieces of the pages that show the API's lists: a hook that loads (and reloads) one answer with
// its error, "load more" paging by starting_after, a file download through the API client (the
// session cookie, company and mode headers go with it) and a copy-to-clipboard button.
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api.ts';
import { useErrorText } from './forms.tsx';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when its dependencies change (and on reload()), keeping the last answer. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const text = useErrorText();
  useEffect(() => {
    let live = true;
    setLoading(true);
    load()
      .then((d) => {
        if (!live) return;
        setData(d);
        setError(null);
      })
      .catch((err: unknown) => live && setError(text(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** Downloads a file the API answers (XML, PDF, CSV, XLSX, ZIP) under `filename`. */
export async function downloadFile(
  path: string,
  filename: string,
  query?: Record<string, string>,
): Promise<void> {
  // openapi-fetch with parseAs blob keeps the application's headers (company, mode, language).
  const { data, response } = await api.GET(path as '/api/v1/invoices/{id}/xml', {
    params: { path: { id: '' }, query } as never,
    parseAs: 'blob',
  });
  if (!response.ok || !data) throw new Error(`HTTP ${response.status}`);
  const url = URL.createObjectURL(data as Blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A button that copies `text` and says so. */
export function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? t('common.copied') : t('common.copy')}
    </button>
  );
}

/** "Load more" for lists with has_more, or nothing when the list is complete. */
export function MoreButton({ hasMore, onMore }: { hasMore: boolean; onMore(): void }) {
  const { t } = useTranslation();
  if (!hasMore) return null;
  return (
    <div className="actions">
      <button type="button" className="secondary" onClick={onMore}>
        {t('common.more')}
      </button>
    </div>
  );
}
