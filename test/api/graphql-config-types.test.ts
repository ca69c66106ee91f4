// Typed configuration in GraphQL: the agent configuration member by member (a configuration that
// sets every member), the run options with their overrides and the run's agent view, skill content,
// provider type descriptions per kind, and labels as key/value pairs on every labelled type. Each
// typed answer is compared with the stored document REST answers, which stays exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel, insertWorkspaceResource } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'main');
  await insertModel(t, 'judge');
});
afterAll(async () => {
  await t.stop();
});

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const { data, errors } = await t.graphql(query, variables);
  expect(errors, JSON.stringify(errors)).toBeUndefined();
  return data;
}

/** Every member of the typed configuration (AgentConfiguration and AgentConfigurationOverrides share them). */
const CONFIGURATION = `
  model modelSettings instructions userQuestions
  modelCharacteristics { compactThreshold contextWindowTokens proactiveContextManagementThreshold }
  clientTools { name description instruction metadata parametersJsonSchema permission }
  connectionTools { connectionId tools deferLoading permission permissions { tool permission } }
  toolsets { name config enabled tools }
  platformTools { groups readPermission writePermission }
  builtinSkills
  skills { skillId revisionId }
  skillSync { cleanup mode overwrite }
  memoryMounts { memoryId name access recall }
  plugins { pluginKey instanceName config }
  subagents { name agentId revisionId description permission overrides { instructions model } agent { name } }
  subagentMode defaultEnvironmentTemplateId lazyEnvironment
  mediaUnderstanding { audio image video }
  outputSpec { name description resources schema variants { name description resources schema } }
  retries { output tools }
  reviewer {
    instruction shellInstruction model modelSettings onError onFlagged riskThreshold timeoutSeconds
    rules { key onFlagged riskThreshold }
  }
`;

describe('the agent configuration', () => {
  it('is typed member by member; configDocument is the stored document REST answers', async () => {
    const connection = await insertWorkspaceResource(t, 'connection');
    const template = await insertWorkspaceResource(t, 'environmentTemplate');
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Notes' } })).body.id as string;
    const skill = (
      await t.rest('POST', '/api/v1/skills', { body: { name: 'Writing', content: { name: 'writing', instructions: '# Write' } } })
    ).body;
    const helper = (await t.rest('POST', '/api/v1/agents', { body: { name: 'Helper', config: { model: 'main' } } })).body;
    const config = {
      model: 'main',
      model_settings: { temperature: 0.2, nested: { deep: [1, 2] } },
      model_characteristics: { compact_threshold: 0.8, context_window_tokens: 128000, proactive_context_management_threshold: 0.6 },
      instructions: 'Be helpful.',
      client_tools: [
        {
          name: 'lookup',
          description: 'Looks up',
          instruction: 'use sparingly',
          metadata: { ui: 'card' },
          parameters_json_schema: { type: 'object', properties: { q: { type: 'string' } } },
          permission: 'ask',
        },
        { name: 'bare' },
      ],
      connection_tools: [
        {
          connection_id: connection,
          tools: ['search', 'fetch'],
          defer_loading: true,
          permission: 'inherit',
          permissions: { search: 'allow', fetch: 'deny' },
        },
      ],
      toolsets: { web: { config: { max_results: 3 }, enabled: true, tools: { web_fetch: {} } } },
      platform_tools: { groups: ['agents'], read_permission: 'allow', write_permission: 'ask' },
      builtin_skills: ['planning'],
      skills: [{ skill_id: skill.id, revision_id: skill.default_revision_id }],
      skill_sync: { cleanup: true, mode: 'isolated', overwrite: false },
      memory_mounts: [{ memory_id: memory, name: 'notes', access: 'write', recall: true }],
      plugins: [{ plugin_key: 'http_request', instance_name: 'g1', config: { permission: 'ask' } }],
      subagents: { researcher: { agent_id: helper.id, description: 'finds sources', overrides: { instructions: 'Be brief.' } } },
      subagent_mode: 'thread',
      default_environment_template_id: template,
      lazy_environment: true,
      media_understanding: { audio: 'main', image: 'judge', video: 'main' },
      output_spec: {
        name: 'answer',
        description: 'the answer',
        resources: { r: 1 },
        schema: { type: 'object' },
        variants: [{ name: 'short', description: 'brief', resources: {}, schema: { type: 'string' } }],
      },
      retries: { output: 2, tools: 3 },
      reviewer: {
        instruction: 'check',
        shell_instruction: 'check shell',
        model: 'judge',
        model_settings: { temperature: 0 },
        on_error: 'deny',
        on_flagged: 'ask',
        risk_threshold: 'medium',
        rules: { shell: { on_flagged: 'deny', risk_threshold: 'low' }, files: { on_flagged: 'allow', risk_threshold: 'high' } },
        timeout_seconds: 120,
      },
      user_questions: true,
    };
    const created = await gql(
      'mutation($c: AgentConfigurationDocument!) { createAgent(input: {name: "Rich", config: $c}) { agent { id defaultRevisionId } } }',
      {
        c: config,
      },
    );
    const data = await gql(
      `query($a: ID!, $r: ID!) { agentRevision(agentId: $a, revisionId: $r) { config { ${CONFIGURATION} } configDocument } }`,
      { a: created.createAgent.agent.id, r: created.createAgent.agent.defaultRevisionId },
    );
    expect(data.agentRevision.config).toEqual({
      model: 'main',
      modelSettings: { temperature: 0.2, nested: { deep: [1, 2] } },
      instructions: 'Be helpful.',
      userQuestions: true,
      modelCharacteristics: { compactThreshold: 0.8, contextWindowTokens: 128000, proactiveContextManagementThreshold: 0.6 },
      clientTools: [
        {
          name: 'lookup',
          description: 'Looks up',
          instruction: 'use sparingly',
          metadata: { ui: 'card' },
          parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } },
          permission: 'ask',
        },
        { name: 'bare', description: null, instruction: null, metadata: null, parametersJsonSchema: null, permission: null },
      ],
      connectionTools: [
        {
          connectionId: connection,
          tools: ['search', 'fetch'],
          deferLoading: true,
          permission: 'inherit',
          // the map, ordered by tool name
          permissions: [
            { tool: 'fetch', permission: 'deny' },
            { tool: 'search', permission: 'allow' },
          ],
        },
      ],
      // the map as a list of named entries
      toolsets: [{ name: 'web', config: { max_results: 3 }, enabled: true, tools: { web_fetch: {} } }],
      platformTools: { groups: ['agents'], readPermission: 'allow', writePermission: 'ask' },
      builtinSkills: ['planning'],
      skills: [{ skillId: skill.id, revisionId: skill.default_revision_id }],
      skillSync: { cleanup: true, mode: 'isolated', overwrite: false },
      memoryMounts: [{ memoryId: memory, name: 'notes', access: 'write', recall: true }],
      plugins: [{ pluginKey: 'http_request', instanceName: 'g1', config: { permission: 'ask' } }],
      subagents: [
        {
          name: 'researcher',
          agentId: helper.id,
          revisionId: null,
          description: 'finds sources',
          permission: null,
          overrides: { instructions: 'Be brief.', model: null },
          agent: { name: 'Helper' },
        },
      ],
      subagentMode: 'thread',
      defaultEnvironmentTemplateId: template,
      lazyEnvironment: true,
      mediaUnderstanding: { audio: 'main', image: 'judge', video: 'main' },
      outputSpec: {
        name: 'answer',
        description: 'the answer',
        resources: { r: 1 },
        schema: { type: 'object' },
        variants: [{ name: 'short', description: 'brief', resources: {}, schema: { type: 'string' } }],
      },
      retries: { output: 2, tools: 3 },
      reviewer: {
        instruction: 'check',
        shellInstruction: 'check shell',
        model: 'judge',
        modelSettings: { temperature: 0 },
        onError: 'deny',
        onFlagged: 'ask',
        riskThreshold: 'medium',
        timeoutSeconds: 120,
        rules: [
          { key: 'files', onFlagged: 'allow', riskThreshold: 'high' },
          { key: 'shell', onFlagged: 'deny', riskThreshold: 'low' },
        ],
      },
    });
    // The document as stored, member order included, is what the REST view answers.
    expect(data.agentRevision.configDocument).toEqual(config);
    const rest = await t.rest(
      'GET',
      `/api/v1/agents/${created.createAgent.agent.id}/revisions/${created.createAgent.agent.defaultRevisionId}`,
    );
    expect(JSON.stringify(rest.body.config)).toBe(JSON.stringify(data.agentRevision.configDocument));
  });

  it('answers null for members a configuration does not set, and its defaults for instructions and user questions', async () => {
    const created = await gql(
      'mutation { createAgent(input: {name: "Plain", config: {model: "main"}}) { agent { id defaultRevisionId } } }',
    );
    const data = await gql(
      `query($a: ID!, $r: ID!) { agentRevision(agentId: $a, revisionId: $r) { config { ${CONFIGURATION} } configDocument } }`,
      { a: created.createAgent.agent.id, r: created.createAgent.agent.defaultRevisionId },
    );
    const { model, instructions, userQuestions, ...rest } = data.agentRevision.config;
    expect({ model, instructions, userQuestions }).toEqual({ model: 'main', instructions: '', userQuestions: false });
    expect(Object.values(rest).every((value) => value === null)).toBe(true);
    expect(Object.keys(rest)).toHaveLength(19); // the 22 members less the three with defaults
    expect(data.agentRevision.configDocument).toEqual({ model: 'main', instructions: '', user_questions: false });
  });

  it('is validated as one JSON document on input, naming the member at fault', async () => {
    const { errors } = await t.graphql(
      'mutation { createAgent(input: {name: "Bad", config: {model: "main", reviewer: {timeout_seconds: 0}}}) { agent { id } } }',
    );
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'config.reviewer.timeout_seconds' } });
  });
});

describe('run options', () => {
  it('are typed, with the overrides as a partial configuration; the run agent view applies them', async () => {
    const agent = await gql(
      'mutation { createAgent(input: {name: "Opt", labels: {team: "core"}, config: {model: "main", instructions: "base", retries: {output: 1}}}) { agent { id } } }',
    );
    const options = {
      configuration: { allowed_hosts: ['example.com', 'api.example.com'], extensions: { trace: { sample: 0.5 } } },
      labels: { source: 'ui', batch: '7' },
      max_usage: { requests: 5 },
      overrides: {
        instructions: 'overridden',
        retries: { tools: 4 },
        toolsets: { web: { enabled: false } },
        reviewer: { risk_threshold: 'critical', rules: { net: { on_flagged: 'deny' } } },
        builtin_skills: ['planning'],
      },
    };
    const started = await gql('mutation($i: StartRunInput!) { startRun(input: $i) { run { id } } }', {
      i: { agentId: agent.createAgent.agent.id, input: { content: [{ type: 'text', text: 'hi' }] }, options },
    });
    const runId = started.startRun.run.id as string;
    await settleRun(t, runId);
    const data = await gql(
      `query($id: ID!) {
        run(id: $id) {
          options {
            configuration { allowedHosts extensions }
            labels labelList { key value }
            maxUsage { requests }
            overrides { ${CONFIGURATION} }
          }
          optionsDocument
        }
        runAgent(runId: $id) {
          config { model instructions retries { output tools } toolsets { name enabled } reviewer { riskThreshold rules { key onFlagged riskThreshold } } builtinSkills }
          configDocument
          revision { config { instructions retries { output tools } } }
        }
      }`,
      { id: runId },
    );
    const { overrides, ...typed } = data.run.options;
    expect(typed).toEqual({
      configuration: { allowedHosts: ['example.com', 'api.example.com'], extensions: { trace: { sample: 0.5 } } },
      labels: { source: 'ui', batch: '7' },
      labelList: [
        { key: 'batch', value: '7' },
        { key: 'source', value: 'ui' },
      ],
      maxUsage: { requests: 5 },
    });
    // Overrides set only what they override: everything else is null (model and instructions included).
    const set = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== null));
    expect(set).toEqual({
      instructions: 'overridden',
      retries: { output: null, tools: 4 },
      toolsets: [{ name: 'web', config: null, enabled: false, tools: null }],
      reviewer: {
        instruction: null,
        shellInstruction: null,
        model: null,
        modelSettings: null,
        onError: null,
        onFlagged: null,
        riskThreshold: 'critical',
        timeoutSeconds: null,
        rules: [{ key: 'net', onFlagged: 'deny', riskThreshold: null }],
      },
      builtinSkills: ['planning'],
    });
    expect(overrides.model).toBeNull();
    expect(data.run.optionsDocument).toEqual(options);

    // The agent view: the revision's configuration with the overrides applied member by member.
    expect(data.runAgent.config).toEqual({
      model: 'main',
      instructions: 'overridden',
      retries: { output: null, tools: 4 },
      toolsets: [{ name: 'web', enabled: false }],
      reviewer: { riskThreshold: 'critical', rules: [{ key: 'net', onFlagged: 'deny', riskThreshold: null }] },
      builtinSkills: ['planning'],
    });
    expect(data.runAgent.revision.config).toEqual({ instructions: 'base', retries: { output: 1, tools: null } });

    // REST answers the stored documents, unchanged.
    const run = await t.rest('GET', `/api/v1/runs/${runId}`);
    expect(JSON.stringify(run.body.options)).toBe(JSON.stringify(data.run.optionsDocument));
    const view = await t.rest('GET', `/api/v1/runs/${runId}/agent`);
    expect(JSON.stringify(view.body.config)).toBe(JSON.stringify(data.runAgent.configDocument));
  });

  it('are empty for a run started without options: every member null', async () => {
    const agent = await gql('mutation { createAgent(input: {name: "NoOpt", config: {model: "main"}}) { agent { id } } }');
    const started = await gql('mutation($i: StartRunInput!) { startRun(input: $i) { run { id } } }', {
      i: { agentId: agent.createAgent.agent.id, input: { content: [{ type: 'text', text: 'hi' }] } },
    });
    await settleRun(t, started.startRun.run.id);
    const data = await gql(
      'query($id: ID!) { run(id: $id) { options { configuration { allowedHosts } labels labelList { key } maxUsage { requests } overrides { model } } optionsDocument } }',
      {
        id: started.startRun.run.id,
      },
    );
    expect(data.run).toEqual({
      options: { configuration: null, labels: null, labelList: null, maxUsage: null, overrides: null },
      optionsDocument: {},
    });
  });
});

describe('skill content', () => {
  it('is typed, files ordered by path; contentDocument is the stored document', async () => {
    const content = {
      name: 'pdf-forms',
      instructions: '# Fill forms',
      files: [
        { path: 'scripts/fill.py', content: 'print(1)', media_type: 'text/x-python' },
        { path: 'README.md', content: '# readme' },
      ],
    };
    const created = await gql(
      'mutation($c: SkillContentDocument!) { createSkill(input: {name: "Forms", content: $c}) { skill { id defaultRevisionId } } }',
      {
        c: content,
      },
    );
    const data = await gql(
      'query($s: ID!, $r: ID!) { skillRevision(skillId: $s, revisionId: $r) { content { name description instructions files { path content mediaType } } contentDocument } }',
      { s: created.createSkill.skill.id, r: created.createSkill.skill.defaultRevisionId },
    );
    expect(data.skillRevision.content).toEqual({
      name: 'pdf-forms',
      description: '',
      instructions: '# Fill forms',
      files: [
        { path: 'README.md', content: '# readme', mediaType: 'text/plain' },
        { path: 'scripts/fill.py', content: 'print(1)', mediaType: 'text/x-python' },
      ],
    });
    const rest = await t.rest(
      'GET',
      `/api/v1/skills/${created.createSkill.skill.id}/revisions/${created.createSkill.skill.defaultRevisionId}`,
    );
    expect(JSON.stringify(rest.body.content)).toBe(JSON.stringify(data.skillRevision.contentDocument));
  });
});

describe('provider type descriptions', () => {
  const DESCRIPTION = `
    __typename type kind title configurationSchema credentialSchema credentialRequired setupUrl testSupported document
    ... on ModelProviderType { embeddingsSupported modelApis { api settingsSchema } }
    ... on WebProviderType { operations }
    ... on EnvironmentProviderType { environmentSchema supportsManagedInstances supportsStop supportsDestroy }
    ... on MemoryProviderType { embeddingModelRequired }
  `;
  const TYPE_NAMES = {
    model: 'ModelProviderType',
    web: 'WebProviderType',
    environment: 'EnvironmentProviderType',
    connector: 'ConnectorProviderType',
    memory: 'MemoryProviderType',
  } as const;

  it.each(Object.entries(TYPE_NAMES))('of %s types are typed per kind and agree with the REST view', async (kind, typeName) => {
    const data = await gql(`query($k: String!) { providerTypes(kind: $k) { ${DESCRIPTION} } }`, { k: kind });
    const rest = await t.rest('GET', `/api/v1/provider-types/${kind}`);
    expect(rest.status).toBe(200);
    const types = data.providerTypes as Record<string, any>[];
    expect(types.length).toBeGreaterThan(0);
    // The REST view is each description's document, in the same order.
    expect(JSON.stringify(rest.body)).toBe(JSON.stringify({ items: types.map((d) => d.document) }));
    for (const d of types) {
      const doc = d.document;
      expect(d.__typename).toBe(typeName);
      expect(d).toMatchObject({
        type: doc.type,
        kind,
        title: doc.title,
        configurationSchema: doc.configuration_schema,
        credentialSchema: doc.credential_schema,
        credentialRequired: doc.credential_required,
        setupUrl: doc.setup_url ?? null,
        testSupported: doc.test_supported,
      });
      if (kind === 'model') {
        expect(d.embeddingsSupported).toBe(doc.embeddings_supported);
        expect(d.modelApis).toEqual(doc.model_apis.map((a: any) => ({ api: a.api, settingsSchema: a.settings_schema })));
      }
      if (kind === 'web') expect(d.operations).toEqual(doc.operations);
      if (kind === 'environment') {
        expect(d).toMatchObject({
          environmentSchema: doc.environment_schema,
          supportsManagedInstances: doc.supports_managed_instances,
          supportsStop: doc.supports_stop,
          supportsDestroy: doc.supports_destroy,
        });
      }
      if (kind === 'memory') expect(d.embeddingModelRequired).toBe(doc.embedding_model_required);
    }
  });

  it('shows a setup URL only for types that have one (null in GraphQL, left out in REST)', async () => {
    const data = await gql('{ providerTypes(kind: "environment") { type setupUrl document } }');
    const withUrl = data.providerTypes.filter((d: any) => d.setupUrl !== null);
    const withoutUrl = data.providerTypes.filter((d: any) => d.setupUrl === null);
    expect(withUrl.length).toBeGreaterThan(0);
    expect(withoutUrl.length).toBeGreaterThan(0);
    for (const d of withUrl) expect(d.document.setup_url).toBe(d.setupUrl);
    for (const d of withoutUrl) expect('setup_url' in d.document).toBe(false);
  });

  it('answer not_found for an unknown kind, as REST does', async () => {
    const { errors } = await t.graphql('{ providerTypes(kind: "nope") { type } }');
    expect(errors?.[0]?.extensions?.code).toBe('not_found');
  });
});

describe('labels as key/value pairs', () => {
  it('sit beside the map on every labelled type, ordered by key', async () => {
    const labels = { zone: 'b', 'example.com/team': 'core', app: 'x' };
    const pairs = [
      { key: 'app', value: 'x' },
      { key: 'example.com/team', value: 'core' },
      { key: 'zone', value: 'b' },
    ];
    const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'labelled', labels } })).body;
    const model = (
      await t.rest('POST', '/api/v1/models', { body: { key: 'labelled', provider_id: provider.id, provider_model: 'echo', labels } })
    ).body;
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'labelled', labels } })).body;
    const skill = (
      await t.rest('POST', '/api/v1/skills', { body: { name: 'labelled', labels, content: { name: 'l', instructions: 'x' } } })
    ).body;
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'labelled', labels, config: { model: 'main' } } })).body;
    const session = (await t.rest('POST', '/api/v1/sessions', { body: { labels } })).body;
    const thread = (await t.rest('POST', '/api/v1/threads', { body: { session_id: session.id, labels } })).body;
    const run = (
      await t.rest('POST', '/api/v1/runs', {
        body: { agent_id: agent.id, thread_id: thread.id, input: { content: [{ type: 'text', text: 'hi' }] }, labels },
      })
    ).body;
    await settleRun(t, run.id);
    const workspace = await t.rest('GET', '/api/v1/workspace');
    await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': workspace.headers.get('etag')! }, body: { labels } });

    const data = await gql(
      `query($p: ID!, $m: String!, $mem: ID!, $s: ID!, $a: ID!, $ses: ID!, $th: ID!, $r: ID!) {
        workspace { labels labelList { key value } }
        provider(kind: "model", id: $p) { labels labelList { key value } }
        model(key: $m) { labels labelList { key value } }
        memory(id: $mem) { labels labelList { key value } }
        skill(id: $s) { labels labelList { key value } }
        agent(id: $a) { labels labelList { key value } }
        session(id: $ses) { labels labelList { key value } }
        thread(id: $th) { labels labelList { key value } }
        run(id: $r) { labels labelList { key value } }
      }`,
      { p: provider.id, m: model.key, mem: memory.id, s: skill.id, a: agent.id, ses: session.id, th: thread.id, r: run.id },
    );
    for (const [type, value] of Object.entries(data as Record<string, { labels: Record<string, string>; labelList: unknown }>)) {
      expect(value.labelList, type).toEqual(pairs);
      expect(value.labels, type).toEqual(labels);
    }
  });

  it('are an empty list where there are no labels', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'unlabelled', config: { model: 'main' } } })).body;
    const data = await gql('query($a: ID!) { agent(id: $a) { labels labelList { key } } }', { a: agent.id });
    expect(data.agent).toEqual({ labels: {}, labelList: [] });
  });
});
