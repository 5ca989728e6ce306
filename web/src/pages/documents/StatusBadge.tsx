// A document's status in words, coloured by how it ended (accepted, rejected, on its way).
import { useTranslation } from 'react-i18next';

export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <span className={`badge status-${status}`} data-status={status}>
      {t(`statuses.${status}`, { defaultValue: status })}
    </span>
  );
}
