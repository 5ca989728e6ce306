// Live totals of a document being written: POST /api/v1/invoices/preview with the body the issue
// would send, debounced, latest answer wins. The server computes every amount; the page only shows.
import { useEffect, useRef, useState } from 'react';
import { api, ApiError, unwrap } from '../../api.ts';
import type { components } from '../../../../client/src/schema.ts';

export type Preview = components['schemas']['InvoicePreview'];
type Body = components['schemas']['CreateInvoiceRequest'];

export interface PreviewState {
  preview: Preview | null;
  failure: ApiError | null;
  pending: boolean;
}

export function usePreview(body: Body | null, delayMs = 400): PreviewState {
  const [state, setState] = useState<PreviewState>({ preview: null, failure: null, pending: false });
  const seq = useRef(0);
  const key = body ? JSON.stringify(body) : '';
  useEffect(() => {
    if (!body) {
      setState({ preview: null, failure: null, pending: false });
      return;
    }
    const mine = ++seq.current;
    setState((s) => ({ ...s, pending: true }));
    const timer = setTimeout(() => {
      unwrap(api.POST('/api/v1/invoices/preview', { body }))
        .then((p) => mine === seq.current && setState({ preview: p, failure: null, pending: false }))
        .catch((err: unknown) => {
          if (mine !== seq.current) return;
          setState({ preview: null, failure: err instanceof ApiError ? err : null, pending: false });
        });
    }, delayMs);
    return () => clearTimeout(timer);
  }, [key, delayMs]);
  return state;
}
