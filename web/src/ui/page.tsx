// A page's frame inside <main>: its title (the document title too) and focus moved to the heading
// on navigation, so screen readers and keyboards start at the new page.
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function Page({ title, children, wide }: { title: string; children: ReactNode; wide?: boolean }) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
  }, [title, t]);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <div className={wide ? 'page page-wide' : 'page'}>
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children}
    </div>
  );
}
