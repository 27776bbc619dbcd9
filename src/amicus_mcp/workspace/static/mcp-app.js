/*
 * The Council Workspace inline in an MCP host (MCP Apps: extension io.modelcontextprotocol/ui,
 * protocol 2026-01-26).
 *
 * The host renders this page in a sandboxed iframe for a tool result of amicus_council_run,
 * amicus_council_resume, amicus_fanout, amicus_wait or amicus_status. This script runs before
 * app.js and installs `globalThis.amicusSource`, the page's data source: the id to follow
 * comes from the tool result the host hands in, and every fresh snapshot is a `tools/call` of
 * the app-only tool amicus_view_snapshot, made through the host over postMessage JSON-RPC.
 * The page has no network of its own (its policy connects nowhere), listens to its parent
 * window only, and renders what it receives through app.js — as text, like everything else.
 */
'use strict';

(() => {
  const PROTOCOL_VERSION = '2026-01-26';
  const SNAPSHOT_TOOL = 'amicus_view_snapshot';
  const ABORT_TOOL = 'amicus_abort';
  const ANSWER_WITHIN_MS = 30000;
  const pending = new Map();
  let lastId = 0;
  const view = {
    id: null, // the council run, wave or leg this view follows
    project: null, // the project argument of the tool call, passed on to every snapshot call
    notice: 'Waiting for the tool result from the host\u2026',
    serverTools: false, // whether the host lets this view call the server
    closed: false,
    result: null, // without serverTools: the tool result, the only snapshot there is
    poll: null,
    show: null,
  };

  // ---------------------------------------------------------------- JSON-RPC over postMessage

  function post(message) {
    window.parent.postMessage(message, '*'); // the sandboxed frame cannot know its host's origin
  }

  function request(method, params) {
    lastId += 1;
    const id = lastId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the host did not answer ' + method));
      }, ANSWER_WITHIN_MS);
      pending.set(id, { resolve, reject, timer });
      post({ jsonrpc: '2.0', id, method, params });
    });
  }

  function notify(method, params) {
    post({ jsonrpc: '2.0', method, params: params || {} });
  }

  function receive(event) {
    if (event.source !== window.parent) return; // only the host speaks to this view
    const message = event.data;
    if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) settle(message);
    else if (message.id !== undefined) answer(message);
    else onNotification(message.method, message.params || {});
  }

  function settle(message) {
    const call = pending.get(message.id);
    if (!call) return;
    pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error) call.reject(new Error(String(message.error.message || 'the host refused the request')));
    else call.resolve(message.result || {});
  }

  function answer(message) {
    if (message.method === 'ping') {
      post({ jsonrpc: '2.0', id: message.id, result: {} });
    } else if (message.method === 'ui/resource-teardown') {
      view.closed = true;
      post({ jsonrpc: '2.0', id: message.id, result: {} });
    } else {
      post({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    }
  }

  function onNotification(method, params) {
    if (method === 'ui/notifications/tool-input') {
      const args = params.arguments || {};
      if (typeof args.project === 'string') view.project = args.project;
    } else if (method === 'ui/notifications/tool-result') {
      follow(params);
    } else if (method === 'ui/notifications/tool-cancelled') {
      if (!view.id) say('The tool call was cancelled' + (params.reason ? ': ' + params.reason : '') + '.');
    }
  }

  // ---------------------------------------------------------------- what this view follows

  /** The id a tool result names: a started run or wave, or the run/wave/leg a status is of. */
  function follow(result) {
    if (view.id) return; // one view follows one id
    const doc = result.structuredContent || {};
    if (result.isError) {
      say(errorText(result));
      return;
    }
    const id = doc.runId || doc.waveId || doc.id;
    if (typeof id !== 'string') {
      say('This result names no council run or wave to follow.');
      return;
    }
    view.id = id;
    view.notice = null;
    // A host that gives the view no server access (no `serverTools`): the tool result is the
    // only snapshot there will be, so the view shows what it holds and how to follow the run.
    if (!view.serverTools) view.result = resultSnapshot(id, doc);
    if (view.poll) view.poll();
  }

  /** The tool result as the page's one snapshot: a status projection (amicus_wait,
   * amicus_status) carries status, legs and cost; a start result (amicus_council_run,
   * amicus_fanout) only its id and `running`. Unknown stays unknown. */
  function resultSnapshot(id, doc) {
    const kind = doc.kind || (doc.waveId ? 'wave' : 'council-run');
    const legs = Array.isArray(doc.legs) ? doc.legs : [];
    return {
      type: 'workspace-result', snapshotVersion: 1, id, kind,
      status: String(doc.status || 'unknown'),
      live: doc.terminal === undefined ? doc.status === 'running' : !doc.terminal,
      stage: doc.stage || null,
      legs,
      legsDone: typeof doc.legsDone === 'number' ? doc.legsDone : null,
      legsTotal: typeof doc.legsTotal === 'number' ? doc.legsTotal : null,
      cost: doc.cost && typeof doc.cost === 'object' ? doc.cost : null,
      overallVerdict: doc.overallVerdict || null,
      intent: doc.intent || null,
      answer: doc.answer || null,
      error: doc.error || null,
      degrades: doc.degrades || [],
      notices: doc.notices || [],
      resumable: Boolean(doc.resumable),
      receivedAt: new Date().toISOString(),
    };
  }

  function say(text) {
    view.notice = text;
    if (view.show) view.show();
  }

  function errorText(result) {
    const first = (result.content || []).find((block) => block && block.type === 'text');
    return first ? String(first.text) : 'the tool call failed';
  }

  async function callTool(name) {
    if (view.closed) throw Object.assign(new Error('the host closed this view'), { status: 410 });
    const args = { id: view.id };
    if (view.project) args.project = view.project;
    return request('tools/call', { name, arguments: args });
  }

  /** A structured error ("CODE: message") from the server; a BAD_* one is final, like a 4xx. */
  function toolError(result) {
    const text = errorText(result);
    return Object.assign(new Error(text), { status: /^BAD_/.test(text) ? 400 : 500 });
  }

  // ---------------------------------------------------------------- size and start-up

  function reportSize() {
    let last = 0;
    const send = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      notify('ui/notifications/size-changed', { height });
    };
    new ResizeObserver(send).observe(document.documentElement);
    send();
  }

  async function connect() {
    try {
      const init = await request('ui/initialize', {
        appInfo: { name: 'amicus-council-view', version: '1' },
        appCapabilities: {},
        protocolVersion: PROTOCOL_VERSION,
      });
      view.serverTools = Boolean(init.hostCapabilities && init.hostCapabilities.serverTools);
      notify('ui/notifications/initialized');
      reportSize();
    } catch (error) {
      say('The host did not start this view: ' + error.message);
    }
  }

  globalThis.amicusSource = {
    get runId() { return view.id; },
    get notice() { return view.notice; },
    inline: true, // polled while visible, focused or not
    prose: false, // the inline view shows no prose; amicus_read pages through it
    list: false,
    get actions() { return view.serverTools ? ['abort'] : []; }, // abort is a server call too
    async snapshot() {
      if (view.result) return view.result;
      const result = await callTool(SNAPSHOT_TOOL);
      if (result.isError) throw toolError(result);
      return result.structuredContent;
    },
    async act(action) {
      if (action !== 'abort') return { ok: false, body: { error: { message: action + ' is not offered inline' } } };
      const result = await callTool(ABORT_TOOL);
      if (result.isError) return { ok: false, body: { error: { message: errorText(result) } } };
      return { ok: true, body: result.structuredContent || {} };
    },
    start(poll, show) {
      view.poll = poll;
      view.show = show;
      window.addEventListener('message', receive);
      show();
      connect();
    },
  };
})();
