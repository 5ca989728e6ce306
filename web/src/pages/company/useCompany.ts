// The current company as GET /api/v1/company answers it (typed by the generated schema), with a
// reload for after each change.
import { useCallback, useEffect, useState } from 'react';
import { api, unwrap, type paths } from '../../api.ts';
import { useSession } from '../../session.tsx';

export type Company = paths['/api/v1/company']['get']['responses'][200]['content']['application/json'];

export function useCompany(): { company: Company | null; error: unknown; reload(): Promise<void> } {
  const { current, mode } = useSession();
  const [company, setCompany] = useState<Company | null>(null);
  const [error, setError] = useState<unknown>(null);
  const companyId = current?.company.id;
  const reload = useCallback(async () => {
    try {
      setCompany(await unwrap(api.GET('/api/v1/company')));
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    if (companyId) void reload();
  }, [companyId, mode, reload]);
  return { company, error, reload };
}

/** A file read in the browser as base64 (no data: prefix). */
export async function fileBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
