import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { Mode } from '../../../api.ts';

/** Which environment a certificate or credentials are for: sandbox (test) or production (live). */
export function ModeSelect({ value, onChange }: { value: Mode; onChange(mode: Mode): void }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{t('company.environment')}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value === 'live' ? 'live' : 'test')}>
        <option value="test">{t('company.sandbox')}</option>
        <option value="live">{t('company.production')}</option>
      </select>
    </div>
  );
}
