// The session context: who is signed in, their memberships, the current company and mode, and the
// CSRF token. It loads GET /api/v1/session once, keeps the request context of api.ts in step
// (Factura-Company, Factura-Mode, X-CSRF-Token) and remembers the chosen company and mode.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, setRequestContext, unwrap, type Mode } from './api.ts';
import { isLanguage, setLanguage } from './i18n/index.ts';
import type { Membership, SessionAnswer, User } from './session-types.ts';

const COMPANY_KEY = 'factura.company';
const MODE_KEY = 'factura.mode';

export interface Session {
  /** 'loading' until the first answer, then 'signed-in' or 'signed-out'. */
  status: 'loading' | 'signed-in' | 'signed-out';
  user: User | null;
  memberships: Membership[];
  current: Membership | null;
  mode: Mode;
  csrfToken: string | null;
  /** Takes the answer of a sign-in (or of GET /api/v1/session) as the session. */
  accept(answer: SessionAnswer): void;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
  selectCompany(id: string): void;
  selectMode(mode: Mode): void;
  can(scope: string): boolean;
}

const SessionContext = createContext<Session | null>(null);

function remembered(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function remember(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // private mode: kept for this page only
  }
}

function pickCompany(memberships: Membership[], wanted: string | null): Membership | null {
  return memberships.find((m) => m.company.id === wanted) ?? memberships[0] ?? null;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Session['status']>('loading');
  const [answer, setAnswer] = useState<SessionAnswer | null>(null);
  const [companyId, setCompanyId] = useState<string | null>(remembered(COMPANY_KEY));
  const [mode, setMode] = useState<Mode>(remembered(MODE_KEY) === 'live' ? 'live' : 'test');

  const memberships = useMemo(() => answer?.memberships ?? [], [answer]);
  const current = pickCompany(memberships, companyId);
  const effectiveMode: Mode = current?.company.live_enabled && mode === 'live' ? 'live' : 'test';

  // The request context follows the state before any child's effect runs its requests.
  setRequestContext({
    companyId: current?.company.id ?? null,
    mode: effectiveMode,
    csrfToken: answer?.csrf_token ?? null,
  });

  const accept = useCallback((next: SessionAnswer) => {
    setAnswer(next);
    setStatus('signed-in');
    setRequestContext({ csrfToken: next.csrf_token });
    if (isLanguage(next.user.locale)) void setLanguage(next.user.locale);
  }, []);

  const refresh = useCallback(async () => {
    try {
      accept(await unwrap(api.GET('/api/v1/session')));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err;
      setAnswer(null);
      setStatus('signed-out');
    }
  }, [accept]);

  const signOut = useCallback(async () => {
    try {
      await unwrap(api.DELETE('/api/v1/session'));
    } finally {
      setAnswer(null);
      setStatus('signed-out');
      setRequestContext({ csrfToken: null, companyId: null });
    }
  }, []);

  useEffect(() => {
    refresh().catch(() => setStatus('signed-out'));
  }, [refresh]);

  const value = useMemo<Session>(
    () => ({
      status,
      user: answer?.user ?? null,
      memberships,
      current,
      mode: effectiveMode,
      csrfToken: answer?.csrf_token ?? null,
      accept,
      refresh,
      signOut,
      selectCompany(id) {
        remember(COMPANY_KEY, id);
        setCompanyId(id);
      },
      selectMode(next) {
        remember(MODE_KEY, next);
        setMode(next);
      },
      can: (scope) => Boolean(current?.scopes.includes(scope)),
    }),
    [status, answer, memberships, current, effectiveMode, accept, refresh, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
