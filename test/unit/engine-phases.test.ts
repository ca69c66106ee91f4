// The pure parts of an attempt: the toolset built from an agent configuration, the messages a run
// starts from, the output check and the system prompt.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../src/generated/prisma/client.js';
import type { Deps } from '../../src/services/deps.js';
import type { RunAgentConfig } from '../../src/engine/agent-config.js';
import { systemPrompt } from '../../src/engine/executor.js';
import { startingMessages, textOf } from '../../src/engine/messages.js';
import { assistantMessage } from '../../src/engine/model-turn.js';
import { checkOutput, outputInstruction, outputResponseFormat, responseFormatName } from '../../src/engine/output-check.js';
import type { CallContext } from '../../src/services/call-context.js';
import type { Mount } from '../../src/engine/memory-mounts.js';
import { buildToolset, Toolset } from '../../src/engine/tools/toolset.js';
import type { RunTool, ToolSource } from '../../src/engine/tools/tool.js';
import { resolvePermission } from '../../src/engine/tools/permissions.js';
import { modelPreview, presentOutput, TOOL_OUTPUT_INLINE_BYTES, TOOL_OUTPUT_STORED_BYTES } from '../../src/engine/tools/tool-output.js';
import { pageOf } from '../../src/features/runs/run-item-content.js';
import { PLUGIN_TOOLS } from '../../src/engine/tools/plugins/registry.js';
import { PLUGINS } from '../../src/features/agents/documents/plugins.js';

const run = { id: 'run_1', workspaceId: 'ws_1', principalId: 'key_1', currentAttemptId: 'att_1', labels: {} } as Run;
// Building a toolset reads no service: the memory tools use `deps` and `call` only when a call is carried out.
const deps = {} as Deps;
const call = {} as CallContext;
const build = (config: Partial<RunAgentConfig>, mounts: Mount[] = []) =>
  buildToolset({ deps, call, run, config: { model: 'dev', ...config }, mounts });

describe('the toolset of an attempt', () => {
  it('offers client tools, ask_user and memory tools in that order, each carried out as its kind says', async () => {
    const toolset = await build(
      {
        client_tools: [
          { name: 'open_page', description: 'Opens a page', instruction: 'Only http URLs', permission: 'ask' },
          { name: 'beep', permission: 'inherit' },
          { name: 'wipe', permission: 'deny' },
        ],
        user_questions: true,
      },
      [
        { memory_id: 'mem_1', name: 'Team Notes', access: 'write', recall: false },
        { memory_id: 'mem_2', name: 'Docs', access: 'read', recall: true },
      ],
    );
    expect(toolset.offeredNames()).toEqual([
      'open_page',
      'beep',
      'wipe',
      'ask_user',
      'search_memory_team_notes',
      'add_memory_team_notes',
      'replace_memory_team_notes',
      'search_memory_docs',
      // Beside server tools, the reader of large results.
      'read_tool_output',
    ]);
    expect(toolset.get('open_page')).toMatchObject({
      description: 'Opens a page\n\nOnly http URLs',
      permission: 'ask',
      execution: { kind: 'client', title: 'Opens a page' },
      inputSchema: { type: 'object', properties: {} },
    });
    expect(toolset.get('beep')).toMatchObject({ description: 'beep', permission: 'allow', execution: { kind: 'client', title: 'beep' } });
    expect(toolset.get('wipe')?.permission).toBe('deny');
    expect(toolset.get('ask_user')?.execution.kind).toBe('question');
    expect(toolset.get('search_memory_docs')?.execution.kind).toBe('server');
    // A read-only mount's write tools are known (a call is answered "read-only") but not offered.
    expect(toolset.isOffered('add_memory_docs')).toBe(false);
    expect(toolset.get('add_memory_docs')?.execution.kind).toBe('server');
    const readOnly = toolset.get('add_memory_docs')!.execution;
    if (readOnly.kind !== 'server') throw new Error('expected a server tool');
    await expect(readOnly.execute({ text: 'x' }, { toolCallId: 'c1', signal: new AbortController().signal })).rejects.toThrow(
      'the memory "Docs" is mounted read-only',
    );
    expect(Object.keys(toolset.forModel())).toEqual(toolset.offeredNames());
    expect(toolset.forModel()).toBe(toolset.forModel());
  });

  it('offers ask_user only with user_questions, and nothing for an agent without tools', async () => {
    expect((await build({})).offeredNames()).toEqual([]);
    expect((await build({ user_questions: false })).get('ask_user')).toBeUndefined();
  });

  it('keeps names unique: a client tool keeps its name, colliding server tools are namespaced', () => {
    const tool = (name: string, kind: 'client' | 'server', namespace?: string): RunTool => ({
      name,
      namespace,
      description: `${namespace ?? ''} ${name}`,
      inputSchema: { type: 'object' },
      permission: 'allow',
      offered: true,
      execution: kind === 'client' ? { kind: 'client', title: name } : { kind: 'server', execute: async () => null },
    });
    const toolset = new Toolset([
      tool('fetch', 'server', 'web'),
      tool('fetch', 'client', 'client'),
      tool('fetch', 'server', 'Ops Team'),
      tool('lookup', 'server', 'a'),
      tool('lookup', 'server', 'a'),
      tool('a__lookup', 'server', 'b'),
      tool('solo', 'server', 'x'),
    ]);
    expect(toolset.offeredNames()).toEqual(['web__fetch', 'fetch', 'ops_team__fetch', 'a__lookup__2', 'a__lookup__3', 'a__lookup', 'solo']);
    expect(toolset.get('fetch')?.execution.kind).toBe('client');
    expect(toolset.get('ops_team__fetch')?.description).toBe('Ops Team fetch');
    const long = new Toolset([tool('x'.repeat(60), 'server', 'one'), tool('x'.repeat(60), 'server', 'two')]);
    for (const name of long.offeredNames()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(long.offeredNames()).size).toBe(2);
  });

  it('a source offers its deferred tools later under their names in the run (namespaced where they collided)', async () => {
    const deferred = (name: string, namespace: string): RunTool => ({
      name,
      namespace,
      description: name,
      inputSchema: { type: 'object' },
      permission: 'allow',
      offered: false,
      execution: { kind: 'server', execute: async () => null },
    });
    let loadAll!: () => string[];
    const source: ToolSource = ({ offerTools, nameInRun }) => {
      const tools = [deferred('echo', 'Alpha'), deferred('echo', 'Beta'), deferred('sum', 'Beta')];
      loadAll = () => {
        const names = tools.map(nameInRun);
        offerTools(names);
        return names;
      };
      return tools;
    };
    const toolset = await buildToolset({ deps, call, run, config: { model: 'dev' }, mounts: [] }, [source]);
    expect(toolset.offeredNames()).toEqual([]);
    expect(loadAll()).toEqual(['alpha__echo', 'beta__echo', 'sum']);
    expect(toolset.offeredNames()).toEqual(['alpha__echo', 'beta__echo', 'sum']);
  });

  it('resolves a permission: the tool entry, else the source, else the agent default (allow)', () => {
    expect(resolvePermission('t', undefined)).toBe('allow');
    expect(resolvePermission('t', { permission: 'inherit' })).toBe('allow');
    expect(resolvePermission('t', { permission: 'ask' })).toBe('ask');
    expect(resolvePermission('t', { permission: 'ask', permissions: { t: 'deny' } })).toBe('deny');
    expect(resolvePermission('t', { permission: 'deny', permissions: { t: 'inherit', u: 'allow' } })).toBe('deny');
  });

  it('keeps small results inline and stores large ones with a preview that names the ref', () => {
    expect(presentOutput({ ok: true })).toEqual({ kind: 'inline', value: { ok: true } });
    const big = 'é'.repeat(TOOL_OUTPUT_INLINE_BYTES);
    const stored = presentOutput(big);
    expect(stored).toMatchObject({
      kind: 'stored',
      mediaType: 'text/plain; charset=utf-8',
      sizeBytes: 2 * TOOL_OUTPUT_INLINE_BYTES,
      cut: false,
    });
    if (stored.kind !== 'stored') throw new Error('expected a stored output');
    const preview = modelPreview('itm_X:result', stored);
    expect(preview).toContain('read_tool_output {"ref": "itm_X:result", "offset": 8192}');
    expect(preview.endsWith('é'.repeat(8192))).toBe(true);
    const huge = presentOutput({ rows: 'x'.repeat(TOOL_OUTPUT_STORED_BYTES + 10) });
    expect(huge).toMatchObject({ kind: 'stored', mediaType: 'application/json', cut: true });
    if (huge.kind === 'stored') expect(Buffer.byteLength(huge.text)).toBe(TOOL_OUTPUT_STORED_BYTES);
    expect(pageOf('abcdef', 2, 3)).toEqual({ text: 'cde', nextOffset: 5 });
    expect(pageOf('abcdef', 4, 3)).toEqual({ text: 'ef', nextOffset: null });
  });
});

describe('the messages a run starts from', () => {
  const history = [{ role: 'user' as const, content: 'earlier' }];
  const input = {
    content: [
      { type: 'text', text: 'hello' },
      { type: 'image', media_type: 'image/png', data: 'AAAA' },
      { type: 'text', text: 'world' },
    ],
  };

  it('adds the input text after the history', () => {
    expect(textOf(input)).toBe('hello\nworld');
    expect(textOf(null)).toBe('');
    const { messages, approvedCalls } = startingMessages({ trigger: 'api', resume: null, input }, history, null);
    // Media stays in the message (media-understanding.ts decides per request what the model gets).
    expect(messages).toEqual([
      ...history,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'file', data: 'AAAA', mediaType: 'image/png' },
          { type: 'text', text: 'world' },
        ],
      },
    ]);
    expect(approvedCalls).toEqual([]);
    const textOnly = {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'text', text: 'world' },
      ],
    };
    expect(startingMessages({ trigger: 'api', resume: null, input: textOnly }, history, null).messages.at(-1)).toEqual({
      role: 'user',
      content: 'hello\nworld',
    });
  });

  it('answers what the parent waited for: denials and client results go to the model, approved calls are carried out', () => {
    const entry = (id: string, name: string) => ({ tool_call_id: id, tool_name: name, arguments: {}, presentation: {} });
    const pending = {
      approvals: [entry('a1', 'open'), entry('a2', 'open')],
      calls: [entry('c1', 'beep'), entry('c2', 'beep'), entry('c3', 'beep')],
    };
    const resume = {
      approvals: { a1: { action: 'approve' }, a2: { action: 'deny' } },
      calls: { c1: { status: 'returned', value: { ok: 1 } }, c2: { status: 'failed', value: 'broken' } },
    };
    const { messages, approvedCalls } = startingMessages({ trigger: 'resume', resume, input: {} }, history, pending);
    expect(approvedCalls.map((c) => c.tool_call_id)).toEqual(['a1']);
    expect(messages.slice(1)).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a2',
            toolName: 'open',
            output: { type: 'error-text', value: 'The user denied this tool call.' },
          },
          { type: 'tool-result', toolCallId: 'c1', toolName: 'beep', output: { type: 'json', value: { ok: 1 } } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'beep', output: { type: 'error-text', value: 'broken' } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'beep', output: { type: 'error-text', value: 'the tool call failed' } },
        ],
      },
    ]);
  });

  it('makes a never-empty assistant message of a turn', () => {
    expect(assistantMessage('', [])).toEqual({ role: 'assistant', content: [{ type: 'text', text: '' }] });
    expect(assistantMessage('hi', [{ toolCallId: 't', toolName: 'x', input: undefined }]).content).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'tool-call', toolCallId: 't', toolName: 'x', input: {} },
    ]);
  });
});

describe('the output check', () => {
  const spec = {
    schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    variants: [{ schema: { type: 'string' } }],
  };

  it('accepts JSON matching the schema or any variant, fenced or not', () => {
    expect(checkOutput(spec, '{"n": 2}')).toEqual({ ok: true, value: { n: 2 } });
    expect(checkOutput(spec, '```json\n"text"\n```')).toEqual({ ok: true, value: 'text' });
    expect(checkOutput({}, '[1]')).toEqual({ ok: true, value: [1] });
  });

  it('names the problem of an answer that does not match', () => {
    expect(checkOutput(spec, 'not json')).toEqual({ ok: false, problem: 'the output is not JSON' });
    const checked = checkOutput(spec, '{"n": "two"}');
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problem).toContain('; ');
  });
});

describe('what the model is told of an output spec', () => {
  const object = { type: 'object', properties: { n: { type: 'integer' } } };

  it('a one-schema spec is a response format with its name and description; a union or a non-object root is JSON mode', () => {
    expect(outputResponseFormat({ name: 'count', description: 'How many.', schema: object })).toEqual({
      type: 'json',
      schema: object,
      name: 'count',
      description: 'How many.',
    });
    // A single variant is that variant's format (its own name; the spec's description when it has none).
    expect(outputResponseFormat({ description: 'How many.', variants: [{ name: 'n', schema: object }] })).toEqual({
      type: 'json',
      schema: object,
      name: 'n',
      description: 'How many.',
    });
    expect(outputResponseFormat({ schema: object, variants: [{ schema: { type: 'string' } }] })).toEqual({ type: 'json' });
    expect(outputResponseFormat({ variants: [{ schema: object }, { schema: object }] })).toEqual({ type: 'json' });
    expect(outputResponseFormat({ schema: { type: 'array' } })).toEqual({ type: 'json' });
    expect(outputResponseFormat({ name: 'free' })).toEqual({ type: 'json' });
  });

  it('response format names keep to letters, digits, _ and -', () => {
    expect(responseFormatName('weekly report (v2)')).toBe('weekly_report_v2');
    expect(responseFormatName('ü')).toBe('output');
    expect(responseFormatName(undefined)).toBe('output');
    expect(responseFormatName('x'.repeat(80))).toHaveLength(64);
  });

  it('the instruction names the spec, its resources, its schema and each variant under its own line', () => {
    expect(
      outputInstruction({
        name: 'result',
        description: 'The outcome.',
        resources: { style: 'short' },
        schema: object,
        variants: [{ schema: { type: 'string' } }, { name: 'none', description: 'Nothing found.' }],
      }),
    ).toBe(
      [
        'Answer with JSON only.',
        'The answer "result": The outcome.',
        'Resources for it: {"style":"short"}',
        `It must match this JSON Schema: ${JSON.stringify(object)}`,
        'It may instead match any one of these variants:',
        '- Variant 1',
        '  It must match this JSON Schema: {"type":"string"}',
        '- Variant 2 "none": Nothing found.',
      ].join('\n'),
    );
    expect(outputInstruction({})).toBe('Answer with JSON only.');
  });
});

describe('the system prompt', () => {
  it('joins the instructions, what memory recalled and the output instruction', () => {
    const mount: Mount = { memory_id: 'mem_1', name: 'Docs', access: 'read', recall: true };
    const recalled = [
      { mount, records: [{ id: 'rec_1', text: 'the sky is blue', score: 0.9 }] },
      { mount: { ...mount, name: 'Empty' }, records: [] },
    ];
    expect(systemPrompt({ model: 'dev', instructions: 'Be brief.', output_spec: { schema: { type: 'string' } } }, recalled)).toBe(
      'Be brief.\n\nRecords from the memory "Docs" that may help:\n- [rec_1] the sky is blue\n\nAnswer with JSON only.\nIt must match this JSON Schema: {"type":"string"}',
    );
    expect(systemPrompt({ model: 'dev' }, [])).toBe('');
  });

  it("carries the offered tools' instructions (the skills catalogue) after the agent's instructions", () => {
    const tool = (name: string, offered: boolean, instructions?: string): RunTool => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
      permission: 'allow',
      offered,
      instructions,
      execution: { kind: 'client', title: name },
    });
    const toolset = new Toolset([tool('a', true, '# Skills\n- planning: plans'), tool('b', false, 'hidden'), tool('c', true)]);
    expect(toolset.instructions()).toEqual(['# Skills\n- planning: plans']);
    expect(systemPrompt({ model: 'dev', instructions: 'Be brief.' }, [], toolset.instructions())).toBe(
      'Be brief.\n\n# Skills\n- planning: plans',
    );
  });
});

describe('plugins', () => {
  it('every plugin of the catalog has tools, and nothing else does', () => {
    expect(Object.keys(PLUGIN_TOOLS).sort()).toEqual(PLUGINS.map((plugin) => plugin.key).sort());
  });
});
