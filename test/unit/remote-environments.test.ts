// Pure parts of the remote environment types: the Kubernetes exec channel protocol's framing (standard
// input frames, v5's close frame, the error channel's Status as an exit code, the exec query), the
// Fly token's authorization header, paths inside a remote instance, and the process id a shell-based
// type's wrapper reports on standard error.
import { describe, expect, it } from 'vitest';
import { CHANNEL, closeFrame, execQuery, exitCodeOfStatus, stdinFrames } from '../../src/providers/environments/kubernetes-api.js';
import { authorization } from '../../src/providers/environments/fly-machines.js';
import { instancePath, workingDirectoryOf } from '../../src/providers/environments/instance-files.js';
import { ReportedProcessId } from '../../src/providers/environments/shell-commands.js';

describe('the Kubernetes exec channel protocol', () => {
  it('sends standard input as channel-0 frames of at most 32 KiB, and closes it with channel 255', () => {
    const data = Buffer.alloc(70 * 1024, 7);
    const frames = stdinFrames(data);
    expect(frames.map((f) => [f[0], f.length - 1])).toEqual([
      [CHANNEL.stdin, 32 * 1024],
      [CHANNEL.stdin, 32 * 1024],
      [CHANNEL.stdin, 6 * 1024],
    ]);
    expect(Buffer.concat(frames.map((f) => f.subarray(1)))).toEqual(data);
    expect(stdinFrames(Buffer.alloc(0))).toEqual([]);
    expect([...closeFrame(CHANNEL.stdin)]).toEqual([255, 0]);
  });

  it('reads the exit code from the error channel’s Status', () => {
    expect(exitCodeOfStatus({ status: 'Success' })).toBe(0);
    expect(
      exitCodeOfStatus({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        message: 'command terminated with non-zero exit code: exit status 3',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      }),
    ).toBe(3);
    // Not an exit: the command could not start.
    expect(exitCodeOfStatus({ status: 'Failure', reason: 'InternalError', message: 'executable file not found' })).toBeNull();
    expect(exitCodeOfStatus({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [] } })).toBeNull();
  });

  it('puts the command (repeated), the container and the streams in the query', () => {
    expect(execQuery('workspace', ['/bin/sh', '-c', 'echo a&b'], true).toString()).toBe(
      'command=%2Fbin%2Fsh&command=-c&command=echo+a%26b&container=workspace&stdin=true&stdout=true&stderr=true',
    );
    expect(execQuery('workspace', ['true'], false).get('stdin')).toBe('false');
  });
});

describe('the Fly token', () => {
  it('is sent as a bearer token, or as it is when it is a macaroon (FlyV1)', () => {
    expect(authorization('abc123')).toBe('Bearer abc123');
    expect(authorization(' FlyV1 fm2_xyz,fm2_abc ')).toBe('FlyV1 fm2_xyz,fm2_abc');
  });
});

describe('paths in a remote instance', () => {
  it('resolve against the working directory; absolute paths stay; NUL is refused', () => {
    expect(instancePath('/workspace', 'a/../b.txt')).toBe('/workspace/b.txt');
    expect(instancePath('/workspace', undefined)).toBe('/workspace');
    expect(instancePath('/workspace', '/etc/hosts')).toBe('/etc/hosts');
    expect(() => instancePath('/workspace', 'a\0b')).toThrow(/NUL/);
    expect(workingDirectoryOf({}, '/workspace')).toBe('/workspace');
    expect(workingDirectoryOf({ working_directory: '/srv//app/' }, '/workspace')).toBe('/srv/app/');
    expect(() => workingDirectoryOf({ working_directory: 'rel' }, '/workspace')).toThrow(/absolute/);
  });
});

describe("the process id a command's wrapper reports on standard error", () => {
  it('takes the first line as the id (however it is split), passes the rest on, and sends a kill asked for earlier once it arrives', () => {
    const killed: string[] = [];
    const reported = new ReportedProcessId((pid) => killed.push(pid));
    reported.kill();
    expect(killed).toEqual([]);
    expect(reported.stderr(Buffer.from('12'))).toHaveLength(0);
    expect(reported.stderr(Buffer.from('34\nwarn'))).toEqual(Buffer.from('warn'));
    expect([reported.pid, killed]).toEqual(['1234', ['1234']]);
    expect(reported.stderr(Buffer.from('ing\n'))).toEqual(Buffer.from('ing\n'));
    reported.kill();
    expect(killed).toEqual(['1234', '1234']);
    expect(reported.end()).toHaveLength(0);
  });

  it("keeps a first line that is no process id (the platform's reason the wrapper did not start) as standard error", () => {
    const killed: string[] = [];
    const reported = new ReportedProcessId((pid) => killed.push(pid));
    expect(reported.stderr(Buffer.from('exec failed: no such file\nmore'))).toEqual(Buffer.from('exec failed: no such file\nmore'));
    reported.kill();
    expect([reported.pid, killed]).toEqual([null, []]);

    const cut = new ReportedProcessId(() => undefined);
    expect(cut.stderr(Buffer.from('OCI runtime exec failed'))).toHaveLength(0);
    expect(cut.end()).toEqual(Buffer.from('OCI runtime exec failed'));
    expect(cut.pid).toBeNull();
  });
});
