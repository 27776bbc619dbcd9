/*
 * Council Workspace page.
 *
 * It renders other models' prose, so the rule is absolute: every string reaches the DOM as
 * text — el() sets textContent, prose is split into text nodes and <mark> elements whose
 * textContent is set. Nothing is ever parsed as markup, no model text becomes a URL or an
 * attribute, and the server's Content-Security-Policy (Trusted Types included) would refuse
 * anything else. The page polls one JSON snapshot; its only writes are Abort and Fold.
 *
 * Where the snapshot comes from is the page's `source`: the workspace server over HTTP here,
 * or — when the same page runs inline in an MCP host (MCP Apps) — the host bridge that
 * mcp-app.js installs as `globalThis.amicusSource` before this script runs. Rendering is the
 * same either way.
 */
'use strict';

const POLL_FOCUSED_MS = 1500;
const POLL_BACKGROUND_MS = 5000;
const HEARTBEAT_MS = 60000;
const GLYPH = { agree: '\u2713', dispute: '\u2717', neutral: '\u2013', unknown: '?' };
const STAGE_GLYPH = { complete: '\u2713', running: '\u25CF', error: '\u2717', aborted: '\u2717', skipped: '\u2192', pending: '\u00B7' };

const source = globalThis.amicusSource || httpSource();
// The cost ceiling as the reader sets it: inline the view only ever runs in an MCP host, where
// it is the tool's `maxCost` argument; a browser tab serves `amicus watch --ui` too.
const MAX_COST = source.inline ? 'maxCost' : '--max-cost';
const state = {
  runId: source.runId,
  snap: null, // the last good snapshot
  problem: null, // an unreadable / schema-mismatch snapshot
  fetchError: null,
  fatal: null,
  blindChoice: null, // null: follow the run (on while live, off once terminal)
  timer: null,
  drill: null, // { findingId, column } of an open drill-in
  rendered: new Map(),
  maskRe: null,
  maskMap: new Map(),
  maskKey: '',
};

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ text and elements

function isBlind() {
  if (isWave()) return false; // a fanout wave has no anonymized seats
  if (state.blindChoice !== null) return state.blindChoice;
  return Boolean(state.snap && state.snap.live);
}

function isWave() { // a fanout wave, or (inline, with no server access) a tool result: status, legs, cost
  return Boolean(state.snap && (state.snap.type === 'workspace-wave' || state.snap.type === 'workspace-result'));
}

function isResult() {
  return Boolean(state.snap && state.snap.type === 'workspace-result');
}

const FENCE_OPEN = /^<untrusted_model_output purpose="data_only">\n(?:[^\n]*\n)*?\n/;
const FENCE_CLOSE = /\n<\/untrusted_model_output>$/;

/** A tool result's fenced string as its body: the fence tells the calling model the text is
 * data; the page sets every string as text anyway, and a person reads the body. */
function unfenced(text) {
  return FENCE_OPEN.test(text) && FENCE_CLOSE.test(text) ? text.replace(FENCE_OPEN, '').replace(FENCE_CLOSE, '') : text;
}

function escapeRe(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function setMasks(masks) {
  const key = JSON.stringify(masks || []);
  if (key === state.maskKey) return;
  state.maskKey = key;
  state.maskMap = new Map((masks || []).map(([name, label]) => [name, label]));
  const names = (masks || []).map(([name]) => escapeRe(name));
  state.maskRe = names.length ? new RegExp('(?<![\\w])(?:' + names.join('|') + ')(?![\\w])', 'g') : null;
}

/** What the page shows for a string: in blind mode every model name becomes its label. */
function show(text) {
  const value = text === null || text === undefined ? '' : unfenced(String(text));
  if (!isBlind() || !state.maskRe) return value;
  return value.replace(state.maskRe, (name) => state.maskMap.get(name) || name);
}

function el(tag, opts, children) {
  const node = document.createElement(tag);
  const o = opts || {};
  if (o.cls) node.className = o.cls;
  if (o.text !== undefined && o.text !== null) node.textContent = show(o.text);
  if (o.data) for (const [k, v] of Object.entries(o.data)) node.dataset[k] = String(v);
  for (const child of children || []) if (child) node.append(child);
  return node;
}

function table(headers, rows, cls) {
  const head = el('thead', {}, [el('tr', {}, headers.map((h) => el('th', { text: h })))]);
  return el('table', { cls: cls || '' }, [head, el('tbody', {}, rows)]);
}

function cell(text, cls) {
  return el('td', { text, cls });
}

function chip(text, cls) {
  return el('span', { text, cls: 'chip ' + (cls || '') });
}

function slug(text) {
  return String(text || '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function clock(iso) {
  if (!iso) return '\u2014';
  const when = new Date(iso);
  // 24-hour, two digits each: the same width at 09:05 and 12:59 (a 12-hour clock widens the cell past noon's hour)
  return Number.isNaN(when.getTime()) ? '\u2014'
    : when.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** Prose as text nodes; occurrences of `highlight` (a finding id) wrapped in <mark>. */
function prose(entry, highlight) {
  const pre = el('pre', { cls: 'prose' });
  if (!entry || entry.text === null || entry.text === undefined) {
    pre.textContent = show(entry ? 'Could not read ' + entry.file + ': ' + entry.error : '(nothing on disk)');
    return pre;
  }
  const text = show(entry.text);
  if (!highlight) {
    pre.textContent = text;
  } else {
    const re = new RegExp('(?<![A-Za-z0-9])' + escapeRe(highlight) + '(?![0-9])', 'g');
    let last = 0;
    for (const match of text.matchAll(re)) {
      pre.append(document.createTextNode(text.slice(last, match.index)));
      pre.append(el('mark', { text: match[0] }));
      last = match.index + match[0].length;
    }
    pre.append(document.createTextNode(text.slice(last)));
  }
  if (entry.truncated) pre.append(el('span', { cls: 'note', text: '\n[\u2026 truncated for display]' }));
  return pre;
}

/** Replace a container's children, only when what it shows has changed. */
function renderPanel(id, data, build) {
  const key = JSON.stringify(data) + '|' + isBlind();
  if (state.rendered.get(id) === key) return;
  state.rendered.set(id, key);
  const nodes = build(data);
  $(id).replaceChildren(...nodes.filter(Boolean));
}

// ------------------------------------------------------------------ data

/** The workspace server: the run id from the URL, snapshots and actions over same-origin HTTP. */
function httpSource() {
  const runId = new URLSearchParams(window.location.search).get('run');
  return {
    runId,
    inline: false, // a browser tab: poll fast only while it has the focus
    prose: true, // reviews, the bundle and judge prose are in the snapshot
    list: true, // with no run id, the project's run list
    actions: ['abort', 'fold'],
    notice: null, // what the source itself has to say (an inline view waiting for its tool result)
    snapshot: () => getJson(runId ? 'api/runs/' + encodeURIComponent(runId) : 'api/runs'),
    act: postAction,
    start(go) { // go(): poll now; the inline source also passes a re-render callback
      setInterval(() => { if (document.visibilityState === 'visible') fetch('api/ping', { cache: 'no-store' }).catch(() => {}); }, HEARTBEAT_MS);
      go();
    },
  };
}

async function getJson(path) {
  const response = await fetch(path, { cache: 'no-store', credentials: 'omit' });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const message = body && body.error ? body.error.message : 'HTTP ' + response.status;
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return body;
}

async function postAction(action) {
  const response = await fetch('api/runs/' + encodeURIComponent(state.runId) + '/' + action, {
    method: 'POST', cache: 'no-store', credentials: 'omit', headers: { 'Content-Type': 'application/json' }, body: '{}',
  });
  const body = await response.json().catch(() => null);
  return { ok: response.ok, body: body || {} };
}

function pollDelay() {
  const attentive = document.visibilityState === 'visible' && (source.inline || document.hasFocus());
  return attentive ? POLL_FOCUSED_MS : POLL_BACKGROUND_MS;
}

function wantsPolling() {
  if (state.fatal || isResult()) return false; // a tool result does not change: nothing to ask again
  if (state.fetchError || (!state.snap && !state.problem)) return true;
  return Boolean(state.snap && state.snap.live);
}

function schedule() {
  if (state.timer) clearTimeout(state.timer);
  state.timer = wantsPolling() ? setTimeout(tick, pollDelay()) : null;
}

async function tick() {
  state.timer = null;
  try {
    accept(await source.snapshot());
    state.fetchError = null;
  } catch (error) {
    if (error.status === 404 || error.status === 400) state.fatal = error.message;
    else state.fetchError = error.message || String(error);
  }
  render();
  schedule();
}

function accept(snap) {
  if (snap.type === 'workspace-run' && snap.state !== 'ok') {
    state.problem = snap;
    return;
  }
  state.problem = null;
  state.snap = snap;
}

// ------------------------------------------------------------------ rendering

function render() {
  state.runId = source.runId;
  document.body.classList.toggle('blind', isBlind());
  if (state.snap) setMasks(state.snap.masks);
  renderBanners();
  renderControls();
  if (!state.runId) {
    $('list-view').hidden = !source.list;
    if (source.list && state.snap) renderPanel('run-list', state.snap.runs, runList);
    return;
  }
  const snap = state.snap;
  const wave = isWave();
  const kind = snap && snap.kind ? snap.kind : (wave ? 'wave' : 'council-run');
  $('run-title').textContent = ({ leg: 'Leg ', wave: 'Wave ', 'eval-run': 'Eval ' }[kind] || 'Run ') + state.runId;
  document.title = 'Council Workspace \u2014 ' + state.runId;
  $('run-view').hidden = !snap || wave;
  $('wave-view').hidden = !wave;
  if (!snap) return;
  if (wave) {
    $('wave-title').textContent = kind === 'council-run' ? 'Legs' : kind === 'eval-run' ? 'Cases' : 'Fanout legs';
    renderPanel('chips', snap, waveChips);
    renderPanel('wave', snap.legs, waveLegs);
    return;
  }
  const question = snap.header.intent === 'question';
  $('chair-title').textContent = question ? 'Chair answer' : 'Chair verdict';
  $('matrix-title').textContent = question ? 'Claim matrix' : 'Adjudication matrix';
  $('reviews-title').textContent = question ? 'Stage-1 answers' : 'Stage-1 reviews';
  $('ranking-panel').hidden = !question;
  $('dissent-panel').hidden = !question;
  if (question) renderPanel('ranking', snap.ranking, rankingPanel);
  if (question) renderPanel('dissent', { d: snap.dissent, m: snap.matrix, live: snap.live }, dissentPanel);
  renderPanel('chips', { h: snap.header, live: snap.live }, headerChips);
  renderPanel('stage-rail', snap.stages, stageRail);
  renderPanel('seats', snap.seats, seatsTable);
  renderPanel('matrix', { m: snap.matrix, note: snap.matrixNote, question, live: snap.live }, matrixPanel);
  renderPanel('drill', { d: state.drill, m: snap.matrix, j: snap.judges, r: snap.revotes }, drillPanel);
  renderPanel('chair', snap.chair, chairPanel);
  renderPanel('street-cred', snap.streetCred, streetCred);
  renderPanel('decisions', snap.decisions, decisionsPanel);
  renderPanel('cost', snap.cost, costPanel);
  if (!source.prose) return; // an inline view carries no prose: amicus_read pages through it
  renderPanel('reviews', snap.reviews, (items) => proseList(items, 'No Stage-1 review on disk yet.'));
  renderPanel('bundle', snap.bundle, (b) => [b ? prose(b) : el('p', { cls: 'note', text: 'The Stage-2 bundle is written when cross-review starts.' })]);
  renderPanel('judges', { j: snap.judges, r: snap.revotes }, judgesPanel);
}

function renderControls() {
  const ok = Boolean(state.runId && state.snap && !state.problem);
  const blind = isBlind();
  const toggle = $('blind-toggle');
  toggle.hidden = !state.runId || isWave();
  toggle.textContent = 'Blind mode: ' + (blind ? 'on' : 'off');
  toggle.setAttribute('aria-pressed', String(blind));
  $('blind-note').hidden = !(state.runId && blind && !isWave());
  $('abort-button').hidden = !(ok && state.snap.live && source.actions.includes('abort'));
  $('fold-button').hidden = !(ok && !state.snap.live && source.actions.includes('fold'));
  if (!(ok && state.snap.live)) $('confirm').hidden = true;
}

function banner(cls, text, extra) {
  return el('div', { cls: 'banner ' + cls }, [el('span', { text }), extra || null]);
}

function renderBanners() {
  const items = [];
  if (source.notice) items.push(banner('info', source.notice));
  if (state.fatal) items.push(banner('error', state.fatal));
  if (state.fetchError) {
    items.push(banner('warn', 'Live data unavailable (' + state.fetchError + '). Showing the last data received; retrying.'));
  }
  const p = state.problem;
  if (p && p.state === 'unreadable') items.push(banner('error', 'This run cannot be read: ' + p.error + ' \u2014 run directory: ' + p.runDir));
  if (p && p.state === 'schema-mismatch') {
    items.push(banner('error', 'This run was written by a different amicus schema version (found ' + p.schemaVersion
      + ', this workspace reads ' + p.expectedSchemaVersion + '); it is not rendered. Run directory: ' + p.runDir));
  }
  const snap = state.runId ? state.snap : null;
  if (snap && isWave()) items.push(...waveBanners(snap));
  else if (snap) items.push(...runBanners(snap));
  renderPanel('banners', items.map((n) => n.textContent + '|' + n.className), () => items);
}

function runBanners(snap) {
  const items = [];
  const h = snap.header;
  if (snap.stall && snap.stall.stalled) {
    const button = el('button', { text: 'Abort\u2026', cls: 'danger' });
    button.type = 'button';
    button.addEventListener('click', openConfirm);
    const since = snap.stall.since ? ' since ' + clock(snap.stall.since) : '';
    items.push(banner('warn stall', 'Stalled: no leg activity' + since + ' (over ' + snap.stall.threshold + 's).', button));
  }
  if (h.error) items.push(banner('error', 'Run error ' + h.error.code + ': ' + h.error.message));
  if (snap.resume && source.inline) { // in the conversation, Claude resumes it (amicus_council_resume)
    items.push(banner('info resume', 'Resume: this run stopped before it finished; nothing it finished is paid for again. Ask Claude to resume run ' + snap.runId + '.'));
  } else if (snap.resume) { // printed for the user to run; the workspace never runs it
    items.push(banner('info resume', 'Resume: this run stopped before it finished; nothing it finished is paid for again. Run',
      el('code', { text: snap.resume })));
  }
  for (const d of snap.banners.degrades) items.push(banner('degrade', 'Degraded (' + d.channel + '): ' + d.what + ' \u2014 ' + d.why));
  for (const n of snap.banners.notices) items.push(banner('info', 'Notice: ' + n));
  for (const n of snap.banners.integrity) items.push(banner('warn', 'Run integrity: ' + n));
  return items;
}

function waveBanners(snap) {
  const items = [];
  if (isResult()) items.push(banner('info follow', followText(snap)));
  if (snap.error) items.push(banner('error', 'Error: ' + unfenced(snap.error)));
  const degrades = (snap.degrades || []).map(unfenced);
  for (const d of degrades) items.push(banner('degrade', 'Degraded (' + d.replace(': ', '): ')));
  // A degrade ("channel: what — why") is also among the notices ("what: why"): shown once, as the loss.
  const lost = new Set(degrades.map((d) => d.slice(d.indexOf(': ') + 2).replace(' \u2014 ', ': ')));
  for (const n of (snap.notices || []).map(unfenced)) if (!lost.has(n)) items.push(banner('info', 'Notice: ' + n));
  return items;
}

/** Inline with no server access: what the view shows and how to follow the work in the chat. */
function followText(snap) {
  const what = { leg: 'leg', wave: 'wave', 'eval-run': 'eval' }[snap.kind] || 'run';
  const shown = 'This host gives the view no access to the server, so it shows the tool result as it arrived ('
    + clock(snap.receivedAt) + ') and does not update. ';
  if (snap.resumable) return shown + 'The ' + what + ' stopped before it finished: ask Claude to resume ' + what + ' ' + snap.id + ' (amicus_council_resume).';
  if (snap.live) return shown + 'To follow it, ask Claude to wait on ' + what + ' ' + snap.id + ' (amicus_wait): each result it gets shows here.';
  return shown + 'It has finished: ask Claude to read ' + what + ' ' + snap.id + ' (amicus_read).';
}

function money(cost) {
  if (!cost) return 'cost not reported';
  const amount = cost.amount === null || cost.amount === undefined ? 'cost unknown' : '$' + cost.amount.toFixed(4);
  return amount + (cost.unpricedLegs ? ' (+' + cost.unpricedLegs + ' unpriced)' : '');
}

function waveChips(snap) {
  const nodes = [chip(snap.status + (snap.live && snap.stage ? ' \u00B7 ' + snap.stage : ''), 'status-' + slug(snap.status))];
  if (snap.intent === 'question') nodes.push(chip('question', 'intent'));
  const line = snap.intent === 'question' ? 'ANSWER: ' : 'VERDICT: ';
  if (snap.overallVerdict) nodes.push(chip(line + snap.overallVerdict, 'verdict verdict-' + slug(snap.overallVerdict)));
  const unit = snap.kind === 'eval-run' ? ' cases done' : ' legs done';
  const done = snap.legsTotal === null || snap.legsTotal === undefined ? 'no legs reported yet'
    : snap.legsDone + '/' + snap.legsTotal + unit;
  nodes.push(el('span', { cls: 'note', text: done + ' \u00B7 ' + money(snap.cost) + (snap.live && snap.cost ? ' so far' : '') }));
  if (snap.answer) nodes.push(el('span', { cls: 'note answer', text: snap.answer }));
  return nodes;
}

function waveLegs(legs) {
  if (!legs.length) return [el('p', { cls: 'note', text: isResult() ? 'The tool result lists no legs yet.' : 'No legs recorded yet.' })];
  const staged = legs.some((leg) => leg.stage);
  const rows = legs.map((leg) => el('tr', { data: { row: 'leg' } }, [
    cell(leg.model || '\u2014', 'model'), ...(staged ? [cell(leg.stage || '\u2014')] : []), cell(leg.status, 'status-' + slug(leg.status)),
    cell(leg.durationMs === undefined || leg.durationMs === null ? '\u2014' : (leg.durationMs / 1000).toFixed(1) + ' s'),
    cell(leg.cost === undefined || leg.cost === null ? '\u2014' : '$' + leg.cost.toFixed(4)), cell(leg.error || '', 'flag'),
  ]));
  return [table(['Model', ...(staged ? ['Stage'] : []), 'Status', 'Duration', 'Cost', 'Error'], rows, 'legs' + (staged ? ' staged' : ''))];
}

function headerChips(data) {
  const h = data.h;
  const nodes = [chip(h.status + (data.live && h.currentStage ? ' \u00B7 ' + h.currentStage : ''), 'status-' + slug(h.status))];
  if (h.intent === 'question') nodes.push(chip('question', 'intent'));
  const line = h.intent === 'question' ? 'ANSWER: ' : 'VERDICT: ';
  if (h.overallVerdict) nodes.push(chip(line + h.overallVerdict, 'verdict verdict-' + slug(h.overallVerdict)));
  for (const seat of h.bench) nodes.push(chip(seat, 'seat'));
  if (h.chair) nodes.push(chip('chair: ' + h.chair, 'chair'));
  nodes.push(el('span', { cls: 'note', text: h.legsDone + '/' + h.legsTotal + ' legs done' }));
  return nodes;
}

function stageRail(stages) {
  return [el('ol', {}, stages.map((s) => el('li', {
    cls: 'stage st-' + slug(s.status), text: (STAGE_GLYPH[s.status] || '\u00B7') + ' ' + s.name + ' \u2014 ' + s.status,
  })))];
}

function seatsTable(seats) {
  if (!seats.length) return [el('p', { cls: 'note', text: 'No seats recorded yet.' })];
  const rows = seats.map((s) => {
    const flags = [];
    if (s.stalled) flags.push('\u23F3 stalled');
    if (s.retries) flags.push('\u21BB retried \u00D7' + s.retries);
    if (s.dead) flags.push('\u2717 out: ' + s.deadReason);
    if (s.judgeDropped) flags.push('judge dropped');
    if (!s.dead && s.error) flags.push(s.error.code);
    const model = el('td', {}, [el('span', { text: s.name })]);
    if (s.resolvedModels.length && !isBlind()) model.append(el('span', { cls: 'sub', text: ' \u2192 ' + s.resolvedModels.join(', ') }));
    model.className = 'model';
    return el('tr', { cls: s.dead ? 'muted dead' : '', data: { row: 'seat' } }, [
      model, cell(s.role, 'role'), cell(s.status, 'status status-' + slug(s.status)), cell(s.stage || '\u2014', 'stage'),
      cell(String(s.calls), 'calls'), cell(s.tokens.text, 'tokens'), cell(s.cost.text, 'cost'), cell(clock(s.lastActivity), 'when'),
      cell(flags.join(' \u00B7 '), 'flag'),
    ]);
  });
  return [table(['Model', 'Role', 'Status', 'Stage', 'Calls', 'Tokens', 'Cost', 'Last activity', 'Flag'], rows, 'seats')];
}

/** A question council's dissent, as its report gives it: the chair's, then the Disputed claims. */
function dissentPanel(data) {
  const d = data.d;
  if (!d) return [el('p', { cls: 'note', text: 'The dissent appears once the run is tallied.' })];
  const nodes = [];
  if (d.chair.length) nodes.push(el('ul', { cls: 'dissent' }, d.chair.map((item) => el('li', { text: item }))));
  else nodes.push(el('p', { cls: 'note', text: data.live ? 'The chair\u2019s dissent comes with its answer.' : 'The chair recorded no dissent.' }));
  const rows = data.m ? data.m.rows.filter((r) => d.disputed.includes(r.id)) : [];
  nodes.push(el('p', { cls: 'sub', text: 'Disputed claims:' }));
  if (!rows.length) nodes.push(el('p', { cls: 'note', text: 'No claim was disputed.' }));
  else nodes.push(el('ul', { cls: 'disputed' }, rows.map((r) => el('li', { text: r.id + ' \u2014 ' + (r.claim || '') }))));
  return nodes;
}

function matrixPanel(data) {
  const m = data.m;
  if (!m) return [el('p', { cls: 'note', text: 'No adjudication matrix: ' + data.note + '.' })];
  const nodes = [];
  if (m.peersReduced) {
    nodes.push(el('p', { cls: 'banner warn peers-reduced', text: 'The tally is peers-reduced: only ' + m.judges
      + ' judge(s) completed, so these tiers rest on fewer peers than a full council.' }));
  }
  const noun = data.question ? 'claims' : 'findings';
  if (m.provisional) {
    nodes.push(el('p', { cls: 'banner warn provisional', text: 'Provisional: the tally before the debate round, which may still move '
      + (data.question ? 'claims' : 'findings') + ' between tiers.' }));
  } else if (data.live) {
    nodes.push(el('p', { cls: 'note provisional', text: 'The tally is in; the chair has not given its '
      + (data.question ? 'answer' : 'verdict') + ' yet.' }));
  }
  if (m.total > m.shown) nodes.push(el('p', { cls: 'note cap', text: 'Showing ' + m.shown + ' of ' + m.total + ' ' + noun + '.' }));
  if (!m.total) nodes.push(el('p', { cls: 'note', text: 'No ' + noun + ' were raised.' }));
  // A question council's claims carry no severity: no Sev column (the report has none either).
  const headers = [data.question ? 'Id' : 'Finding', ...(data.question ? [] : ['Sev']), 'Tier', 'Basis', ...m.columns.map((c) => c.key), 'Claim'];
  const rows = m.rows.map((row) => matrixRow(row, m.columns, data.question));
  const grid = table(headers, rows, 'matrix ' + (data.question ? 'no-sev' : 'with-sev'));
  grid.style.setProperty('--votes', String(Math.max(1, m.columns.length))); // CSSOM, not an inline style attribute
  nodes.push(grid);
  nodes.push(el('p', { cls: 'note legend', text: '\u2713 agree \u00B7 \u2717 dispute \u00B7 \u2013 neutral \u00B7 ? unknown \u00B7 * raiser \u00B7 \u21BA re-voted \u00B7 click a \u2717 to read that judge\u2019s reasoning' }));
  return nodes;
}

function matrixRow(row, columns, question) {
  const tier = el('td', {}, [el('span', { text: row.tier })]);
  if (row.thin) tier.append(chip('thin', 'badge thin'));
  if (row.override) tier.append(chip('override ' + row.override.from + ' \u2192 ' + row.override.to, 'badge override'));
  if (row.debate) tier.append(chip('debate: ' + row.debate.action, 'badge debate'));
  const votes = row.votes.map((vote, index) => voteCell(row, vote, columns[index]));
  const claim = el('td', { cls: 'claim' }, [el('span', { text: row.claim || '' })]);
  if (row.location) claim.append(el('span', { cls: 'sub', text: ' \u2014 ' + row.location }));
  if (row.evidenceCheck) {
    // The deterministic evidence check (issue 30): the quote, and whether it is in the material.
    if (row.evidence) claim.append(el('div', { cls: 'sub evidence', text: 'evidence: \u201C' + row.evidence + '\u201D' }));
    claim.append(el('div', { cls: 'sub evidence-check check-' + slug(row.evidenceCheck), text: 'evidence check: ' + row.evidenceCheck + ' \u2014 ' + (row.evidenceText || '') }));
  }
  if (row.verification) claim.append(chip('verifier: ' + row.verification, 'badge verify-' + slug(row.verification)));
  tier.className = 'tier';
  return el('tr', { cls: 'tier-' + slug(row.tier) }, [
    cell(row.id, 'fid'), question ? null : cell(row.severity, 'sev'), tier, cell(row.basis, 'basis'), ...votes, claim,
  ]);
}

function voteCell(row, vote, column) {
  const td = el('td', { cls: 'vote vote-' + (vote.kind || 'none') });
  const text = (vote.kind ? GLYPH[vote.kind] : '') + (vote.raiser ? '*' : '') + (vote.revote ? ' \u21BA' : '');
  const clickable = source.prose && column.seat && (vote.kind === 'dispute' || vote.revote);
  if (!clickable) {
    td.textContent = text;
    return td;
  }
  const button = el('button', { cls: 'cell-btn', text });
  button.type = 'button';
  button.addEventListener('click', () => {
    state.drill = { findingId: row.id, column: column.key };
    render();
    $('drill-panel').scrollIntoView({ block: 'nearest' });
  });
  td.append(button);
  return td;
}

function drillPanel(data) {
  const panel = $('drill-panel');
  const d = data.d;
  const m = data.m;
  if (!d || !m) {
    panel.hidden = true;
    return [];
  }
  const column = m.columns.find((c) => c.key === d.column);
  const row = m.rows.find((r) => r.id === d.findingId);
  if (!column || !row) {
    panel.hidden = true;
    return [];
  }
  panel.hidden = false;
  const vote = row.votes[m.columns.indexOf(column)];
  const close = el('button', { text: 'Close' });
  close.type = 'button';
  close.addEventListener('click', () => { state.drill = null; render(); });
  const nodes = [close];
  if (vote.revote) {
    const r = vote.revote;
    $('drill-title').textContent = show('Re-vote by ' + column.key + ' on ' + row.id);
    nodes.push(el('p', { cls: 'reason', text: 'Re-voted ' + (r.verdict || '?') + (r.previousVerdict ? ' (was ' + r.previousVerdict + ')' : '')
      + (r.reason ? ' \u2014 reason: ' + r.reason : ' \u2014 no reason recorded') }));
    nodes.push(prose((data.r || []).find((e) => e.seat === column.seat) || null, row.id));
    return nodes;
  }
  $('drill-title').textContent = show('Dissent: ' + column.key + ' on ' + row.id);
  nodes.push(el('p', { cls: 'note', text: 'The Stage-2 contract has no structured reason field; the judge\u2019s reasoning is in its prose below, with ' + row.id + ' highlighted.' }));
  nodes.push(prose((data.j || []).find((e) => e.seat === column.seat) || null, row.id));
  return nodes;
}

function chairPanel(chair) {
  const nodes = [];
  const answer = chair.line === 'ANSWER'; // a question council's chair ends with an ANSWER line
  if (chair.verdict) {
    nodes.push(el('p', {}, [chip((answer ? 'ANSWER: ' : 'VERDICT: ') + chair.verdict, 'verdict big verdict-' + slug(chair.verdict))]));
    if (answer && chair.answer) nodes.push(el('p', { cls: 'answer', text: chair.answer }));
  } else {
    nodes.push(el('p', { cls: 'no-verdict', text: 'No chair ' + (answer ? 'answer' : 'verdict') + ' \u2014 ' + chair.reason + '.' }));
  }
  nodes.push(el('p', { cls: 'note', text: 'Chair: ' + (chair.model || '\u2014') + (chair.conformance ? ' \u00B7 conformance ' + chair.conformance : '') }));
  if (chair.attempts.length) {
    nodes.push(table(['Attempt', 'Model', 'Outcome', 'Reason'], chair.attempts.map((a, i) => el('tr', {}, [
      cell(String(i + 1)), cell(a.model), cell(a.outcome), cell(a.reason || '\u2014'),
    ])), 'attempts'));
  }
  if (chair.output) nodes.push(prose(chair.output));
  return nodes;
}

function rankingPanel(rows) {
  if (!rows || !rows.length) return [el('p', { cls: 'note', text: 'The answers are ranked once the run is tallied.' })];
  const judges = rows[0].perJudge.map((p) => p.judge);
  const body = rows.map((r) => el('tr', { data: { row: 'ranked' } }, [
    cell(String(r.rank)), cell(r.label || '\u2014'), cell(r.name), cell(r.peersOnly), cell(r.withSelf),
    ...r.perJudge.map((p) => cell(p.place)), cell(r.claims),
  ]));
  const nodes = [table(['Rank', 'Answer', 'Model', 'Peers only', 'With self', ...judges, 'Claims'], body, 'ranking')];
  nodes.push(el('p', { cls: 'note legend', text: 'Ranked by the mean place peers gave each answer (lower is better; * the author\u2019s own ranking, not counted), then fewer Disputed claims, then more Confirmed ones.' }));
  for (const r of rows) {
    if (!r.answer) continue;
    nodes.push(el('article', { cls: 'ranked-answer' }, [
      el('h3', { text: r.rank + '. ' + (r.label || r.name) }),
      el('p', { text: r.answer + (r.confidence ? ' (confidence: ' + r.confidence + ')' : '') }),
      ...r.assumptions.map((a) => el('p', { cls: 'note', text: 'assumes: ' + a })),
    ]));
  }
  return nodes;
}

function streetCred(rows) {
  if (!rows.length) return [el('p', { cls: 'note', text: 'Street-cred appears once the run is tallied.' })];
  return [table(['Reviewer', 'Peers only', 'With self'], rows.map((r) => el('tr', {}, [
    cell(r.name), cell(r.peersOnly), cell(r.withSelf),
  ])), 'cred'), el('p', { cls: 'note legend', text: 'The mean place the judges gave each review: lower is better (1 = ranked first). Peers only leaves out the reviewer\u2019s ranking of its own review; with self counts it.' })];
}

function decisionsPanel(rows) {
  if (!rows.length) {
    return [el('p', { cls: 'note', text: 'No Stage-4 decisions recorded: Stage 4 stays human ('
      + (source.inline ? 'ask Claude to record your decisions with the amicus_verdict tool, its decisions argument' : 'amicus council verdict \u2026 --decisions') + ').' })];
  }
  return [table(['Finding', 'Decision', 'Applied', 'Duplicate of', 'Tier override'], rows.map((r) => el('tr', {}, [
    cell(r.id), cell(r.decision), cell(r.applied ? 'yes' : 'no'), cell(r.duplicateOf || '\u2014'),
    cell(r.override ? (r.override.from || '?') + ' \u2192 ' + r.override.to + (r.override.reason ? ' (' + r.override.reason + ')' : '') : '\u2014'),
  ])), 'decisions')];
}

function costPanel(cost) {
  const rows = cost.rows.map((r) => el('tr', { cls: r.dead ? 'muted' : '' }, [
    cell(r.name), cell(r.role), cell(String(r.calls)), cell(r.cost.text),
  ]));
  rows.push(el('tr', { cls: 'total' }, [cell('Total'), cell(''), cell(''), cell(cost.total.text + (cost.total.final ? '' : ' (so far)'))]));
  const nodes = [table(['Seat', 'Role', 'Calls', 'Cost'], rows, 'cost')];
  if (cost.maxCost) {
    const meter = el('meter', { cls: 'gauge' });
    meter.min = 0;
    meter.max = 1;
    meter.value = cost.fraction === null ? 0 : cost.fraction;
    const share = cost.fraction === null ? 'unknown share' : Math.round(cost.fraction * 100) + '%';
    nodes.push(el('p', { cls: 'gauge-line' }, [meter, el('span', { text: ' ' + cost.total.text + ' of the ' + cost.maxCostText + ' ' + MAX_COST + ' ceiling (' + share + ')' })]));
  } else {
    nodes.push(el('p', { cls: 'note', text: 'No ' + MAX_COST + ' ceiling on this run'
      + (source.inline ? ' (amicus_council_run\u2019s maxCost argument sets one).' : '.') }));
  }
  if (cost.refusals) nodes.push(el('p', { cls: 'note', text: cost.refusals + ' launch(es) refused by the ceiling.' }));
  return nodes;
}

function seatHeading(entry) {
  if (isBlind()) return el('h3', { text: entry.label || entry.seat });
  const label = entry.label ? ' (' + entry.label + ')' : '';
  return el('h3', { text: entry.seat + label + ' \u2014 ' + entry.file });
}

function proseList(items, empty) {
  if (!items || !items.length) return [el('p', { cls: 'note', text: empty })];
  return items.map((entry) => el('article', { cls: 'prose-item' }, [seatHeading(entry), prose(entry)]));
}

function judgesPanel(data) {
  const nodes = proseList(data.j, 'No judge prose on disk yet.');
  if (data.r && data.r.length) nodes.push(el('h3', { text: 'Re-votes' }), ...proseList(data.r, ''));
  return nodes;
}

function runList(runs) {
  if (!runs.length) return [el('p', { cls: 'note', text: 'No council runs in this project yet.' })];
  const rows = runs.map((r) => {
    const link = el('a', { text: r.runId });
    link.href = '?run=' + encodeURIComponent(r.runId);
    const status = r.state === 'ok' ? r.status : r.state;
    const verdict = el('td', {}, [r.overallVerdict ? chip(r.overallVerdict, 'verdict verdict-' + slug(r.overallVerdict)) : null]);
    return el('tr', {}, [el('td', {}, [link]), cell(r.createdAt || '\u2014'), el('td', {}, [chip(status || '?', 'status-' + slug(status))]), verdict, cell(r.cost || '\u2014')]);
  });
  return [table(['Run', 'Created', 'Status', 'Verdict', 'Cost'], rows, 'runs')];
}

// ------------------------------------------------------------------ actions

function openConfirm() {
  $('confirm').hidden = false;
  $('confirm-yes').focus();
}

function say(text) {
  const status = $('action-status');
  status.hidden = false;
  status.textContent = text;
}

async function doAbort() {
  $('confirm').hidden = true;
  const result = await source.act('abort').catch((error) => ({ ok: false, body: { error: { message: error.message } } }));
  if (!result.ok) say('Abort failed: ' + (result.body.error ? result.body.error.message : 'no answer'));
  else if (result.body.alreadyTerminal) say('The run had already finished (' + result.body.status + ').');
  else say('Abort requested' + (result.body.signalled ? '.' : ' (the engine process was already gone).'));
  schedule();
}

async function doFold() {
  const result = await source.act('fold').catch((error) => ({ ok: false, body: { error: { message: error.message } } }));
  if (!result.ok) say('Fold failed: ' + (result.body.error ? result.body.error.message : 'no answer'));
  else if (result.body.alreadyFolded) say('Already folded (' + result.body.file + '); nothing written.');
  else say('Folded: the block is in ' + result.body.file + ' and on the terminal that launched the workspace.');
}

function init() {
  $('blind-toggle').addEventListener('click', () => { state.blindChoice = !isBlind(); render(); });
  $('abort-button').addEventListener('click', openConfirm);
  $('confirm-no').addEventListener('click', () => { $('confirm').hidden = true; });
  $('confirm-yes').addEventListener('click', doAbort);
  $('fold-button').addEventListener('click', doFold);
  for (const event of ['visibilitychange', 'focus', 'blur']) {
    (event === 'visibilitychange' ? document : window).addEventListener(event, () => { if (state.timer) schedule(); });
  }
  for (const id of source.prose ? [] : ['reviews-panel', 'bundle-panel', 'judges-panel']) $(id).hidden = true;
  if (!source.list) $('home').removeAttribute('href'); // inline: there is no run list to go home to
  source.start(tick, render);
}

init();
