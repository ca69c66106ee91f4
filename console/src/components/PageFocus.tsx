// What a screen reader and the browser's tab strip need when the console moves between pages without
// reloading: the document title follows the page's heading (also when the heading arrives later, after
// the page's first answer), and after a navigation focus moves to the page, so keyboard and
// screen-reader users start at the new content rather than on the link they used.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

const APP_NAME = 'Agent console';

export function PageFocus({ mainId }: { mainId: string }) {
  const { pathname } = useLocation();
  // The path this frame last showed: a remount (signing in, switching workspaces) is not a navigation.
  const shown = useRef(pathname);

  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    // A navigation: the page starts here for the keyboard too.
    document.getElementById(mainId)?.focus();
  }, [pathname, mainId]);

  useEffect(() => {
    const main = document.getElementById(mainId);
    if (!main) return;
    const update = () => {
      const heading = main.querySelector('h1')?.textContent?.trim();
      const title = heading ? `${heading} · ${APP_NAME}` : APP_NAME;
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(main, { subtree: true, childList: true, characterData: true });
    return () => observer.disconnect();
  }, [mainId]);

  return null;
}
