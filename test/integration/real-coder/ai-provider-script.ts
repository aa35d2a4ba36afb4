// One scripted sequence of /api/v2/ai/providers calls, as an owner, for the real Coder and the Coder API
// double to answer alike (ai-provider-v2-36.test.ts): creates that Coder takes or refuses, reads by id and
// name, updates of each kind (an empty display name, a key set kept in another order, a rotation, settings
// null, ids Coder does not know), a Bedrock provider and its external id, and a soft delete. Each answer is
// reduced to what must agree: the status, Coder's message, detail and validations, and a provider as shown
// (masks sorted, as Coder orders keys added together by their random ids; the external id by its form).
// Names start with diff- so the other providers of a server do not count.
import { isDeepStrictEqual } from 'node:util';

type Json = any;

export interface ScriptAnswer {
  step: string;
  status: number;
  body: Json;
}

interface Step {
  step: string;
  method: string;
  path: (ctx: Record<string, string>) => string;
  body?: (ctx: Record<string, string>) => unknown;
  remember?: (ctx: Record<string, string>, body: Json) => void;
}

const providers = '/api/v2/ai/providers';
const at = (name: string) => () => `${providers}/${name}`;
const openaiKeys = ['sk-diff-first-00000000000001', 'sk-diff-second-0002', 'abc'];
const role = 'arn:aws:iam::123456789012:role/Bedrock';
const create = (body: Record<string, unknown>) => () => ({ enabled: true, ...body });

const steps: Step[] = [
  {
    step: 'create an openai provider with three keys',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'openai', name: 'diff-multi', base_url: 'https://api.openai.com/v1/', api_keys: openaiKeys }),
    remember: (ctx, body) => {
      ctx.multi = body.id;
      // The create answers the keys in the order sent.
      body.api_keys.forEach((k: { id: string }, i: number) => (ctx[`key${i}`] = k.id));
    },
  },
  {
    step: 'create it again',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'openai', name: 'diff-multi', base_url: 'https://api.openai.com/v1/' }),
  },
  {
    step: 'create with a bad name and an ftp URL',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'openai', name: 'Diff_Bad', base_url: 'ftp://example.com' }),
  },
  {
    step: 'create with a key that has spaces, an empty one, and no base URL',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'openai', name: 'diff-keys', base_url: '', api_keys: [' sk-1 ', ''] }),
  },
  {
    step: 'create bedrock with api keys',
    method: 'POST',
    path: () => providers,
    body: create({
      type: 'bedrock',
      name: 'diff-b1',
      base_url: 'https://x.example.com/',
      api_keys: ['k-123456'],
      settings: { _type: 'bedrock', _version: 1, region: 'us-west-2' },
    }),
  },
  {
    step: 'create bedrock without settings',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'bedrock', name: 'diff-b2', base_url: 'https://x.example.com/' }),
  },
  {
    step: 'create anthropic with bedrock settings and api keys',
    method: 'POST',
    path: () => providers,
    body: create({
      type: 'anthropic',
      name: 'diff-a1',
      base_url: 'https://x.example.com/',
      api_keys: ['k-123456'],
      settings: { _type: 'bedrock', _version: 1, region: 'us-west-2' },
    }),
  },
  {
    step: 'create openai with bedrock settings',
    method: 'POST',
    path: () => providers,
    body: create({
      type: 'openai',
      name: 'diff-o1',
      base_url: 'https://x.example.com/',
      settings: { _type: 'bedrock', _version: 1, region: 'us-west-2' },
    }),
  },
  {
    step: 'create copilot with api keys',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'copilot', name: 'diff-c1', base_url: 'https://api.individual.githubcopilot.com', api_keys: ['k-123456'] }),
  },
  {
    step: 'create bedrock with a role that is not an IAM role, and an external id',
    method: 'POST',
    path: () => providers,
    body: create({
      type: 'bedrock',
      name: 'diff-b3',
      base_url: 'https://x.example.com/',
      settings: { _type: 'bedrock', _version: 1, region: 'us-west-2', role_arn: 'arn:aws:s3:::bucket', external_id: 'MINE' },
    }),
  },
  {
    step: 'create bedrock with a role and credentials',
    method: 'POST',
    path: () => providers,
    body: create({
      type: 'bedrock',
      name: 'diff-bedrock',
      base_url: 'https://bedrock-runtime.us-west-2.amazonaws.com',
      settings: {
        _type: 'bedrock',
        _version: 1,
        region: 'us-west-2',
        model: '',
        role_arn: role,
        access_key: 'AKIA0001',
        access_key_secret: 's',
      },
    }),
    remember: (ctx, body) => {
      ctx.bedrock = body.id;
      ctx.externalID = body.settings.external_id;
    },
  },
  {
    step: 'create copilot',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'copilot', name: 'diff-copilot', base_url: 'https://api.individual.githubcopilot.com' }),
  },
  { step: 'get by name', method: 'GET', path: at('diff-multi') },
  { step: 'get by id', method: 'GET', path: (ctx) => `${providers}/${ctx.multi}` },
  { step: 'get a name Coder refuses', method: 'GET', path: at('Diff_Bad') },
  { step: 'get a name Coder does not have', method: 'GET', path: at('diff-none') },
  { step: 'update with an empty display name', method: 'PATCH', path: at('diff-multi'), body: () => ({ display_name: '' }) },
  { step: 'update with nothing', method: 'PATCH', path: at('diff-multi'), body: () => ({}) },
  { step: 'update with settings null only', method: 'PATCH', path: at('diff-multi'), body: () => ({ settings: null }) },
  {
    step: 'update keeping every key in reverse order',
    method: 'PATCH',
    path: at('diff-multi'),
    body: (ctx) => ({ api_keys: [ctx.key2, ctx.key1, ctx.key0].map((id) => ({ id })) }),
  },
  {
    step: 'update keeping one key and adding another',
    method: 'PATCH',
    path: at('diff-multi'),
    body: (ctx) => ({ api_keys: [{ id: ctx.key0 }, { api_key: 'sk-diff-rotated-000000009' }], display_name: 'Diff', enabled: false }),
  },
  {
    step: 'update with a key id Coder does not know',
    method: 'PATCH',
    path: at('diff-multi'),
    body: () => ({ api_keys: [{ id: '00000000-0000-0000-0000-000000000000' }] }),
  },
  {
    step: 'update with a key given twice and one with spaces',
    method: 'PATCH',
    path: at('diff-multi'),
    body: (ctx) => ({ api_keys: [{ id: ctx.key0 }, { id: ctx.key0 }, { api_key: ' x' }], base_url: 'nope' }),
  },
  {
    step: 'update bedrock with api keys',
    method: 'PATCH',
    path: at('diff-bedrock'),
    body: () => ({ api_keys: [{ api_key: 'k-1234567' }] }),
  },
  {
    step: 'update bedrock settings, repeating the external id',
    method: 'PATCH',
    path: at('diff-bedrock'),
    body: (ctx) => ({ settings: { _type: 'bedrock', _version: 1, region: 'us-east-1', role_arn: role, external_id: ctx.externalID } }),
  },
  {
    step: 'update bedrock settings with another external id',
    method: 'PATCH',
    path: at('diff-bedrock'),
    body: () => ({ settings: { _type: 'bedrock', _version: 1, region: 'us-east-1', role_arn: role, external_id: 'OTHER' } }),
  },
  {
    step: 'update bedrock, settings null beside a field',
    method: 'PATCH',
    path: at('diff-bedrock'),
    body: () => ({ settings: null, icon: '/icon/aws.svg' }),
  },
  {
    step: 'update copilot with api keys',
    method: 'PATCH',
    path: at('diff-copilot'),
    body: () => ({ api_keys: [{ api_key: 'k-1234567' }] }),
  },
  { step: 'list', method: 'GET', path: () => providers },
  { step: 'delete', method: 'DELETE', path: (ctx) => `${providers}/${ctx.multi}` },
  { step: 'get by id after the delete', method: 'GET', path: (ctx) => `${providers}/${ctx.multi}` },
  { step: 'get by name after the delete', method: 'GET', path: at('diff-multi') },
  { step: 'update after the delete', method: 'PATCH', path: (ctx) => `${providers}/${ctx.multi}`, body: () => ({ enabled: true }) },
  { step: 'delete again', method: 'DELETE', path: (ctx) => `${providers}/${ctx.multi}` },
  {
    step: 'create the name again',
    method: 'POST',
    path: () => providers,
    body: create({ type: 'openai', name: 'diff-multi', base_url: 'https://api.openai.com/v1/' }),
  },
  { step: 'list after', method: 'GET', path: () => providers },
];

/** A provider as it must agree: ids and times left out, masks sorted, the external id by its form. */
function shown(p: Json, ctx: Record<string, string>): Json {
  const { id: _id, created_at: _c, updated_at: _u, api_keys, settings, ...rest } = p;
  const masks = (api_keys as { masked: string }[] | null)?.map((k) => k.masked).sort();
  let visible = settings;
  if (settings?.external_id !== undefined) {
    const { external_id, ...others } = settings;
    const form = /^[A-Z2-7]{26}$/.test(external_id) ? 'generated' : external_id;
    visible = { ...others, external_id: ctx.externalID && external_id !== ctx.externalID ? `${form}, changed` : form };
  }
  return { ...rest, masks, settings: visible };
}

function reduce(status: number, body: Json, ctx: Record<string, string>): Json {
  if (status >= 400) {
    // An id this side was given stands as the name it was remembered by.
    let text = JSON.stringify({ message: body?.message, detail: body?.detail, validations: body?.validations });
    for (const [name, value] of Object.entries(ctx)) text = text.replaceAll(value, `<${name}>`);
    return JSON.parse(text);
  }
  if (Array.isArray(body)) return body.filter((p) => String(p.name).startsWith('diff-')).map((p) => shown(p, ctx));
  return body === undefined ? undefined : shown(body, ctx);
}

export async function providerScript(url: string, token: string): Promise<ScriptAnswer[]> {
  const ctx: Record<string, string> = {};
  const out: ScriptAnswer[] = [];
  for (const s of steps) {
    const body = s.body?.(ctx);
    const res = await fetch(new URL(s.path(ctx), url), {
      method: s.method,
      headers: {
        Accept: 'application/json',
        'Coder-Session-Token': token,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const parsed = text === '' ? undefined : JSON.parse(text);
    const reduced = reduce(res.status, parsed, ctx);
    if (res.status < 300) s.remember?.(ctx, parsed);
    out.push({ step: `${s.method} ${s.step}`, status: res.status, body: reduced });
  }
  return out;
}

export function sameAnswer(a: ScriptAnswer, b: ScriptAnswer): boolean {
  return a.status === b.status && isDeepStrictEqual(a.body, b.body);
}
