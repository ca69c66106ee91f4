// Around the page in the signed-in frame: a section's pages arrive in their own chunk of the bundle
// (routes.tsx), so the first visit to a section waits for it. Meanwhile the page area says so (a polite
// status, read by screen readers); PageFocus has already moved focus to the page area, and the title
// follows the page's heading when it arrives. If the page cannot be shown — its chunk could not be
// fetched (the network, or a newer console deployed since this tab loaded) or it failed to render —
// the page area says what happened and offers a reload, instead of the whole console going blank.
import { Component, Suspense, type ErrorInfo, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Loading } from './ui';

export function PageLoading({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  // A new path starts with a clean slate: a failure belongs to the page it happened on.
  return (
    <PageFailure key={pathname}>
      <Suspense fallback={<Loading label="Loading the page…" />}>{children}</Suspense>
    </PageFailure>
  );
}

class PageFailure extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('the page failed', error, info.componentStack);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <>
        <h1>This page could not be shown</h1>
        <div role="alert" className="notice error">
          <p>{error.message}</p>
          <p>If the console was updated since this tab opened, reloading it fetches the new version.</p>
        </div>
        <div className="actions">
          <button type="button" onClick={() => window.location.reload()}>
            Reload the console
          </button>
        </div>
      </>
    );
  }
}
