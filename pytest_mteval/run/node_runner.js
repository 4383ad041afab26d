// pytest-mteval's Node.js runner: loads one method module in champollion's shape and speaks
// the runner protocol (docs/runner-protocol.md) for it. Plain JavaScript, Node's own modules
// only, so that it runs from the installed package with no npm install.
//
//   node node_runner.js [--private-fds]
//
// With --private-fds (how the harness starts it, through pytest_mteval.run.exec_runner) the
// protocol travels on fds 3 (in) and 4 (out), while fd 0 is /dev/null and fd 1 is stderr:
// console.log, process.stdout and a child started with stdio "inherit" cannot garble it.
'use strict';

const fs = require('fs');
const net = require('net');
const path = require('path');
const { pathToFileURL } = require('url');

const PROTOCOL_VERSION = 1;
const PRIVATE = process.argv.includes('--private-fds');
const IN_FD = PRIVATE ? 3 : 0;
const OUT_FD = PRIVATE ? 4 : 1;
const MAX_TIMER_MS = 2147483647;

function send(message) {
  const line = Buffer.from(JSON.stringify(message) + '\n', 'utf8');
  let offset = 0;
  while (offset < line.length) {
    try {
      offset += fs.writeSync(OUT_FD, line, offset);
    } catch (error) {
      if (error.code === 'EAGAIN') continue;
      process.exit(0); // the harness is gone
    }
  }
}

function said(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `${typeof error}: ${String(error)}`;
}

// The module's export as a method: an object with translate(), a function, or an ES module's
// default export of either.
function asMethod(loaded) {
  let method = loaded;
  if (method && typeof method.translate !== 'function' && method.default !== undefined) {
    method = method.default;
  }
  if (typeof method === 'function') method = { translate: method, name: method.name };
  if (!method || typeof method.translate !== 'function') {
    throw new TypeError('the module exports no translate(sources, context)');
  }
  return method;
}

async function load(ref) {
  const folder = path.resolve(String(ref.path));
  const file = path.resolve(folder, String(ref.entry_point));
  if (!file.startsWith(folder + path.sep)) {
    throw new Error(`entry point ${ref.entry_point} is not inside ${folder}`);
  }
  if (file.endsWith('.mjs')) return import(pathToFileURL(file).href);
  try {
    return require(file);
  } catch (error) {
    if (error && error.code === 'ERR_REQUIRE_ESM') return import(pathToFileURL(file).href);
    throw error;
  }
}

// A result item as it can travel: JSON would turn a non-finite number into null silently.
function firstNonFinite(value, where, depth) {
  if (depth > 64) return null;
  if (typeof value === 'number' && !Number.isFinite(value)) return where || 'value';
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const found = firstNonFinite(inner, where ? `${where}.${key}` : key, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

function plain(item) {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
  const id = typeof item.id === 'string' || Number.isInteger(item.id) ? item.id : null;
  const bad = firstNonFinite(item, '', 0);
  if (bad) return { id, error: `entry ${id}: ${bad} must be a finite number` };
  try {
    JSON.stringify(item);
    return item;
  } catch (error) {
    return { id, error: `entry ${id}: not plain JSON: ${error.message}` };
  }
}

// champollion's shape answers by position: a string is the translation of the source at the
// same place, an object carries result fields (predicted, metadata, usage, ...) for it.
function results(entries, answered) {
  return answered.map((item, at) => {
    if (at >= entries.length) return plain(item);
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      return plain({ id: entries[at].id, ...item });
    }
    return plain({ id: entries[at].id, predicted: item });
  });
}

function describe(method, context, entry) {
  const out = { class_name: method.name || path.basename(entry), errors: {} };
  const ask = (key, call) => {
    try {
      const value = call();
      JSON.stringify(value);
      out[key] = value;
    } catch (error) {
      out.errors[key] = `${key}: ${said(error)}`;
    }
  };
  if (typeof method.systemPrompt === 'function') {
    ask('system_prompt', () => method.systemPrompt(context));
  }
  if (typeof method.runCardFields === 'function') {
    ask('run_card_fields', () => method.runCardFields(context));
  }
  if (typeof method.maxCallsPerEntry === 'function') {
    ask('max_calls_per_entry', () => Math.trunc(method.maxCallsPerEntry(context)));
  }
  ask('tools_enabled', () => method.toolsEnabled || []);
  ask('cacheable', () => method.cacheable !== false);
  return out;
}

async function batch(method, context, message) {
  const ticket = message.ticket;
  const entries = message.entries;
  const timeoutS = Number(context.config.timeout_s);
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve(expired), Math.min(timeoutS * 1000, MAX_TIMER_MS));
  });
  try {
    const sources = entries.map((entry) => entry.source);
    const answer = await Promise.race([method.translate(sources, { ...context, entries }), expired]);
    if (answer === expired) {
      send({ type: 'error', ticket, error: `timeout: method did not return within ${timeoutS}s` });
    } else if (!Array.isArray(answer)) {
      const kind = answer === null ? 'null' : typeof answer;
      send({ type: 'error', ticket, error: `method returned ${kind}, not a list` });
    } else {
      send({ type: 'result', ticket, results: results(entries, answer) });
    }
  } catch (error) {
    send({ type: 'error', ticket, error: `method raised ${said(error)}` });
  } finally {
    clearTimeout(timer);
  }
}

async function start(message) {
  const ref = message.method || {};
  const config = message.config || {};
  const context = {
    sourceLanguage: config.source_language,
    targetLanguage: config.target_language,
    model: config.model,
    methodArgs: config.method_args || {},
    methodDir: config.method_dir,
    config,
  };
  const method = asMethod(await load(ref));
  if (typeof method.prepare === 'function') await method.prepare(context);
  if (message.preflight && typeof method.preflight === 'function') {
    await method.preflight(context);
  }
  return { method, context, description: describe(method, context, String(ref.entry_point)) };
}

function main() {
  // a method's stray callback that throws ends the runner, as an exception escaping Python's
  // event loop does: the harness blames the batch it waits for and starts a fresh runner
  const crash = (error) => {
    process.stderr.write(`method raised ${said(error)} outside a batch; the runner stops\n`);
    process.exit(3);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  send({ type: 'hello', protocol: PROTOCOL_VERSION, runtime: 'node' });
  let running = null;
  let pending = Buffer.alloc(0);
  // a pipe handle of the event loop, never a thread-pool read: a read blocked in a thread
  // would hold process.exit() (libuv joins its threads on the way out)
  const input = PRIVATE ? new net.Socket({ fd: IN_FD, readable: true, writable: false }) : process.stdin;
  input.on('end', () => process.exit(0));
  input.on('error', () => process.exit(0));
  input.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    let end;
    while ((end = pending.indexOf(10)) >= 0) {
      const line = pending.subarray(0, end).toString('utf8');
      pending = pending.subarray(end + 1);
      if (line.trim()) running = handle(JSON.parse(line), running);
    }
  });
}

function handle(message, running) {
  if (message.type === 'stop') process.exit(0);
  if (message.type === 'start' && running === null) {
    return start(message).then(
      (built) => {
        send({ type: 'ready', describe: built.description });
        return built;
      },
      (error) => {
        send({ type: 'fatal', error: said(error) });
        process.exit(2);
      },
    );
  }
  if (message.type === 'translate' && running !== null) {
    running.then((built) => batch(built.method, built.context, message));
  }
  return running;
}

main();
