import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
// Waiting for something a test can only observe by asking again (another process, a background
// worker): reads until the value is acceptable, and fails naming what it waited for.
export async function waitFor<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The processes among `children` still running after each was given `withinMs` to end. A kill has
 * been sent when a driver answers, but this process hears of the exit a moment later: waiting for
 * the exit event (well inside a `sleep 30`'s lifetime) checks the kill without racing it.
 */
export async function stillRunning(children: readonly ChildProcess[], withinMs = 15_000): Promise<ChildProcess[]> {
  const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const states = await Promise.all(
    children.map((child) =>
      ended(child)
        ? true
        : Promise.race([
            once(child, 'exit').then(() => true),
            new Promise<boolean>((resolve) => setTimeout(() => resolve(ended(child)), withinMs).unref()),
          ]),
    ),
  );
  return children.filter((_, index) => !states[index]);
}
