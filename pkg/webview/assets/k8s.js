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

// What the view needs of Kubernetes: calls with the server's errors,
// list-then-watch, quantities, label selectors, and DOM building that
// never parses data as markup.

// el builds an element. Children that are strings become text nodes:
// a value from a cluster is never parsed as HTML.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// text replaces an element's content with one text node.
export function text(e, value) {
  e.textContent = value === undefined || value === null ? '' : String(value);
}

// APIError carries the HTTP status and the server's own message.
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// describe turns an error answer into its message: a Kubernetes Status
// (the host's 403, a validation 422, a simulator that is not Available)
// or the simulator server's {"error": "..."}.
export function describe(status, statusText, body) {
  try {
    const o = JSON.parse(body);
    if (o && o.kind === 'Status') {
      return `${status} ${o.reason || statusText}: ${o.message || ''}`;
    }
    if (o && typeof o.error === 'string') {
      return `${status} ${statusText}: ${o.error}`;
    }
  } catch (e) {
    // not JSON: the text itself
  }
  return `${status} ${statusText}: ${String(body).slice(0, 1000)}`;
}

// call sends a request to a URL relative to the page and returns the
// decoded JSON answer, or throws an APIError with the server's message.
export async function call(method, url, body, contentType) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.body = body;
    init.headers['Content-Type'] = contentType || 'application/json';
  }
  const resp = await fetch(url, init);
  const data = await resp.text();
  if (!resp.ok) {
    throw new APIError(resp.status, describe(resp.status, resp.statusText, data));
  }
  return data ? JSON.parse(data) : null;
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

// listWatch lists url, then watches it from the list's resourceVersion
// (a streamed fetch, one JSON event a line), again from the list after an
// error. on.reset(items, meta) gets each list, on.event(type, object)
// each change, on.error(err) each failure, on.ok() each success after one.
export function listWatch(url, on, signal) {
  const sep = url.includes('?') ? '&' : '?';
  (async () => {
    let rv = '';
    let backoff = 500;
    while (!signal?.aborted) {
      try {
        if (!rv) {
          const listStart = performance.now();
          // From the watch cache, as informers list: the watch then
          // brings whatever is newer.
          const list = await call('GET', `${url}${sep}resourceVersion=0`);
          rv = list.metadata?.resourceVersion || '';
          on.reset(list.items || [], { listStart });
          on.ok?.();
          backoff = 500;
        }
        const resp = await fetch(`${url}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`,
          { signal, headers: { Accept: 'application/json' } });
        if (resp.status === 410) {
          rv = '';
          continue;
        }
        if (!resp.ok) {
          throw new APIError(resp.status, describe(resp.status, resp.statusText, await resp.text()));
        }
        const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        let expired = false;
        while (!expired) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line);
            if (ev.type === 'ERROR') {
              if (ev.object?.code !== 410) {
                on.error(new APIError(ev.object?.code || 500, describe(ev.object?.code || 500, '', JSON.stringify(ev.object))));
              }
              expired = true;
              rv = '';
              break;
            }
            const objRV = ev.object?.metadata?.resourceVersion;
            if (objRV) rv = objRV;
            if (ev.type !== 'BOOKMARK') on.event(ev.type, ev.object);
          }
        }
        if (expired) reader.cancel().catch(() => {});
      } catch (err) {
        if (signal?.aborted) return;
        on.error(err);
        rv = '';
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 10000);
      }
    }
  })();
}

const SUFFIXES = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6,
};

// quantity parses a resource.Quantity ("100m", "64Gi", "1e3") into a
// number of base units; 0 when it is not one.
export function quantity(s) {
  if (s === undefined || s === null) return 0;
  const m = /^([+-]?[0-9]*\.?[0-9]+)(?:[eE]([+-]?[0-9]+))?([a-zA-Z]*)$/.exec(String(s).trim());
  if (!m) return 0;
  const factor = SUFFIXES[m[3]];
  if (factor === undefined) return 0;
  let v = parseFloat(m[1]);
  if (m[2]) v *= 10 ** parseInt(m[2], 10);
  return v * factor;
}

// podRequests is what the scheduler counts a Pod for: its containers'
// requests (and sidecars'), at least its largest init container's, plus
// its overhead.
export function podRequests(pod) {
  const res = ['cpu', 'memory'];
  const sum = { cpu: 0, memory: 0 };
  const init = { cpu: 0, memory: 0 };
  for (const c of pod.spec?.containers || []) {
    for (const r of res) sum[r] += quantity(c.resources?.requests?.[r]);
  }
  for (const c of pod.spec?.initContainers || []) {
    for (const r of res) {
      const q = quantity(c.resources?.requests?.[r]);
      if (c.restartPolicy === 'Always') sum[r] += q;
      else init[r] = Math.max(init[r], q);
    }
  }
  for (const r of res) {
    sum[r] = Math.max(sum[r], init[r]) + quantity(pod.spec?.overhead?.[r]);
  }
  return sum;
}

// parseSelector parses a label selector (k=v, k==v, k!=v, k, !k,
// k in (a,b), k notin (a,b), joined by commas) into a predicate on a
// labels object; it throws on a term it cannot read.
export function parseSelector(s) {
  const terms = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  terms.push(cur);
  const preds = [];
  for (const raw of terms) {
    const t = raw.trim();
    if (!t) continue;
    let m;
    if ((m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^()]*)\)$/.exec(t))) {
      const [, k, op, list] = m;
      const values = new Set(list.split(',').map((v) => v.trim()));
      preds.push(op === 'in'
        ? (l) => Object.hasOwn(l, k) && values.has(l[k])
        : (l) => !Object.hasOwn(l, k) || !values.has(l[k]));
    } else if ((m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(t))) {
      const [, k, op, v] = m;
      preds.push(op === '!='
        ? (l) => !Object.hasOwn(l, k) || l[k] !== v
        : (l) => Object.hasOwn(l, k) && l[k] === v);
    } else if ((m = /^!\s*([^\s!=(),]+)$/.exec(t))) {
      const k = m[1];
      preds.push((l) => !Object.hasOwn(l, k));
    } else if ((m = /^([^\s!=(),]+)$/.exec(t))) {
      const k = m[1];
      preds.push((l) => Object.hasOwn(l, k));
    } else {
      throw new Error(`cannot read the selector term "${t}"`);
    }
  }
  return (labels) => preds.every((p) => p(labels || {}));
}

// formatCPU and formatBytes show quantities compactly.
export function formatCPU(v) {
  if (v < 1 && v > 0) return `${Math.round(v * 1000)}m`;
  return `${Math.round(v * 100) / 100}`;
}

export function formatBytes(v) {
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Math.round(v * 10) / 10}${units[i]}`;
}
