// mcpdeck as the client under test of the official MCP conformance harness (`conformance client`).
//
// The harness starts one mock server per scenario and runs this file with the server's URL as
// the last argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and, for some scenarios,
// test data in MCP_CONFORMANCE_CONTEXT (JSON). This adapter does what an operator would do at a
// shell: it writes an `mcp.json` naming the URL (with `protocolVersion` from
// MCPDECK_CONFORMANCE_PROTOCOL when set), then runs `mcpdeck` commands against it — list the
// tools, call them, read the resources, get the prompts, list and load the skills. It never
// speaks MCP itself.
//
// The authorization scenarios (`auth/*`) go to scripts/conformance-auth-client, which signs in.
// MCPDECK selects the binary (default: target/debug/mcpdeck of this checkout).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const mcpdeck = process.env.MCPDECK || join(root, 'target', 'debug', 'mcpdeck');
const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO || '';
const context = process.env.MCP_CONFORMANCE_CONTEXT
  ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT)
  : {};

if (scenario.startsWith('auth/')) {
  const r = spawnSync(join(root, 'scripts', 'conformance-auth-client'), [url], {
    stdio: 'inherit',
    env: { ...process.env, MCPDECK: mcpdeck }
  });
  process.exit(r.status ?? 1);
}

const home = mkdtempSync(join(tmpdir(), 'mcpdeck-conformance-'));
mkdirSync(join(home, 'config', 'mcpdeck'), { recursive: true });
mkdirSync(join(home, 'project'));
const server = { url };
if (process.env.MCPDECK_CONFORMANCE_PROTOCOL) {
  server.protocolVersion = process.env.MCPDECK_CONFORMANCE_PROTOCOL;
}
writeFileSync(
  join(home, 'config', 'mcpdeck', 'mcp.json'),
  JSON.stringify({ mcpServers: { t: server } })
);

let failures = 0;

/** Runs one mcpdeck command against server `t`; returns its parsed `--json` result or null. */
function deck(args, { json = true } = {}) {
  const argv = ['--cwd', join(home, 'project'), ...args];
  if (json) argv.push('--json');
  const r = spawnSync(mcpdeck, argv, {
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_STATE_HOME: join(home, 'state'),
      MCPDECK_CREDENTIAL_STORE: 'file'
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    timeout: 60_000
  });
  process.stdout.write(`$ mcpdeck ${args.join(' ')} -> exit ${r.status}\n${r.stdout ?? ''}\n`);
  if (r.status !== 0) failures += 1;
  if (!json) return null;
  try {
    return JSON.parse(r.stdout);
  } catch {
    return null;
  }
}

/** The names (or URIs) of the items a listing command returned. */
function listed(answer, key, field) {
  const items = answer?.result?.[key] ?? answer?.result ?? [];
  return Array.isArray(items) ? items.map((item) => item?.[field]).filter(Boolean) : [];
}

/** Lists everything and uses every item once, as someone finding out what a server offers. */
function explore(toolArguments) {
  const tools = listed(deck(['tools', 't']), 'tools', 'name');
  for (const name of tools) {
    deck(['call', 't', name, JSON.stringify(toolArguments(name)), '--no-validate']);
  }
  const resources = deck(['resources', 't']);
  for (const uri of listed(resources, 'resources', 'uri')) {
    deck(['read', 't', uri]);
  }
  for (const name of listed(deck(['prompts', 't']), 'prompts', 'name')) {
    deck(['prompt', 't', name]);
  }
}

switch (scenario) {
  case 'initialize':
  case 'tools_call': {
    const [first] = listed(deck(['tools', 't']), 'tools', 'name');
    if (first) deck(['call', 't', first, 'a=2', 'b=3']);
    break;
  }
  case 'request-metadata':
  case 'json-schema-ref-no-deref':
    deck(['tools', 't']);
    break;
  case 'json-schema-2020-12-preservation': {
    const described = deck(['describe', 't', 'json_schema_2020_12_tool']);
    const schema = described?.result?.inputSchema;
    if (schema) {
      deck(['call', 't', 'json_schema_echo', JSON.stringify({ schema }), '--no-validate']);
    }
    break;
  }
  case 'elicitation-sep1034-client-defaults':
  case 'sep-2322-client-request-state': {
    const tools = listed(deck(['tools', 't']), 'tools', 'name');
    for (const name of tools) {
      deck(['--elicit', 'accept-defaults', 'call', 't', name, '{}', '--no-validate']);
    }
    break;
  }
  // The skills extension: list, as an operator finding out what a server offers; the verifying
  // scenarios then load the listed skill asking for a supporting file too, which mcpdeck must
  // not fetch once SKILL.md fails verification.
  case 'sep-2640-client-no-prefetch':
    deck(['skills', 't']);
    break;
  case 'sep-2640-client-verify-digest':
  case 'sep-2640-client-verify-size':
  case 'sep-2640-client-verify-frontmatter':
    for (const skill of listed(deck(['skills', 't']), 'skills', 'name')) {
      deck(['skill', 't', skill, '--file', 'references/FORMS.md']);
    }
    break;
  default:
    if (Array.isArray(context.toolCalls)) {
      deck(['tools', 't']);
      for (const call of context.toolCalls) {
        deck(['call', 't', call.name, JSON.stringify(call.arguments ?? {}), '--no-validate']);
      }
    } else {
      explore(() => ({}));
    }
}

rmSync(home, { recursive: true, force: true });
process.exit(failures === 0 ? 0 : 1);
