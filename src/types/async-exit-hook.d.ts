declare module 'async-exit-hook' {
  type Hook = ((done: () => void) => void) | (() => void);
  interface ExitHook {
    (hook: Hook): void;
    forceExitTimeout(ms: number): void;
    /** The process events async-exit-hook listens to (signals, exit, beforeExit, …). */
    hookedEvents(): string[];
    /** Stops listening to one of them (its hooks then no longer run on it). */
    unhookEvent(event: string): void;
  }
  const exitHook: ExitHook;
  export default exitHook;
}
