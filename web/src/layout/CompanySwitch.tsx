import { useTranslation } from 'react-i18next';
import { useSession } from '../session.tsx';

/** Which company the application speaks for, and in which mode (test or live). */
export function CompanySwitch() {
  const { t } = useTranslation();
  const session = useSession();
  const { current, memberships, mode } = session;
  if (!current) return null;
  return (
    <div className="company-switch">
      <div className="control">
        <label htmlFor="company">{t('layout.company')}</label>
        <select
          id="company"
          value={current.company.id}
          onChange={(e) => session.selectCompany(e.target.value)}
        >
          {memberships.map((m) => (
            <option key={m.company.id} value={m.company.id}>
              {m.company.name}
            </option>
          ))}
        </select>
      </div>
      {current.company.live_enabled ? (
        <div className="control">
          <label htmlFor="mode">{t('layout.mode')}</label>
          <select
            id="mode"
            value={mode}
            onChange={(e) => session.selectMode(e.target.value as 'test' | 'live')}
          >
            <option value="test">{t('mode.test')}</option>
            <option value="live">{t('mode.live')}</option>
          </select>
        </div>
      ) : null}
      <span className={`badge badge-${mode}`} data-testid="mode-badge">
        {t(`mode.${mode}`)}
      </span>
    </div>
  );
}
