/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// The web view of one simulator, served at .../simulators/NAME/ui/. Every
// URL it calls is relative to the page: ../proxy/ (the inner cluster),
// ../api/ (the simulator's own API) and ../../../nodepools,
// ../../../simulators and ../../../scenarios (the host's), so the host's
// RBAC decides each call as the caller's own.
//
// Performance marks the browser test reads: nodes-draw (from the Nodes'
// list arriving to the grid drawn), nodes-list (the list's fetch),
// result-open (from asking for a Pod's result to its table drawn) and
// result-render (its drawing alone).

import {
  call, el, formatBytes, formatCPU, listWatch, parseSelector, podRequests, quantity as quantityOf, text,
} from './k8s.js';

const POOL_LABEL = 'sim.x-k8s.io/nodepool';
const RESULT_ANNOTATION = 'sim.x-k8s.io/scheduling-result';
const KSS_PREFIX = 'kube-scheduler-simulator.sigs.k8s.io/';
const MAX_POD_ROWS = 500;
const CELL = 11; // px per node in the grid, gap included
const SIZE = 9;
const PAD = 2; // room for the selected cell's outline

const $ = (id) => document.getElementById(id);

// Where we are: .../namespaces/NS/simulators/NAME/ui/.
const where = (() => {
  const parts = location.pathname.split('/');
  const i = parts.lastIndexOf('ui');
  const j = parts.lastIndexOf('namespaces', i);
  return {
    namespace: decodeURIComponent(parts[j + 1] || ''),
    name: decodeURIComponent(parts[i - 1] || ''),
  };
})();

const URLS = {
  nodes: '../proxy/api/v1/nodes',
  pods: '../proxy/api/v1/pods',
  pod: (ns, name) => `../proxy/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`,
  result: (ns, name) => `../api/v1/schedulingresults/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`,
  config: '../api/v1/schedulerconfiguration',
  simulators: `../../../simulators?fieldSelector=${encodeURIComponent(`metadata.name=${where.name}`)}`,
  pools: `../../../nodepools?fieldSelector=${encodeURIComponent(`spec.simulatorName=${where.name}`)}`,
  scale: (pool) => `../../../nodepools/${encodeURIComponent(pool)}/scale`,
  scenarios: '../../../scenarios',
  // The report ignores the query; a new one makes the browser ask again.
  plot: (scn, plot, version) => `../../../scenarios/${encodeURIComponent(scn)}/report/svg/${encodeURIComponent(plot)}?v=${encodeURIComponent(version)}`,
};

// The plots of a scenario's report (report/svg/PLOT).
const PLOTS = [
  ['allocation', 'CPU requested ÷ allocatable over time'],
  ['pending', 'Pending Pods over time'],
];

// Problems of the live sources, shown until the source recovers.
const problems = new Map();
function problem(source, err) {
  if (err) problems.set(source, `${source}: ${err.message || err}`);
  else problems.delete(source);
  const ul = $('errors');
  ul.replaceChildren(...[...problems.values()].map((m) => el('li', null, m)));
}

// Every CSP violation is counted: the page makes none, so any would be
// markup from a cluster trying to run.
window.simUI = { cspViolations: 0, state: null };
document.addEventListener('securitypolicyviolation', () => { window.simUI.cspViolations++; });

// ---------------------------------------------------------------- state

const state = {
  nodes: new Map(), // name → {name, labels, pool, alloc, used, ready, pods, obj}
  order: [], // node names, sorted
  orderDirty: true,
  pods: new Map(), // ns/name → {key, ns, name, phase, node, req, pending, obj}
  pools: new Map(),
  scaleDrafts: new Map(), // pool → replicas typed, not yet sent
  filter: { pool: '', selector: null },
  shown: [], // the nodes drawn, in grid order
  shownDirty: true,
  selectedNode: '',
  view: 'nodes',
  result: null, // {ns, name, rows, plugins, ...}
  firstDraw: null, // set when the Nodes' first list arrives
  simulator: null, // the simulator, as last polled
  scenarios: null, // the namespace's Scenarios, this simulator's first
  scenario: '', // the Scenario shown
};
window.simUI.state = state;

const collator = new Intl.Collator(undefined, { numeric: true });

function nodeRecord(obj) {
  const labels = obj.metadata?.labels || {};
  const alloc = obj.status?.allocatable || {};
  const ready = (obj.status?.conditions || []).some((c) => c.type === 'Ready' && c.status === 'True');
  const old = state.nodes.get(obj.metadata.name);
  return {
    name: obj.metadata.name,
    labels,
    pool: labels[POOL_LABEL] || '',
    alloc: { cpu: quantityOf(alloc.cpu), memory: quantityOf(alloc.memory) },
    used: old ? old.used : { cpu: 0, memory: 0 },
    pods: old ? old.pods : 0,
    ready,
    unschedulable: !!obj.spec?.unschedulable,
    obj,
  };
}

function podRecord(obj) {
  const cond = (obj.status?.conditions || []).find((c) => c.type === 'PodScheduled');
  const phase = obj.metadata?.deletionTimestamp ? 'Terminating' : (obj.status?.phase || 'Pending');
  return {
    key: `${obj.metadata.namespace}/${obj.metadata.name}`,
    ns: obj.metadata.namespace,
    name: obj.metadata.name,
    phase,
    node: obj.spec?.nodeName || '',
    req: podRequests(obj),
    pending: !obj.spec?.nodeName,
    why: cond && cond.status === 'False' ? `${cond.reason || ''}: ${cond.message || ''}` : '',
    active: obj.status?.phase !== 'Succeeded' && obj.status?.phase !== 'Failed',
    result: obj.metadata?.annotations?.[RESULT_ANNOTATION] || '',
    obj,
  };
}

// The Pods' requests are added to their Node's allocation.
function account(pod, sign) {
  if (!pod || !pod.node || !pod.active) return;
  let n = state.nodes.get(pod.node);
  if (!n) {
    // The Pod came before its Node: keep the sum for when it comes.
    n = { name: pod.node, labels: {}, pool: '', alloc: { cpu: 0, memory: 0 }, used: { cpu: 0, memory: 0 }, pods: 0, ready: false, obj: null, ghost: true };
    state.nodes.set(pod.node, n);
  }
  n.used.cpu += sign * pod.req.cpu;
  n.used.memory += sign * pod.req.memory;
  n.pods += sign;
}

function setNode(obj) {
  const prev = state.nodes.get(obj.metadata.name);
  const rec = nodeRecord(obj);
  state.nodes.set(rec.name, rec);
  if (!prev || prev.ghost) state.orderDirty = true;
  if (!prev || prev.ghost || prev.pool !== rec.pool || prev.labels !== rec.labels) state.shownDirty = true;
}

function nodesReset(items, { listStart }) {
  const arrived = performance.now();
  performance.measure('nodes-list', { start: listStart, end: arrived });
  performance.mark('nodes-listed');
  const used = new Map();
  for (const [name, n] of state.nodes) used.set(name, { used: n.used, pods: n.pods });
  state.nodes = new Map();
  for (const obj of items) {
    const rec = nodeRecord(obj);
    const u = used.get(rec.name);
    if (u) {
      rec.used = u.used;
      rec.pods = u.pods;
    }
    state.nodes.set(rec.name, rec);
  }
  // Pods on Nodes not listed keep their sums in ghosts.
  for (const [name, u] of used) {
    if (!state.nodes.has(name) && u.pods > 0) {
      state.nodes.set(name, { name, labels: {}, pool: '', alloc: { cpu: 0, memory: 0 }, used: u.used, pods: u.pods, ready: false, obj: null, ghost: true });
    }
  }
  state.orderDirty = true;
  state.shownDirty = true;
  if (!state.firstDraw) state.firstDraw = { arrived, count: items.length };
  updatePoolOptions();
  render();
}

function nodesEvent(type, obj) {
  if (type === 'DELETED') {
    const n = state.nodes.get(obj.metadata.name);
    if (n && n.pods > 0) {
      n.ghost = true;
      n.obj = null;
    } else {
      state.nodes.delete(obj.metadata.name);
    }
    state.orderDirty = true;
    state.shownDirty = true;
  } else {
    setNode(obj);
  }
  poolOptionsSoon();
  render();
}

function podsReset(items) {
  for (const n of state.nodes.values()) {
    n.used = { cpu: 0, memory: 0 };
    n.pods = 0;
  }
  state.pods = new Map();
  for (const obj of items) {
    const p = podRecord(obj);
    state.pods.set(p.key, p);
    account(p, +1);
  }
  render();
}

function podsEvent(type, obj) {
  const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
  const prev = state.pods.get(key);
  account(prev, -1);
  if (type === 'DELETED') {
    state.pods.delete(key);
  } else {
    const p = podRecord(obj);
    state.pods.set(key, p);
    account(p, +1);
    // A new attempt of the Pod whose result is open: show it.
    const r = state.result;
    if (r && r.key === key && prev && prev.result !== p.result && p.result) openResult(r.ns, r.name, true);
  }
  render();
}

// ---------------------------------------------------------------- rendering

let frame = 0;
function render() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    if (state.view === 'nodes') drawGrid();
    if (state.view === 'pods') drawPods();
    if (state.view === 'nodes' && state.selectedNode) showNode(state.selectedNode);
  });
}

// Allocation colours: green (idle) to red (full), grey when not Ready.
const LEVELS = 10;
const COLOURS = Array.from({ length: LEVELS + 1 }, (_, i) => {
  const f = i / LEVELS;
  const hue = 130 - 130 * f;
  return `hsl(${hue}, 65%, ${82 - 30 * f}%)`;
});
const NOT_READY = '#8a8f98';
const OVER = '#7a0010';

function level(n, resource) {
  const a = n.alloc[resource];
  if (!a) return n.used[resource] > 0 ? LEVELS + 1 : 0;
  const f = n.used[resource] / a;
  if (f > 1) return LEVELS + 1;
  return Math.min(LEVELS, Math.round(f * LEVELS));
}

function drawLegend() {
  const items = [el('span', null, 'allocated 0%')];
  for (const c of COLOURS) {
    const s = el('span', { class: 'swatch' });
    s.style.background = c;
    items.push(s);
  }
  items.push(el('span', null, '100%'));
  const over = el('span', { class: 'swatch' });
  over.style.background = OVER;
  const nr = el('span', { class: 'swatch' });
  nr.style.background = NOT_READY;
  items.push(over, el('span', null, 'over'), nr, el('span', null, 'not Ready'));
  $('legend').replaceChildren(...items);
}

function shownNodes() {
  if (state.orderDirty) {
    state.order = [...state.nodes.keys()].sort(collator.compare);
    state.orderDirty = false;
    state.shownDirty = true;
  }
  if (state.shownDirty) {
    const { pool, selector } = state.filter;
    const out = [];
    for (const name of state.order) {
      const n = state.nodes.get(name);
      if (!n || n.ghost) continue;
      if (pool && n.pool !== pool) continue;
      if (selector && !selector(n.labels)) continue;
      out.push(n);
    }
    state.shown = out;
    state.shownDirty = false;
  }
  return state.shown;
}

const grid = { cols: 1 };

function drawGrid() {
  const shown = shownNodes();
  const canvas = $('grid');
  const wrap = $('grid-wrap');
  const width = Math.max(wrap.clientWidth, CELL);
  const cols = Math.max(1, Math.floor((width - 2 * PAD) / CELL));
  const rows = Math.ceil(shown.length / cols);
  const dpr = window.devicePixelRatio || 1;
  const w = cols * CELL + 2 * PAD;
  const h = Math.max(rows * CELL, CELL) + 2 * PAD;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  grid.cols = cols;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const resource = $('resource').value;
  // One path per colour: a few fills for thousands of cells.
  const paths = Array.from({ length: LEVELS + 3 }, () => new Path2D());
  for (let i = 0; i < shown.length; i++) {
    const n = shown[i];
    const x = PAD + (i % cols) * CELL;
    const y = PAD + Math.floor(i / cols) * CELL;
    paths[n.ready ? level(n, resource) : LEVELS + 2].rect(x, y, SIZE, SIZE);
  }
  for (let l = 0; l < paths.length; l++) {
    ctx.fillStyle = l <= LEVELS ? COLOURS[l] : (l === LEVELS + 1 ? OVER : NOT_READY);
    ctx.fill(paths[l]);
  }
  const sel = shown.findIndex((n) => n.name === state.selectedNode);
  if (sel >= 0) {
    ctx.strokeStyle = '#1d2430';
    ctx.lineWidth = 2;
    ctx.strokeRect(PAD + (sel % cols) * CELL - 1, PAD + Math.floor(sel / cols) * CELL - 1, SIZE + 2, SIZE + 2);
  }
  canvas.dataset.count = String(shown.length);
  const total = [...state.nodes.values()].filter((n) => !n.ghost).length;
  const ready = shown.filter((n) => n.ready).length;
  text($('nodes-summary'), `${shown.length} of ${total} nodes shown, ${ready} Ready; ${state.pods.size} pods`);
  if (state.firstDraw && !state.firstDraw.done && state.firstDraw.count > 0) {
    state.firstDraw.done = true;
    performance.measure('nodes-draw', 'nodes-listed');
    canvas.dataset.firstDrawn = String(shown.length);
  }
}

function nodeAt(ev) {
  const rect = $('grid').getBoundingClientRect();
  const x = ev.clientX - rect.left - PAD;
  const y = ev.clientY - rect.top - PAD;
  const col = Math.floor(x / CELL);
  if (x < 0 || y < 0 || col >= grid.cols || x % CELL > SIZE || y % CELL > SIZE) return null;
  const i = Math.floor(y / CELL) * grid.cols + col;
  return state.shown[i] || null;
}

function allocationText(n) {
  const pct = (r) => (n.alloc[r] ? `${Math.round((100 * n.used[r]) / n.alloc[r])}%` : 'n/a');
  return `CPU ${formatCPU(n.used.cpu)} of ${formatCPU(n.alloc.cpu)} (${pct('cpu')}), memory ${formatBytes(n.used.memory)} of ${formatBytes(n.alloc.memory)} (${pct('memory')})`;
}

function kvTable(title, obj) {
  const entries = Object.entries(obj || {}).sort(([a], [b]) => collator.compare(a, b));
  return [
    el('h3', null, `${title} (${entries.length})`),
    el('table', { class: 'kv' }, entries.map(([k, v]) => el('tr', null, el('td', null, k), el('td', null, String(v))))),
  ];
}

function showNode(name) {
  const aside = $('node-detail');
  const n = state.nodes.get(name);
  if (!n || n.ghost) {
    aside.hidden = true;
    return;
  }
  state.selectedNode = name;
  const pods = [...state.pods.values()].filter((p) => p.node === name);
  aside.replaceChildren(
    el('h2', null, n.name),
    el('p', null, n.ready ? 'Ready' : 'not Ready', n.unschedulable ? ', unschedulable' : '', n.pool ? `, pool ${n.pool}` : ''),
    el('p', null, allocationText(n)),
    el('h3', null, `Pods (${pods.length})`),
    el('ul', null, pods.slice(0, 50).map((p) => el('li', null, el('a', { href: `#pod/${encodeURIComponent(p.ns)}/${encodeURIComponent(p.name)}` }, p.key)))),
    ...kvTable('Labels', n.labels),
    ...kvTable('Annotations', n.obj?.metadata?.annotations),
    el('h3', null, 'Taints'),
    el('ul', null, (n.obj?.spec?.taints || []).map((t) => el('li', null, `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`))),
  );
  aside.hidden = false;
}

function selectNode(name) {
  state.selectedNode = name;
  showNode(name);
  drawGrid();
}

const pools = { pending: false };
function poolOptionsSoon() {
  if (pools.pending) return;
  pools.pending = true;
  setTimeout(() => {
    pools.pending = false;
    updatePoolOptions();
  }, 500);
}

function updatePoolOptions() {
  const counts = new Map();
  for (const n of state.nodes.values()) {
    if (!n.ghost && n.pool) counts.set(n.pool, (counts.get(n.pool) || 0) + 1);
  }
  for (const p of state.pools.keys()) if (!counts.has(p)) counts.set(p, 0);
  const select = $('pool-filter');
  const current = select.value;
  const options = [new Option('all pools', '')];
  for (const p of [...counts.keys()].sort(collator.compare)) {
    options.push(new Option(`${p} (${counts.get(p)})`, p));
  }
  select.replaceChildren(...options);
  select.value = counts.has(current) ? current : '';
}

function drawPods() {
  const q = $('pod-filter').value.trim().toLowerCase();
  const pendingOnly = $('pending-only').checked;
  let list = [...state.pods.values()];
  if (pendingOnly) list = list.filter((p) => p.pending);
  if (q) list = list.filter((p) => p.key.toLowerCase().includes(q) || p.node.toLowerCase().includes(q));
  list.sort((a, b) => (a.pending === b.pending ? collator.compare(a.key, b.key) : (a.pending ? -1 : 1)));
  const pending = [...state.pods.values()].filter((p) => p.pending).length;
  text($('pods-summary'), `${state.pods.size} pods, ${pending} pending` +
    (list.length > MAX_POD_ROWS ? `; the first ${MAX_POD_ROWS} of ${list.length} shown (filter to narrow)` : ''));
  const rows = list.slice(0, MAX_POD_ROWS).map((p) => el('tr', {
    class: 'clickable', dataset: { pod: p.key },
    onclick: () => { location.hash = `#pod/${encodeURIComponent(p.ns)}/${encodeURIComponent(p.name)}`; },
  },
  el('td', null, p.ns),
  el('td', null, el('a', { href: `#pod/${encodeURIComponent(p.ns)}/${encodeURIComponent(p.name)}` }, p.name)),
  el('td', null, p.phase),
  el('td', null, p.node),
  el('td', null, formatCPU(p.req.cpu)),
  el('td', null, formatBytes(p.req.memory)),
  el('td', { class: p.why ? 'error' : '' }, p.why)));
  $('pods').tBodies[0].replaceChildren(...rows);
}

// ---------------------------------------------------------------- one Pod's result

const ROW_HEIGHT = 23;

async function openResult(ns, name, again) {
  if (!again) performance.mark('result-open-start');
  const key = `${ns}/${name}`;
  state.result = { ns, name, key, rows: [], filterPlugins: [], scorePlugins: [] };
  text($('result-title'), `Pod ${key}`);
  text($('result-status'), 'Loading the scheduling result…');
  $('result-status').className = 'muted';
  $('result-summary').replaceChildren();
  $('result-table').querySelector('thead').replaceChildren();
  if (!again) delete $('result-table').dataset.rendered;
  $('result-table').querySelector('tbody').replaceChildren();
  let doc;
  let pod = state.pods.get(key)?.obj;
  try {
    const [d, p] = await Promise.all([call('GET', URLS.result(ns, name)), pod ? pod : call('GET', URLS.pod(ns, name)).catch(() => null)]);
    doc = d;
    pod = p;
  } catch (err) {
    if (state.result?.key !== key) return;
    text($('result-status'), err.message);
    $('result-status').className = 'error';
    $('result-summary').replaceChildren(...podHeader(pod));
    return;
  }
  if (state.result?.key !== key) return;
  const renderStart = performance.now();
  buildResult(doc);
  text($('result-status'), '');
  $('result-summary').replaceChildren(...podHeader(pod), ...resultSummary(doc));
  drawResultHead();
  drawResultRows(true);
  performance.measure('result-render', { start: renderStart });
  if (!again) {
    performance.measure('result-open', 'result-open-start');
    $('result-table').dataset.rendered = String(state.result.rows.length);
  }
}

function podHeader(pod) {
  if (!pod) return [];
  const cond = (pod.status?.conditions || []).find((c) => c.type === 'PodScheduled');
  const annotations = Object.fromEntries(Object.entries(pod.metadata?.annotations || {})
    .filter(([k]) => k !== RESULT_ANNOTATION && !k.startsWith(KSS_PREFIX)));
  const details = el('details', null, el('summary', null, 'Pod labels and annotations'),
    ...kvTable('Labels', pod.metadata?.labels), ...kvTable('Annotations', annotations));
  return [
    el('dl', { class: 'summary' },
      el('dt', null, 'phase'), el('dd', null, pod.status?.phase || ''),
      el('dt', null, 'node'), el('dd', null, pod.spec?.nodeName || '(none)'),
      el('dt', null, 'PodScheduled'), el('dd', null, cond ? `${cond.status} ${cond.reason || ''} ${cond.message || ''}` : '')),
    details,
  ];
}

function resultSummary(doc) {
  const s = doc.summary || {};
  const out = [el('h3', null, 'Latest attempt'), el('dl', { class: 'summary', id: 'result-facts' },
    el('dt', null, 'outcome'), el('dd', { id: 'result-outcome' }, s.outcome || ''),
    el('dt', null, 'profile'), el('dd', null, s.profile || ''),
    el('dt', null, 'selected node'), el('dd', { id: 'result-selected' }, s.selectedNode || '(none)'),
    s.nominatedNode ? [el('dt', null, 'nominated node'), el('dd', null, s.nominatedNode)] : null,
    el('dt', null, 'nodes'), el('dd', null, `${s.nodes ?? ''} in the snapshot, ${s.evaluated ?? ''} evaluated, ${s.feasible ?? ''} feasible`),
    el('dt', null, 'message'), el('dd', null, s.message || ''),
    el('dt', null, 'when'), el('dd', null, `${s.time || ''} (${s.duration || ''})`))];
  if (s.filterFailures?.length) {
    out.push(el('h3', null, 'Filter failures'), el('table', { class: 'list', id: 'result-failures' },
      el('thead', null, el('tr', null, el('th', null, 'Plugin'), el('th', null, 'Reason'), el('th', null, 'Nodes'))),
      el('tbody', null, s.filterFailures.map((f) => el('tr', null, el('td', null, f.plugin), el('td', null, f.reason), el('td', null, String(f.nodes)))))));
  }
  const victims = s.victims || [];
  out.push(el('h3', null, `Preemption victims (${victims.length})`),
    el('ul', { id: 'result-victims' }, victims.map((v) => el('li', null, v))));
  const post = doc['postfilter-result'] || {};
  const postEntries = Object.entries(post).flatMap(([node, plugins]) => Object.entries(plugins || {}).map(([p, r]) => `${p} on ${node || '(no node)'}: ${r}`));
  if (postEntries.length) out.push(el('h3', null, 'PostFilter'), el('ul', null, postEntries.map((e) => el('li', null, e))));
  return out;
}

function buildResult(doc) {
  const r = state.result;
  const filter = doc['filter-result'] || {};
  const raw = doc['score-result'] || {};
  const final = doc['finalscore-result'] || {};
  const selected = doc.summary?.selectedNode || doc.summary?.nominatedNode || '';
  const filterPlugins = [];
  const seenF = new Set();
  // The distinct verdicts are few: their plugins are the union of a few.
  const seenVerdict = new Set();
  for (const v of Object.values(filter)) {
    if (seenVerdict.has(v)) continue;
    seenVerdict.add(v);
    for (const p of Object.keys(v)) if (!seenF.has(p)) { seenF.add(p); filterPlugins.push(p); }
  }
  const scorePlugins = [];
  const seenS = new Set();
  for (const v of Object.values(final)) {
    for (const p of Object.keys(v)) if (!seenS.has(p)) { seenS.add(p); scorePlugins.push(p); }
    if (seenS.size && scorePlugins.length >= Object.keys(v).length) break;
  }
  const names = new Set([...Object.keys(filter), ...Object.keys(final)]);
  const rows = [];
  for (const node of names) {
    const f = filter[node];
    let rejectedBy = '';
    if (f) {
      for (const p in f) {
        if (f[p] !== 'passed') {
          rejectedBy = p;
          break;
        }
      }
    }
    const fs = final[node];
    let total = null;
    if (fs) {
      total = 0;
      for (const p in fs) total += Number(fs[p]) || 0;
    }
    rows.push({ node, filter: f, raw: raw[node], final: fs, rejectedBy, total, chosen: node === selected });
  }
  rows.sort((a, b) => {
    if (a.chosen !== b.chosen) return a.chosen ? -1 : 1;
    if (!a.rejectedBy !== !b.rejectedBy) return a.rejectedBy ? 1 : -1;
    if ((a.total ?? -Infinity) !== (b.total ?? -Infinity)) return (b.total ?? -Infinity) - (a.total ?? -Infinity);
    if (a.rejectedBy !== b.rejectedBy) return collator.compare(a.rejectedBy, b.rejectedBy);
    return collator.compare(a.node, b.node);
  });
  Object.assign(r, { rows, filterPlugins, scorePlugins, shown: rows });
}

function drawResultHead() {
  const r = state.result;
  const head = el('tr', null, el('th', null, 'Node'), el('th', null, 'Verdict'),
    r.filterPlugins.map((p) => el('th', { title: `Filter: ${p}` }, p)),
    r.scorePlugins.map((p) => el('th', { title: `Score: ${p} (raw → final)` }, `${p} score`)),
    el('th', null, 'Final score'));
  $('result-table').querySelector('thead').replaceChildren(head);
}

function resultFiltered() {
  const r = state.result;
  const q = $('result-filter').value.trim().toLowerCase();
  const show = $('result-show').value;
  r.shown = r.rows.filter((row) => (!q || row.node.toLowerCase().includes(q)) &&
    (show === 'all' || (show === 'feasible' ? !row.rejectedBy : !!row.rejectedBy)));
  text($('result-count'), `${r.shown.length} of ${r.rows.length} nodes`);
}

function resultRow(row) {
  const r = state.result;
  const cells = [el('td', null, row.node),
    el('td', { class: row.rejectedBy ? 'fail' : 'pass' }, row.chosen ? 'chosen' : (row.rejectedBy ? `rejected by ${row.rejectedBy}` : 'feasible'))];
  for (const p of r.filterPlugins) {
    const v = row.filter?.[p];
    if (v === undefined) cells.push(el('td', null, ''));
    else if (v === 'passed') cells.push(el('td', { class: 'pass' }, 'passed'));
    else cells.push(el('td', { class: 'fail', title: v }, v));
  }
  for (const p of r.scorePlugins) {
    const raw = row.raw?.[p];
    const fin = row.final?.[p];
    cells.push(el('td', null, fin === undefined ? '' : `${raw ?? '?'} → ${fin}`));
  }
  cells.push(el('td', null, row.total === null ? '' : String(row.total)));
  return el('tr', { class: row.chosen ? 'chosen' : '', dataset: { node: row.node } }, cells);
}

// Only the rows in sight are in the DOM: a result over 5,000 nodes
// is a few dozen rows at a time.
function drawResultRows(refilter) {
  const r = state.result;
  if (!r) return;
  if (refilter) resultFiltered();
  const box = $('result-table');
  const cols = 3 + r.filterPlugins.length + r.scorePlugins.length;
  const first = Math.max(0, Math.floor(box.scrollTop / ROW_HEIGHT) - 10);
  const count = Math.ceil((box.clientHeight || 600) / ROW_HEIGHT) + 20;
  const last = Math.min(r.shown.length, first + count);
  const spacer = (h) => {
    const td = el('td', { colspan: cols });
    td.style.height = `${h}px`;
    return el('tr', { class: 'spacer' }, td);
  };
  const rows = [spacer(first * ROW_HEIGHT)];
  for (let i = first; i < last; i++) rows.push(resultRow(r.shown[i]));
  rows.push(spacer((r.shown.length - last) * ROW_HEIGHT));
  box.querySelector('tbody').replaceChildren(...rows);
}

// ---------------------------------------------------------------- scheduler configuration

async function loadConfig() {
  const status = $('config-status');
  text(status, 'Loading…');
  status.className = 'muted';
  try {
    const cfg = await call('GET', URLS.config);
    $('config-text').value = JSON.stringify(cfg, null, 2);
    text(status, '');
  } catch (err) {
    text(status, err.message);
    status.className = 'error';
  }
}

async function applyConfig() {
  const status = $('config-status');
  const body = $('config-text').value;
  const type = body.trim().startsWith('{') ? 'application/json' : 'application/yaml';
  text(status, 'Applying…');
  status.className = 'muted';
  try {
    const cfg = await call('PUT', URLS.config, body, type);
    $('config-text').value = JSON.stringify(cfg, null, 2);
    text(status, 'Applied: the scheduler restarts with this configuration.');
    status.className = 'ok';
  } catch (err) {
    text(status, err.message);
    status.className = 'error';
  }
}

// ---------------------------------------------------------------- NodePools

let poolsDrawn = '';

function drawPools() {
  const list = [...state.pools.values()].sort((a, b) => collator.compare(a.metadata.name, b.metadata.name));
  // Rows are made again only when what they show changed: a list that
  // brings nothing new keeps the rows, and what the user is doing in them.
  const shown = JSON.stringify(list.map((p) => [p.metadata.name, p.spec?.replicas, p.status?.replicas, p.status?.readyReplicas,
    (p.status?.conditions || []).find((c) => c.type === 'Ready')]));
  if (shown === poolsDrawn && $('pools').tBodies[0].rows.length === list.length) return;
  poolsDrawn = shown;
  text($('pools-summary'), `${list.length} NodePools of simulator ${where.name}`);
  $('pools').tBodies[0].replaceChildren(...list.map((p) => {
    const ready = (p.status?.conditions || []).find((c) => c.type === 'Ready');
    // What the user typed survives the pool's updates until it is sent.
    const draft = state.scaleDrafts.get(p.metadata.name);
    const input = el('input', {
      type: 'number', min: '0', value: draft ?? String(p.spec?.replicas ?? 0), size: '7', 'aria-label': `replicas of ${p.metadata.name}`,
      oninput: (e) => state.scaleDrafts.set(p.metadata.name, e.target.value),
    });
    const button = el('button', { type: 'button', onclick: () => scalePool(p.metadata.name, input.value) }, 'Scale');
    const show = el('a', {
      href: '#nodes',
      onclick: () => {
        $('pool-filter').value = p.metadata.name;
        state.filter.pool = p.metadata.name;
        state.shownDirty = true;
      },
    }, p.metadata.name);
    return el('tr', { dataset: { pool: p.metadata.name } },
      el('td', null, show),
      el('td', null, String(p.spec?.replicas ?? 0)),
      el('td', null, String(p.status?.replicas ?? 0)),
      el('td', null, String(p.status?.readyReplicas ?? 0)),
      el('td', null, ready ? `${ready.status}${ready.reason ? ` ${ready.reason}` : ''}${ready.message ? `: ${ready.message}` : ''}` : ''),
      el('td', null, input, ' ', button));
  }));
}

async function scalePool(name, value) {
  const status = $('pools-status');
  const replicas = Number.parseInt(value, 10);
  if (!Number.isFinite(replicas) || replicas < 0) {
    text(status, `${value} is not a number of replicas`);
    status.className = 'error';
    return;
  }
  text(status, `Scaling ${name} to ${replicas}…`);
  status.className = 'muted';
  try {
    await call('PATCH', URLS.scale(name), JSON.stringify({ spec: { replicas } }), 'application/merge-patch+json');
    state.scaleDrafts.delete(name);
    text(status, `${name} scaled to ${replicas}.`);
    status.className = 'ok';
  } catch (err) {
    text(status, err.message);
    status.className = 'error';
  }
}

// ---------------------------------------------------------------- source

function selectorText(sel) {
  if (!sel) return 'none (every object)';
  const terms = Object.entries(sel.matchLabels || {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions || []) {
    if (e.operator === 'Exists') terms.push(e.key);
    else if (e.operator === 'DoesNotExist') terms.push(`!${e.key}`);
    else terms.push(`${e.key} ${e.operator === 'In' ? 'in' : 'notin'} (${(e.values || []).join(',')})`);
  }
  return terms.join(',') || 'none (every object)';
}

function ago(time) {
  const t = Date.parse(time || '');
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function facts(pairs) {
  return pairs.filter(([, v]) => v !== undefined && v !== null && v !== '')
    .flatMap(([k, v, id]) => [el('dt', null, k), el('dd', id ? { id } : null, String(v))]);
}

// The header's badge and the Source tab exist only for a simulator with
// spec.source; both follow the simulator's status as it is polled.
function drawSourceBadge() {
  const s = state.simulator;
  const spec = s?.spec?.source;
  const phase = s?.status?.source?.phase || (spec ? 'Pending' : '');
  $('tab-source').hidden = !spec;
  const badge = $('sim-source');
  badge.hidden = !spec;
  text(badge, spec ? `source ${phase}` : '');
  badge.className = `phase ${phase}`;
}

function drawSource() {
  const s = state.simulator;
  const spec = s?.spec?.source;
  const st = s?.status?.source || {};
  if (!spec) {
    text($('source-summary'), s ? 'This simulator has no source.' : 'Loading the simulator…');
    $('source-status').replaceChildren();
    $('source-spec').replaceChildren();
    $('source-objects').tBodies[0].replaceChildren();
    return;
  }
  const objects = Object.entries(st.objects || {}).sort(([a], [b]) => collator.compare(a, b));
  const total = objects.reduce((n, [, c]) => n + (Number(c) || 0), 0);
  text($('source-summary'), `${spec.mode || 'Once'} source: ${total} objects mirrored` +
    (st.lastSyncTime ? `, last synced ${ago(st.lastSyncTime)}` : ''));
  const shadow = st.shadow || {};
  $('source-status').replaceChildren(...facts([
    ['phase', st.phase || 'Pending', 'source-phase'],
    ['message', st.message],
    ['objects', String(total), 'source-total'],
    ['last sync', st.lastSyncTime ? `${st.lastSyncTime} (${ago(st.lastSyncTime)})` : ''],
    ['lag', st.lagMilliseconds !== undefined ? `${st.lagMilliseconds} ms` : ''],
    ['skipped', (st.skipped || []).join(', ')],
    ['shadow scheduling', shadow.same || shadow.other || shadow.unschedulable
      ? `${shadow.same || 0} on the same Node, ${shadow.other || 0} on another, ${shadow.unschedulable || 0} unschedulable here` : ''],
  ]));
  $('source-status').className = 'summary';
  $('source-spec').replaceChildren(...facts([
    ['mode', spec.mode || 'Once'],
    ['namespaces', (spec.namespaces || []).join(', ') || 'all'],
    ['label selector', selectorText(spec.labelSelector)],
    ['credentials', `Secret ${spec.secretName || ''}`],
    ['QPS', spec.qps],
    ['workloads', spec.workloads ? 'mirrored' : 'not mirrored'],
  ]));
  $('source-objects').tBodies[0].replaceChildren(...objects.map(([r, c]) => el('tr', { dataset: { resource: r } },
    el('td', null, r), el('td', null, String(c)))));
}

// ---------------------------------------------------------------- scenarios

// A Scenario is this simulator's when it made it (the simulator's owner),
// names it in spec.simulators, or runs a variant in it.
function scenarioRelation(scn) {
  const owners = state.simulator?.metadata?.ownerReferences || [];
  if (owners.some((o) => o.kind === 'Scenario' && o.name === scn.metadata.name)) return 'made it';
  const v = (scn.status?.variants || []).find((x) => x.simulatorName === where.name);
  if (v) return `variant ${v.name}`;
  if ((scn.spec?.simulators || []).includes(where.name)) return 'runs in it';
  return '';
}

async function loadScenarios() {
  try {
    const list = await call('GET', URLS.scenarios);
    const items = (list.items || []).map((scn) => ({ scn, relation: scenarioRelation(scn) }));
    items.sort((a, b) => (!a.relation === !b.relation ? collator.compare(a.scn.metadata.name, b.scn.metadata.name) : (a.relation ? -1 : 1)));
    state.scenarios = items;
    problem('Scenarios');
  } catch (err) {
    problem('Scenarios', err);
  }
  if (state.view === 'scenarios') drawScenarios();
}

function pct(a) {
  return `${a?.meanPercent ?? 0} % / ${a?.p90Percent ?? 0} %`;
}

let plotsShown = '';

function drawScenarios() {
  const items = state.scenarios;
  if (!items) return;
  const mine = items.filter((i) => i.relation).length;
  text($('scenarios-summary'), `${items.length} Scenarios in ${where.namespace}, ${mine} of them with this simulator`);
  if (!items.some((i) => i.scn.metadata.name === state.scenario)) state.scenario = items[0]?.scn.metadata.name || '';
  $('scenarios').tBodies[0].replaceChildren(...items.map(({ scn, relation }) => {
    const name = scn.metadata.name;
    const href = `#scenarios/${encodeURIComponent(name)}`;
    return el('tr', {
      class: `clickable${name === state.scenario ? ' selected' : ''}`, dataset: { scenario: name },
      onclick: () => { location.hash = href; },
    },
    el('td', null, el('a', { href }, name)),
    el('td', null, scn.status?.phase || 'Pending'),
    el('td', null, `${scn.status?.progress ?? 0} %`),
    el('td', null, (scn.status?.variants || []).map((v) => v.name).join(', ') || (scn.spec?.variants || []).map((v) => v.name).join(', ')),
    el('td', null, relation));
  }));
  const cur = items.find((i) => i.scn.metadata.name === state.scenario);
  $('scenario-detail').hidden = !cur;
  if (cur) drawScenario(cur.scn);
}

function drawScenario(scn) {
  const st = scn.status || {};
  const name = scn.metadata.name;
  text($('scenario-title'), `Scenario ${name}`);
  const ready = (st.conditions || []).find((c) => c.type === 'Ready');
  $('scenario-facts').replaceChildren(...facts([
    ['phase', st.phase || 'Pending', 'scenario-phase'],
    ['progress', `${st.progress ?? 0} %`],
    ['started', st.startTime],
    ['completed', st.completionTime],
    ['ready', ready && ready.status !== 'True' ? `${ready.reason || ''}: ${ready.message || ''}` : ''],
  ]));
  $('scenario-variants').tBodies[0].replaceChildren(...(st.variants || []).map((v) => el('tr', {
    class: v.simulatorName === where.name ? 'this' : '', dataset: { variant: v.name },
  },
  el('td', null, v.name),
  el('td', null, v.simulatorName || ''),
  el('td', null, `${v.progress ?? 0} %`),
  el('td', null, String(v.podsScheduled ?? 0)),
  el('td', null, String(v.podsUnschedulable ?? 0)),
  el('td', null, String(v.podsPreempted ?? 0)),
  el('td', { dataset: { field: 'nodesUsed' } }, String(v.nodesUsed ?? 0)),
  el('td', null, pct(v.cpu)),
  el('td', null, pct(v.memory)),
  el('td', null, `${v.bindLatency?.p50Milliseconds ?? 0} / ${v.bindLatency?.p99Milliseconds ?? 0} ms`),
  el('td', null, `${v.lag?.p99Milliseconds ?? 0} / ${v.lag?.maxMilliseconds ?? 0} ms (${v.lag?.late ?? 0})`),
  el('td', { class: v.message ? 'error' : '' }, v.message || ''))));
  const comps = st.comparisons || [];
  const noise = (baseline) => comps.find((c) => c.noiseFloor && c.baseline === baseline);
  $('scenario-comparisons').tBodies[0].replaceChildren(...comps.map((c) => el('tr', { dataset: { variant: c.variant, noiseFloor: String(!!c.noiseFloor) } },
    el('td', null, c.noiseFloor ? `${c.variant} (noise floor: a second run of ${c.baseline})` : c.variant),
    el('td', null, c.baseline),
    el('td', null, String(c.placedDifferently ?? 0)),
    el('td', null, String(c.scheduledOnlyInVariant ?? 0)),
    el('td', null, String(c.scheduledOnlyInBaseline ?? 0)),
    el('td', null, `${(c.nodesUsedDelta ?? 0) > 0 ? '+' : ''}${c.nodesUsedDelta ?? 0}`))));
  if (!comps.length) $('scenario-comparisons').tBodies[0].replaceChildren(el('tr', null, el('td', { colspan: 6, class: 'muted' }, 'No comparisons yet: they come once every variant has finished.')));
  // As the Markdown report says it: above the noise floor or within it.
  $('scenario-verdicts').replaceChildren(...comps.filter((c) => !c.noiseFloor).map((c) => {
    const placed = c.placedDifferently ?? 0;
    const nf = noise(c.baseline);
    let verdict = 'no noise floor was run, so chance cannot be told from the configuration.';
    if (nf) {
      const n = nf.placedDifferently ?? 0;
      verdict = `two runs of ${c.baseline} differ by ${n}: ` + (placed > 2 * n
        ? 'the configuration explains most of the difference.'
        : (placed > n ? 'the difference exceeds the noise floor, but chance explains much of it.' : 'the difference is within the noise floor, and may be chance.'));
    }
    return el('li', null, `${c.variant} placed ${placed} Pods differently from ${c.baseline}; ${verdict}`);
  }));
  // The plots are the report's SVGs, as images: an image runs no script.
  // They are asked for again as the run goes on (a browser keeps an image
  // by its URL: the progress is in the query).
  const key = `${name}/${st.phase || ''}/${st.progress ?? 0}`;
  if (plotsShown !== key) {
    plotsShown = key;
    $('scenario-plots').replaceChildren(...PLOTS.map(([plot, title]) => el('figure', null,
      el('img', {
        class: 'plot', id: `plot-${plot}`, alt: `${title}, scenario ${name}`, src: URLS.plot(name, plot, `${st.phase || 'Pending'}-${st.progress ?? 0}`),
        onerror: () => problem(`Plot ${plot}`, new Error(`the report's ${plot} plot of ${name} did not load`)),
        onload: () => problem(`Plot ${plot}`),
      }),
      el('figcaption', { class: 'muted' }, title))));
  }
}

// The Scenarios are read while their view is open, every 5 s (no watch:
// the browser's few connections are the Nodes' and Pods' watches').
const scenarioPoll = { on: false, timer: 0, gen: 0 };
function watchScenarios(on) {
  if (on === scenarioPoll.on) return;
  scenarioPoll.on = on;
  clearTimeout(scenarioPoll.timer);
  const gen = ++scenarioPoll.gen;
  if (!on) return;
  const tick = async () => {
    await loadScenarios();
    if (scenarioPoll.gen === gen) scenarioPoll.timer = setTimeout(tick, 5000);
  };
  tick();
}

// ---------------------------------------------------------------- navigation

const VIEWS = ['nodes', 'pods', 'result', 'config', 'pools', 'source', 'scenarios'];
let watchPools = () => {};

function route() {
  const hash = location.hash.replace(/^#/, '');
  let view = hash.split('/')[0] || 'nodes';
  if (view === 'pod') view = 'result';
  if (!VIEWS.includes(view)) view = 'nodes';
  state.view = view;
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.id === `tab-${view === 'result' ? 'pods' : view}`);
  }
  if (view === 'result') {
    const [, ns, name] = hash.split('/');
    const nsName = decodeURIComponent(ns || '');
    const podName = decodeURIComponent(name || '');
    if (!state.result || state.result.key !== `${nsName}/${podName}`) openResult(nsName, podName);
  } else {
    state.result = null;
  }
  if (view === 'config' && !$('config-text').value) loadConfig();
  if (view === 'source') drawSource();
  if (view === 'scenarios') {
    const name = decodeURIComponent(hash.split('/')[1] || '');
    if (name) state.scenario = name;
    drawScenarios();
  }
  watchScenarios(view === 'scenarios');
  watchPools(view === 'pools');
  if (view === 'pools') drawPools();
  render();
}

function start() {
  text($('sim-name'), `${where.namespace}/${where.name}`);
  document.title = `Simulator ${where.namespace}/${where.name}`;
  drawLegend();
  const abort = new AbortController();

  listWatch(URLS.nodes, {
    reset: nodesReset, event: nodesEvent, error: (e) => problem('Nodes', e), ok: () => problem('Nodes'),
  }, abort.signal);
  listWatch(URLS.pods, {
    reset: podsReset, event: podsEvent, error: (e) => problem('Pods', e), ok: () => problem('Pods'),
  }, abort.signal);
  // A browser opens at most six connections to a host over HTTP/1.1 (as
  // kubectl proxy serves): two watches stay open (Nodes, Pods), the
  // NodePools' only while their view is, and the simulator's status is
  // polled, so that no request waits for a connection.
  const pools = {
    reset: (items) => {
      state.pools = new Map(items.map((p) => [p.metadata.name, p]));
      updatePoolOptions();
      if (state.view === 'pools') drawPools();
    },
    event: (type, p) => {
      if (type === 'DELETED') state.pools.delete(p.metadata.name);
      else state.pools.set(p.metadata.name, p);
      if (state.view === 'pools') drawPools();
    },
    error: (e) => problem('NodePools', e),
    ok: () => problem('NodePools'),
  };
  call('GET', URLS.pools).then((list) => { pools.reset(list.items || []); pools.ok(); }, pools.error);
  let poolsAbort = null;
  watchPools = (on) => {
    if (on && !poolsAbort) {
      poolsAbort = new AbortController();
      listWatch(URLS.pools, pools, poolsAbort.signal);
    } else if (!on && poolsAbort) {
      poolsAbort.abort();
      poolsAbort = null;
    }
  };
  const pollSimulator = async () => {
    try {
      const list = await call('GET', URLS.simulators);
      const s = list.items?.[0];
      state.simulator = s || null;
      drawSourceBadge();
      if (state.view === 'source') drawSource();
      const phase = s?.status?.phase || '';
      text($('sim-phase'), phase);
      $('sim-phase').className = `phase ${phase}`;
      text($('sim-message'), s?.status?.message || '');
      problem('Simulator');
    } catch (err) {
      problem('Simulator', err);
    }
    setTimeout(pollSimulator, 10000);
  };
  pollSimulator();
  // Close the streams as the page goes, not when the browser gets to it.
  window.addEventListener('pagehide', () => {
    abort.abort();
    watchPools(false);
  });

  $('pool-filter').addEventListener('change', (e) => {
    state.filter.pool = e.target.value;
    state.shownDirty = true;
    render();
  });
  let selectorTimer = 0;
  $('selector').addEventListener('input', (e) => {
    clearTimeout(selectorTimer);
    selectorTimer = setTimeout(() => {
      try {
        state.filter.selector = e.target.value.trim() ? parseSelector(e.target.value) : null;
        text($('selector-error'), '');
      } catch (err) {
        text($('selector-error'), err.message);
        return;
      }
      state.shownDirty = true;
      render();
    }, 150);
  });
  $('resource').addEventListener('change', render);
  $('find-node').addEventListener('change', (e) => {
    const name = e.target.value.trim();
    if (state.nodes.has(name) && !state.nodes.get(name).ghost) {
      text($('selector-error'), '');
      selectNode(name);
    } else if (name) {
      text($('selector-error'), `no node ${name}`);
    }
  });
  const tooltip = $('tooltip');
  $('grid').addEventListener('mousemove', (ev) => {
    const n = nodeAt(ev);
    if (!n) {
      tooltip.hidden = true;
      return;
    }
    text(tooltip, `${n.name}${n.pool ? ` (${n.pool})` : ''}\n${allocationText(n)}\n${n.pods} pods${n.ready ? '' : ', not Ready'}`);
    tooltip.style.left = `${ev.clientX + 12}px`;
    tooltip.style.top = `${ev.clientY + 12}px`;
    tooltip.hidden = false;
  });
  $('grid').addEventListener('mouseleave', () => { tooltip.hidden = true; });
  $('grid').addEventListener('click', (ev) => {
    const n = nodeAt(ev);
    if (n) selectNode(n.name);
  });
  window.addEventListener('resize', render);
  $('pod-filter').addEventListener('input', render);
  $('pending-only').addEventListener('change', render);
  let scrollFrame = 0;
  $('result-table').addEventListener('scroll', () => {
    if (scrollFrame) return;
    scrollFrame = requestAnimationFrame(() => {
      scrollFrame = 0;
      drawResultRows(false);
    });
  });
  $('result-filter').addEventListener('input', () => drawResultRows(true));
  $('result-show').addEventListener('change', () => drawResultRows(true));
  $('result-reload').addEventListener('click', () => {
    if (state.result) openResult(state.result.ns, state.result.name);
  });
  $('config-reload').addEventListener('click', loadConfig);
  $('config-apply').addEventListener('click', applyConfig);
  window.addEventListener('hashchange', route);
  route();
}

start();
