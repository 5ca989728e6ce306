// A page's frame inside <main>: its title (the document title too) and focus moved to the heading
// after a navigation within the application, so screen readers and keyboards start at the new page
// (a page opened directly keeps the browser's order: the skip link first).
import { useEffect, useRef, type ReactNode } from 'react';
import { useNavigationType } from 'react-router';
import { useTranslation } from 'react-i18next';

export function Page({ title, children, wide }: { title: string; children: ReactNode; wide?: boolean }) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  const navigation = useNavigationType();
  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
  }, [title, t]);
  useEffect(() => {
    if (navigation !== 'POP') heading.current?.focus();
  }, [navigation]);
  return (
    <div className={wide ? 'page page-wide' : 'page'}>
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children}
    </div>
  );
}
